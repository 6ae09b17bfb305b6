// The simulator against real clients: kubectl and @kubernetes/client-node over TLS (client certificate
// and bearer token), the list/watch protocol of docs/kube-api.md, fault injection, and the mini controllers.
import { mkdtempSync, rmSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'
import { clientNodeListWatch } from '../harness/client-node-checks.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSimulator, type Simulator } from './index.ts'
import { kubectl as kubectlWith, raw as rawWith, until, watchLines as watchWith } from './test-client.ts'

const dir = mkdtempSync(join(tmpdir(), 'sim-test-'))
let sim: Simulator

beforeAll(async () => {
  sim = await startSimulator({ nodes: 3, podStartDelayMs: 10, jobRunMs: 100, historyWindow: 50, bookmarkIntervalMs: 200 })
  await sim.writeKubeconfig(join(dir, 'cert.kubeconfig'), { auth: 'cert' })
  await sim.writeKubeconfig(join(dir, 'token.kubeconfig'), { auth: 'token' })
})
afterAll(async () => {
  await sim?.close()
  rmSync(dir, { recursive: true, force: true })
})

const kubectl = (auth: 'cert' | 'token', ...args: string[]) => kubectlWith(join(dir, `${auth}.kubeconfig`), ...args)
const raw = (path: string, opts?: Parameters<typeof rawWith>[2]) => rawWith(sim, path, opts)
const watchLines = (path: string, stop: (lines: any[]) => boolean, headers?: Record<string, string>) => watchWith(sim, path, stop, headers)

const deployment = (name: string, replicas: number, image = 'nginx:1.25') => ({
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } } },
})

describe('clients', () => {
  it('kubectl reads and writes with a client certificate and with a bearer token', async () => {
    expect(await kubectl('cert', 'get', 'nodes', '-o', 'name')).toBe('node/node-1\nnode/node-2\nnode/node-3\n')
    expect(await kubectl('token', 'get', 'namespaces', '-o', 'name')).toContain('namespace/kube-system')
    const manifest = join(dir, 'k.json')
    await import('node:fs/promises').then((fs) => fs.writeFile(manifest, JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', ...deployment('kc', 2) })))
    await kubectl('token', 'create', '--validate=false', '-f', manifest)
    await until('2 pods of kc', async () => (await kubectl('cert', 'get', 'pods', '-l', 'app=kc', '-o', 'name')).trim().split('\n').length === 2)
    await kubectl('cert', 'scale', 'deployment', 'kc', '--replicas=3')
    await until('3 running pods of kc', () => sim.list('pods', 'default').filter((p) => p.metadata.labels?.app === 'kc' && p.status.phase === 'Running' && !p.metadata.deletionTimestamp).length === 3)
    await kubectl('cert', 'delete', 'deployment', 'kc')
    await until('kc cascade', () => sim.list('pods', 'default').every((p) => p.metadata.labels?.app !== 'kc') && sim.list('replicasets', 'default').every((r) => !r.metadata.name.startsWith('kc-')))
  })

  it('rejects requests without credentials (401 Status)', async () => {
    const res = await raw('/api/v1/pods', { token: null })
    expect(res.status).toBe(401)
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 })
    expect((await raw('/api/v1/pods', { token: 'wrong' })).status).toBe(401)
  })

  it('client-node lists with pagination and watches ADDED, MODIFIED, DELETED', async () => {
    const kc = new KubeConfig()
    kc.loadFromString(sim.kubeconfig())
    await clientNodeListWatch(kc, deployment('cn', 3), () =>
      until('3 running cn pods', () => sim.list('pods', 'default').filter((p) => p.metadata.labels?.app === 'cn' && p.status.phase === 'Running').length === 3))
  })
})

describe('list and watch protocol', () => {
  it('serves metadata-only lists and watches for PartialObjectMetadata', async () => {
    sim.create('replicasets', { metadata: { name: 'meta-rs' }, spec: { replicas: 0, selector: { matchLabels: { a: 'm' } }, template: { metadata: { labels: { a: 'm' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } })
    const list = await raw('/apis/apps/v1/replicasets?limit=500', { headers: { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' } })
    const body = JSON.parse(list.body)
    expect(body.kind).toBe('PartialObjectMetadataList')
    expect(body.items.find((i: any) => i.metadata.name === 'meta-rs')).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'meta-rs' } })
    expect(body.items[0].spec).toBeUndefined()
    const open = sim.stats.watchesOpen
    const pending = watchLines(`/apis/apps/v1/replicasets?watch=1&resourceVersion=${body.metadata.resourceVersion}`, (l) => l.length >= 1,
      { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json' })
    await until('the watch to open', () => sim.stats.watchesOpen > open)
    sim.delete('replicasets', 'default', 'meta-rs')
    const w = await pending
    expect(w.status).toBe(200)
    expect(w.lines[0]).toMatchObject({ type: 'DELETED', object: { kind: 'PartialObjectMetadata', metadata: { name: 'meta-rs' } } })
  })

  it('streaming list: the snapshot as ADDED, then the bookmark annotated initial-events-end', async () => {
    sim.create('pods', { metadata: { name: 'stream-a', namespace: 'kube-public' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
    const w = await watchLines('/api/v1/namespaces/kube-public/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      (l) => l.some((x) => x.type === 'BOOKMARK'))
    const bookmark = w.lines.at(-1)
    expect(bookmark.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' })
    expect(w.lines.slice(0, -1).map((l) => `${l.type} ${l.object.metadata.name}`)).toContain('ADDED stream-a')
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(w.lines[0].object.metadata.resourceVersion))
  })

  it('answers 422 to streaming lists when WatchList is off, and to invalid combinations', async () => {
    const bad = await raw('/api/v1/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true')
    expect(bad.status).toBe(422) // resourceVersionMatch missing
    const off = await startSimulator({ watchList: false, controllers: false })
    try {
      const res = await new Promise<number>((resolve, reject) => {
        https.get(new URL('/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', off.url),
          { headers: { Authorization: `Bearer ${off.token}` }, rejectUnauthorized: false }, (r) => {
            r.resume()
            resolve(r.statusCode!)
          }).on('error', reject)
      })
      expect(res).toBe(422)
    } finally {
      await off.close()
    }
  })

  it('a watch from a compacted resourceVersion gets an in-stream 410 and a clean end', async () => {
    const rv = sim.resourceVersion
    sim.create('pods', { metadata: { name: 'old-rv', namespace: 'kube-public' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
    sim.faults.compact()
    const w = await watchLines(`/api/v1/pods?watch=1&resourceVersion=${rv}`, () => false)
    expect(w.status).toBe(200)
    expect(w.ended).toBe(true)
    expect(w.lines).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) }])
  })

  it('expired continue tokens are 410 Expired; injected 429 carries Retry-After', async () => {
    for (let i = 0; i < 3; i++) sim.create('pods', { metadata: { name: `page-${i}`, namespace: 'kube-public' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
    const page = JSON.parse((await raw('/api/v1/namespaces/kube-public/pods?limit=1')).body)
    expect(page.metadata.continue).toBeTruthy()
    sim.faults.restart()
    const expired = await raw(`/api/v1/namespaces/kube-public/pods?limit=1&continue=${page.metadata.continue}`)
    expect(expired.status).toBe(410)
    sim.faults.failRequests({ resource: 'pods', status: 429, retryAfterSeconds: 3, count: 1 })
    const limited = await raw('/api/v1/pods?limit=1')
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('3')
    expect((await raw('/api/v1/pods?limit=1')).status).toBe(200)
  })

  it('drops, stalls and corrupts watches on request (also over /sim/faults)', async () => {
    const rv = sim.resourceVersion
    const dropped = watchLines(`/api/v1/namespaces/kube-node-lease/pods?watch=1&resourceVersion=${rv}`, () => false)
    await until('the watch to open', () => sim.stats.watchesOpen > 0)
    const res = await raw('/sim/faults/dropWatches', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } })
    expect(res.status).toBe(200)
    expect((await dropped).ended).toBe(true)

    sim.faults.malformedLine('pods')
    const bad = watchLines(`/api/v1/namespaces/kube-node-lease/pods?watch=1&resourceVersion=${sim.resourceVersion}`, (l) => l.length >= 2)
    await new Promise((r) => setTimeout(r, 50))
    sim.create('pods', { metadata: { name: 'm1', namespace: 'kube-node-lease' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
    sim.create('pods', { metadata: { name: 'm2', namespace: 'kube-node-lease' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
    const lines = (await bad).lines
    expect(lines[0].malformed).toBeDefined()
    expect(lines[1]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'm2' } } })
  })
})

describe('controllers', () => {
  it('rolls a Deployment out: a new ReplicaSet, old pods replaced, the old ReplicaSet scaled to 0', async () => {
    sim.create('deployments', deployment('roll', 2))
    const running = () => sim.list('pods', 'default').filter((p) => p.metadata.labels?.app === 'roll' && p.status.phase === 'Running' && !p.metadata.deletionTimestamp)
    await until('2 running', () => running().length === 2)
    const before = new Set(running().map((p) => p.metadata.name))
    sim.patch('deployments', 'default', 'roll', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.26' }] } } } })
    await until('2 new pods only', () => {
      const pods = sim.list('pods', 'default').filter((p) => p.metadata.labels?.app === 'roll')
      return pods.length === 2 && pods.every((p) => !before.has(p.metadata.name) && p.status.phase === 'Running')
    })
    const rss = sim.list('replicasets', 'default').filter((r) => r.metadata.ownerReferences?.[0]?.name === 'roll')
    expect(rss.map((r) => r.spec.replicas).sort()).toEqual([0, 2])
    const pod = running()[0]
    expect(pod.metadata.ownerReferences[0]).toMatchObject({ kind: 'ReplicaSet', controller: true })
    expect(pod.status.podIP).toMatch(/^10\.244\.\d+\.\d+$/)
    expect(pod.status.containerStatuses[0].containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/)
  })

  it('CronJob run-now makes a Job whose pod runs and succeeds; DaemonSet covers every node; StatefulSet pods are ordinal', async () => {
    sim.create('cronjobs', { metadata: { name: 'cj' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 't', image: 't:1' }] } } } } } })
    sim.runCronJobNow('default', 'cj')
    await until('the job complete', () => sim.list('jobs', 'default').some((j) => j.metadata.ownerReferences?.[0]?.kind === 'CronJob' && j.status.succeeded === 1))
    const job = sim.list('jobs', 'default').find((j) => j.metadata.ownerReferences?.[0]?.name === 'cj')
    const jobPod = sim.list('pods', 'default').find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)
    expect(jobPod.status.phase).toBe('Succeeded')

    sim.create('daemonsets', { metadata: { name: 'ds', namespace: 'kube-system' }, spec: { selector: { matchLabels: { a: 'ds' } }, template: { metadata: { labels: { a: 'ds' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } })
    await until('3 ds pods', () => sim.list('pods', 'kube-system').filter((p) => p.metadata.labels?.a === 'ds' && p.status.phase === 'Running').length === 3)
    expect(new Set(sim.list('pods', 'kube-system').filter((p) => p.metadata.labels?.a === 'ds').map((p) => p.spec.nodeName))).toEqual(new Set(['node-1', 'node-2', 'node-3']))

    sim.create('statefulsets', { metadata: { name: 'st' }, spec: { replicas: 3, serviceName: 'st', selector: { matchLabels: { a: 'st' } }, template: { metadata: { labels: { a: 'st' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } })
    await until('st-0..2 running', () => ['st-0', 'st-1', 'st-2'].every((n) => sim.get('pods', 'default', n)?.status.phase === 'Running'))
    sim.patch('statefulsets', 'default', 'st', { spec: { replicas: 1 } })
    await until('st scaled to 1', () => !sim.get('pods', 'default', 'st-1') && !sim.get('pods', 'default', 'st-2'))
    expect(sim.get('pods', 'default', 'st-0').status.phase).toBe('Running')
  })
})
