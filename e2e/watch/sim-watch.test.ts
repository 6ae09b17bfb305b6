// Issue 4 "Tests", 2nd bullet: the watch layer (watchPods/ReplicaSets/Jobs) against the API simulator,
// on Node and on Deno. watch-printer.ts runs in a child process and prints every event, request and
// stats line; the test drives the simulator in-process (objects and faults) and checks the lines.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startSimulator, type Simulator } from '../sim/index.ts'
import { waitFor } from '../harness/wait.ts'
import { Printer, relistTotal, rvOfPath, STREAMS, type Line } from './printer-process.ts'

const PRINTER_ARGS = ['--silence-limit-ms', '1500', '--backoff-initial-ms', '50', '--backoff-max-ms', '400', '--watch-timeout-secs', '4,6', '--stats-interval-ms', '200']
const META_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'

const container = (name: string, image: string) => ({ name, image })
const uidsOf = (objs: Array<{ metadata: { uid: string } }>): string[] => objs.map((o) => o.metadata.uid).sort()
const uids = (lines: Line[]): string[] => lines.map((l) => String(l.uid)).sort()

/** The events of the first complete `init … initDone` in `evs` (undefined while incomplete). */
function firstList(evs: Line[]): Line[] | undefined {
  const start = evs.findIndex((e) => e.type === 'init')
  if (start < 0) return undefined
  const end = evs.findIndex((e, i) => i > start && e.type === 'initDone')
  return end < 0 ? undefined : evs.slice(start, end + 1)
}

describe.each(['node', 'deno'])('watch layer on %s against the simulator', (runtime) => {
  let dir: string
  let sim: Simulator // streaming lists, controllers
  let legacy: Simulator // watchList: false (422), > 500 pods
  let p: Printer
  let q: Printer
  let victimUid: string

  const podsRunning = (names: string[]): boolean => {
    const pods = sim.list('pods')
    return names.every((prefix) => pods.some((x) => x.metadata.name.startsWith(prefix))) && pods.every((x) => x.status?.podIP && x.status?.phase === 'Running')
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kc-watch-'))
    ;[sim, legacy] = await Promise.all([
      startSimulator({ nodes: 2, historyWindow: 50, podStartDelayMs: 20, bookmarkIntervalMs: 250, jobRunMs: 600_000 }),
      startSimulator({ nodes: 2, historyWindow: 50, bookmarkIntervalMs: 250, watchList: false, controllers: false }),
    ])
    await sim.writeKubeconfig(join(dir, 'sim.kubeconfig'))
    await legacy.writeKubeconfig(join(dir, 'legacy.kubeconfig'), { auth: 'token' })

    sim.create('deployments', {
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container('nginx', 'nginx:1.25'), container('sidecar', 'busybox:1.36')] } } },
    })
    sim.create('jobs', { metadata: { name: 'once', namespace: 'default' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [container('task', 'task:1')] } } } })
    sim.create('cronjobs', {
      metadata: { name: 'nightly', namespace: 'default' },
      spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [container('report', 'report:2')] } } } } },
    })
    sim.runCronJobNow('default', 'nightly')
    victimUid = sim.create('pods', { metadata: { name: 'victim', namespace: 'default' }, spec: { containers: [container('v', 'v:1')] } }).metadata.uid
    await waitFor('the workload to run', () => (podsRunning(['web-', 'once-', 'nightly-', 'victim']) ? true : undefined), { timeoutMs: 10_000 })

    legacy.bulk.createPods(1_200, { containers: 1 })
    legacy.bulk.createReplicaSets(3, { deployment: 'api' })
    legacy.bulk.createJobs(2, { cronJob: 'nightly' })

    p = new Printer(runtime, ['--kubeconfig', join(dir, 'sim.kubeconfig'), ...PRINTER_ARGS])
    q = new Printer(runtime, ['--kubeconfig', join(dir, 'legacy.kubeconfig'), ...PRINTER_ARGS])
    // Loading the modules takes seconds on Node (tsx); a busy machine must not eat the tests' budget.
    await Promise.all([p, q].map((x) => x.until('the printer to start', () => x.lines.find((l) => l.t === 'ready'), 45_000)))
  })

  // A failed test must not leave its fault behind for the next one.
  afterEach(() => {
    for (const s of [sim, legacy]) {
      s?.faults.clearFailures()
      s?.faults.stallWatches(false)
    }
  })

  afterAll(async () => {
    await Promise.all([p?.stop(), q?.stop()])
    await Promise.all([sim?.close(), legacy?.close()])
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('syncs every stream by streaming list, owners as PartialObjectMetadata with their controller', async () => {
    const lists = await p.until('initial lists of the three streams', () => {
      const out: Record<string, Line[]> = {}
      for (const s of STREAMS) {
        const l = firstList(p.events(s))
        if (!l) return undefined
        out[s] = l
      }
      return out
    }, 20_000)
    expect(p.lines.find((l) => l.t === 'ready')?.runtime).toBe(runtime)
    for (const s of STREAMS) {
      const evs = p.events(s)
      // The stream starts with its list: init, initApply…, initDone.
      expect(evs.slice(0, lists[s]!.length)).toEqual(lists[s])
      expect(lists[s]!.slice(1, -1).every((e) => e.type === 'initApply')).toBe(true)
      const reqs = p.since(0, 'req', s)
      expect(reqs[0]!.path).toContain('sendInitialEvents=true')
      expect(reqs[0]!.path).toContain('resourceVersionMatch=NotOlderThan')
      expect(reqs.some((r) => String(r.path).includes('limit='))).toBe(false)
      const st = await p.until(`${s} stats after the list`, () => {
        const x = p.stats(s)
        return x?.availability === 'available' ? x : undefined
      })
      expect(st).toMatchObject({ listMode: 'streaming', relists: { gone: 0, unavailable: 0, fallback: 0, error: 0 } })
      // One list, or more when a busy machine let the silence limit tear one down (each counts).
      expect(st.relists.initial).toBeGreaterThanOrEqual(1)
    }

    // Pods: full objects, the IP and the containers as the simulator has them.
    const pods = sim.list('pods')
    expect(uids(lists.pods!.slice(1, -1))).toEqual(uidsOf(pods))
    for (const e of lists.pods!.slice(1, -1)) {
      const pod = pods.find((x) => x.metadata.uid === e.uid)!
      expect(e).toMatchObject({ name: pod.metadata.name, ns: 'default', rv: pod.metadata.resourceVersion, ip: pod.status.podIP })
      expect(e.containers.map((c: { id: string }) => c.id)).toEqual(pod.status.containerStatuses.map((c: { containerID: string }) => c.containerID))
    }
    const web = lists.pods!.find((e) => String(e.name).startsWith('web-'))!
    expect(web.version).toBe("'busybox:1.36','nginx:1.25'")
    expect(web.containers).toHaveLength(2)
    expect(web.containers[0].id).toMatch(/^containerd:\/\/[0-9a-f]{64}$/)
    expect(web.owner).toMatchObject({ kind: 'ReplicaSet' })

    // Owners: metadata only (Accept header honoured), controller references carried.
    const deployment = sim.get('deployments', 'default', 'web')
    const rs = sim.list('replicasets')
    expect(uids(lists.replicasets!.slice(1, -1))).toEqual(uidsOf(rs))
    expect(lists.replicasets!.slice(1, -1)).toEqual([
      expect.objectContaining({ kind: 'ReplicaSet', uid: rs[0].metadata.uid, controller: { kind: 'Deployment', name: 'web', uid: deployment.metadata.uid } }),
    ])
    const cron = sim.get('cronjobs', 'default', 'nightly')
    const jobs = lists.jobs!.slice(1, -1)
    expect(uids(jobs)).toEqual(uidsOf(sim.list('jobs')))
    const once = jobs.find((j) => j.name === 'once')!
    expect(once.kind).toBe('Job')
    expect(once.controller).toBeUndefined()
    expect(jobs.find((j) => String(j.name).startsWith('nightly-'))).toMatchObject({ kind: 'Job', controller: { kind: 'CronJob', name: 'nightly', uid: cron.metadata.uid } })
    for (const s of ['replicasets', 'jobs']) {
      expect(p.since(0, 'req', s).every((r) => String(r.accept).startsWith(META_ACCEPT))).toBe(true)
      const body = p.since(0, 'body', s).at(-1)!
      expect(body).toMatchObject({ kinds: ['PartialObjectMetadata'], apiVersions: ['meta.k8s.io/v1'], withSpec: false, withStatus: false })
    }
    expect(p.since(0, 'body', 'pods').at(-1)).toMatchObject({ kinds: ['Pod'], apiVersions: ['v1'], withSpec: true, withStatus: true })
  })

  it('syncs by paginated LIST after a 422 (1,200 pods → 3 pages), and relists the same way after a 410', async () => {
    const list = await q.until('the paginated pod list', () => firstList(q.events('pods')), 20_000)
    const items = list.slice(1, -1)
    expect(items).toHaveLength(1_200)
    expect(uids(items)).toEqual(uidsOf(legacy.list('pods')))
    const reqs = q.since(0, 'req', 'pods')
    expect(reqs[0]!.path).toContain('sendInitialEvents=true')
    expect(q.since(0, 'http', 'pods')[0]).toMatchObject({ status: 422 })
    const pages = reqs.filter((r) => String(r.path).includes('limit=500'))
    expect(pages.map((r) => String(r.path).includes('continue='))).toEqual([false, true, true])
    expect(q.since(0, 'log').some((l) => /streaming lists not supported/.test(l.msg))).toBe(true)
    const st = await q.until('pods stats after the list', () => {
      const x = q.stats('pods')
      return x?.availability === 'available' ? x : undefined
    })
    expect(st).toMatchObject({ listMode: 'paginated', relists: { fallback: 1, initial: 1, gone: 0 } })
    // The watch continues from the list's revision.
    const watch = await q.until('the pods watch after the list', () => q.since(0, 'req', 'pods').find((r) => /[?&]watch=1/.test(r.path) && r.path.includes('resourceVersion=')))
    expect(watch.path).not.toContain('sendInitialEvents')

    // Owners over LIST: PartialObjectMetadataList with controller references.
    const rsList = await q.until('the replicaset list', () => firstList(q.events('replicasets')))
    expect(rsList.slice(1, -1).map((e) => e.controller)).toEqual([0, 1, 2].map(() => expect.objectContaining({ kind: 'Deployment', name: 'api' })))
    expect(q.since(0, 'body', 'replicasets').find((b) => !b.watch)).toMatchObject({ listKind: 'PartialObjectMetadataList', kinds: ['PartialObjectMetadata'], withSpec: false, objects: 3 })
    const jobList = await q.until('the job list', () => firstList(q.events('jobs')))
    expect(jobList.slice(1, -1).map((e) => e.controller?.kind)).toEqual(['CronJob', 'CronJob'])

    // 410: a change hidden by a stall, history compacted, watches cut → relist, again by LIST (decision remembered).
    await q.until('a pods watch open', () => legacy.stats.watchesOpen >= 3 || undefined)
    const m = q.mark()
    legacy.faults.stallWatches(true)
    legacy.bulk.createPods(1, { containers: 1 })
    legacy.faults.compact()
    legacy.faults.dropWatches({ abrupt: true })
    legacy.faults.stallWatches(false)
    const relist = await q.until('a relist after 410', () => firstList(q.events('pods', m)), 15_000)
    expect(relist.slice(1, -1)).toHaveLength(1_201)
    expect(q.since(m, 'req', 'pods').some((r) => String(r.path).includes('sendInitialEvents'))).toBe(false)
    expect(q.since(m, 'req', 'pods').filter((r) => String(r.path).includes('limit=500'))).toHaveLength(3)
    const after = await q.until('gone relist in stats', () => {
      const x = q.stats('pods', m)
      return x && x.relists.gone >= 1 && x.availability === 'available' ? x : undefined
    })
    expect(after.errors['410']).toBeGreaterThanOrEqual(1)
    expect(after.listMode).toBe('paginated')
    expect(q.since(m, 'http').some((h) => h.status === 422)).toBe(false)
  })

  it('delivers apply events with the IP and containers, then the delete, in revision order', async () => {
    const m = p.mark()
    const created = sim.create('pods', { metadata: { name: 'probe', namespace: 'default' }, spec: { containers: [container('nginx', 'nginx:1.25'), container('sidecar', 'busybox:1.36')] } })
    const uid = created.metadata.uid
    const running = await p.until('the probe pod running', () => p.events('pods', m).find((e) => e.uid === uid && e.ip && e.containers.length === 2))
    const pod = sim.get('pods', 'default', 'probe')
    expect(running).toMatchObject({ type: 'apply', name: 'probe', ns: 'default', ip: pod.status.podIP, hostNetwork: false, version: "'busybox:1.36','nginx:1.25'" })
    expect(running.ip).toMatch(/^10\.244\.[12]\.\d+$/)
    expect(running.containers).toEqual(pod.status.containerStatuses.map((c: { containerID: string; name: string; image: string }) => ({ id: c.containerID, name: c.name, image: c.image })))
    sim.delete('pods', 'default', 'probe')
    await p.until('the probe pod deleted', () => p.events('pods', m).find((e) => e.uid === uid && e.type === 'delete'))
    const evs = p.events('pods', m).filter((e) => e.uid === uid)
    expect(evs[0]).toMatchObject({ type: 'apply', rv: created.metadata.resourceVersion, ip: '' })
    expect(evs.at(-1)!.type).toBe('delete')
    expect(evs.slice(0, -1).every((e) => e.type === 'apply')).toBe(true)
    const rvs = evs.map((e) => Number(e.rv))
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b))
    expect(new Set(rvs).size).toBe(rvs.length)
  })

  it('streams owner changes as metadata-only apply events with the controller reference', async () => {
    const m = p.mark()
    const rs = sim.list('replicasets').find((x) => x.metadata.name.startsWith('web-'))
    sim.patch('replicasets', 'default', rs.metadata.name, { metadata: { labels: { touched: 'yes' } } })
    sim.runCronJobNow('default', 'nightly')
    const deployment = sim.get('deployments', 'default', 'web')
    const cron = sim.get('cronjobs', 'default', 'nightly')
    const rsEv = await p.until('the replicaset apply', () => p.events('replicasets', m).find((e) => e.type === 'apply' && e.uid === rs.metadata.uid))
    expect(Number(rsEv.rv)).toBeGreaterThan(Number(rs.metadata.resourceVersion))
    expect(rsEv.controller).toEqual({ kind: 'Deployment', name: 'web', uid: deployment.metadata.uid })
    const jobEv = await p.until('the new job', () => p.events('jobs', m).find((e) => e.type === 'apply' && String(e.name).startsWith('nightly-')))
    expect(jobEv.controller).toEqual({ kind: 'CronJob', name: 'nightly', uid: cron.metadata.uid })
    for (const s of ['replicasets', 'jobs']) {
      const watchBodies = p.since(m, 'body', s).filter((b) => b.watch)
      expect(watchBodies.length).toBeGreaterThan(0)
      for (const b of watchBodies) expect(b).toMatchObject({ kinds: ['PartialObjectMetadata'], withSpec: false, withStatus: false })
    }
  })

  it('resumes after a clean end from the last revision, without a relist', async () => {
    const before = await p.freshStats()
    const m = p.mark()
    const rvAtDrop = sim.resourceVersion
    sim.faults.dropWatches()
    const uid = sim.create('pods', { metadata: { name: 'after-drop', namespace: 'default' }, spec: { containers: [container('a', 'a:1')] } }).metadata.uid
    await p.until('the pod created after the drop', () => p.events('pods', m).find((e) => e.uid === uid))
    const after = await p.until('every stream restarted its watch', async () => {
      const st = await p.freshStats()
      return STREAMS.every((s) => st[s]!.watchRestarts > before[s]!.watchRestarts) ? st : undefined
    })
    for (const s of STREAMS) {
      expect(relistTotal(after[s])).toBe(relistTotal(before[s]))
      expect(p.events(s, m).some((e) => e.type === 'init')).toBe(false)
      const resumed = p.since(m, 'req', s)[0]!
      expect(resumed.path).not.toContain('sendInitialEvents')
      expect(rvOfPath(resumed.path)).toBeGreaterThanOrEqual(Number(before[s]!.resourceVersion))
      expect(rvOfPath(resumed.path)).toBeLessThanOrEqual(rvAtDrop)
    }
  })

  it('relists after a 410 and the relist shows the delete it missed', async () => {
    const before = await p.freshStats()
    const m = p.mark()
    // The delete happens while the watches are stalled, then history is compacted past it: resuming
    // from the old revision gets an in-stream 410 and only a relist can reveal the delete.
    sim.faults.stallWatches(true)
    sim.delete('pods', 'default', 'victim')
    await waitFor('the victim gone from the simulator', () => (sim.get('pods', 'default', 'victim') ? undefined : true), { timeoutMs: 5_000 })
    sim.faults.compact()
    sim.faults.dropWatches({ abrupt: true })
    sim.faults.stallWatches(false)
    const relist = await p.until('the pods relist', () => firstList(p.events('pods', m)), 15_000)
    expect(uids(relist.slice(1, -1))).toEqual(uidsOf(sim.list('pods')))
    expect(uids(relist.slice(1, -1))).not.toContain(victimUid)
    expect(p.events('pods', m).some((e) => e.uid === victimUid)).toBe(false)
    const after = await p.until('gone relist in stats', () => {
      const x = p.stats('pods', m)
      return x && x.relists.gone > before.pods!.relists.gone && x.availability === 'available' ? x : undefined
    })
    expect(after.errors['410']).toBeGreaterThan(before.pods!.errors['410'] ?? 0)
    expect(after.listMode).toBe('streaming')
  })

  it('tears a stalled connection down by the silence limit and restarts the watch', async () => {
    const before = await p.freshStats()
    const m = p.mark()
    sim.faults.stallWatches(true)
    let after: Record<string, Line>
    try {
      after = await p.until('peer_silent teardowns on every stream', async () => {
        const st = await p.freshStats()
        return STREAMS.every((s) => st[s]!.disconnects.peer_silent > before[s]!.disconnects.peer_silent && st[s]!.watchRestarts > before[s]!.watchRestarts) ? st : undefined
      }, 8_000)
    } finally {
      sim.faults.stallWatches(false)
    }
    for (const s of STREAMS) {
      expect(relistTotal(after[s])).toBe(relistTotal(before[s]))
      expect(after[s]!.lastError?.label ?? '').toMatch(/peer_silent|short_watch/)
    }
    expect(p.since(m, 'log').some((l) => /watch from resourceVersion \d+ \(timeoutSeconds \d\) torn down \(peer_silent\): the API server sent nothing for 1\.5 s/.test(l.msg))).toBe(true)
    const uid = sim.create('pods', { metadata: { name: 'after-stall', namespace: 'default' }, spec: { containers: [container('a', 'a:1')] } }).metadata.uid
    await p.until('the pod created after the stall', () => p.events('pods', m).find((e) => e.uid === uid))
  })

  it('honours Retry-After of a 429 before the next request, other streams resume at once', async () => {
    await p.until('all watches open', () => sim.stats.watchesOpen >= 3 || undefined)
    const before = await p.freshStats()
    const m = p.mark()
    sim.faults.failRequests({ resource: 'pods', status: 429, retryAfterSeconds: 1, count: 1 })
    sim.faults.dropWatches()
    const rejected = await p.until('the 429', () => p.since(m, 'http', 'pods').find((h) => h.status === 429))
    expect(rejected.retryAfter).toBe('1')
    const next = await p.until('the pods request after the 429', () => p.since(m, 'req', 'pods').find((r) => r.at > rejected.at))
    expect(next.at - rejected.at).toBeGreaterThanOrEqual(990)
    expect(next.path).toContain('resourceVersion=')
    expect(next.path).not.toContain('sendInitialEvents')
    for (const s of ['replicasets', 'jobs']) {
      const first = p.since(m, 'req', s)[0]!
      expect(first.at - rejected.at).toBeLessThan(900)
    }
    const after = await p.until('429 in stats', () => {
      const x = p.stats('pods', m)
      return x && (x.errors['429'] ?? 0) > (before.pods!.errors['429'] ?? 0) ? x : undefined
    })
    expect(relistTotal(after)).toBe(relistTotal(before.pods))
  })

  it('reports 403 as unavailable, keeps retrying, and recovers with a fresh list', async () => {
    const before = await p.freshStats()
    const m = p.mark()
    sim.faults.failRequests({ resource: 'replicasets', status: 403 })
    sim.faults.dropWatches()
    const unavailable = await p.until('replicasets unavailable', () => p.events('replicasets', m).find((e) => e.type === 'unavailable'))
    expect(unavailable.reason).toMatch(/403/)
    await p.until('retries while unavailable', () => p.since(m, 'http', 'replicasets').filter((h) => h.status === 403).length >= 3 || undefined)
    await p.until('replicasets stats unavailable', () => p.stats('replicasets', m)?.availability === 'unavailable' || undefined)
    expect(p.events('replicasets', m).filter((e) => e.type === 'unavailable')).toHaveLength(1)
    const late = sim.create('replicasets', {
      metadata: { name: 'late', namespace: 'default' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'late' } }, template: { metadata: { labels: { app: 'late' } }, spec: { containers: [container('l', 'l:1')] } } },
    })
    const cleared = p.mark()
    sim.faults.clearFailures()
    const relist = await p.until('the replicasets relist', () => firstList(p.events('replicasets', cleared)))
    expect(uids(relist.slice(1, -1))).toEqual(uidsOf(sim.list('replicasets')))
    expect(uids(relist.slice(1, -1))).toContain(late.metadata.uid)
    const after = await p.until('replicasets available again', () => {
      const x = p.stats('replicasets', cleared)
      return x?.availability === 'available' ? x : undefined
    })
    // The first 403 answered a watch; each one after it answered a list, and one more list succeeded.
    const forbidden = after.errors['403']! - (before.replicasets!.errors['403'] ?? 0)
    expect(forbidden).toBeGreaterThanOrEqual(3)
    expect(after.relists.unavailable - before.replicasets!.relists.unavailable).toBe(forbidden)
    for (const s of ['pods', 'jobs']) expect(p.events(s, m).some((e) => e.type === 'unavailable' || e.type === 'init')).toBe(false)
  })

  it('ends the watch loudly on a malformed line and resumes from the last revision without a relist', async () => {
    await p.until('all watches open', () => sim.stats.watchesOpen >= 3 || undefined)
    const before = await p.freshStats()
    const m = p.mark()
    sim.faults.malformedLine('pods')
    const uid = sim.create('pods', { metadata: { name: 'after-malformed', namespace: 'default' }, spec: { containers: [container('a', 'a:1')] } }).metadata.uid
    const after = await p.until('the malformed line counted', () => {
      const x = p.stats('pods', m)
      return x && x.malformedLines > before.pods!.malformedLines ? x : undefined
    })
    expect(after.errors.malformed).toBe((before.pods!.errors.malformed ?? 0) + 1)
    const logged = p.since(m, 'log').find((l) => l.tag === 'kube:pods' && /malformed line/.test(l.msg))
    expect(logged).toMatchObject({ level: 'error' })
    const resumedFrom = Number(/resuming from resourceVersion (\d+)/.exec(logged!.msg)?.[1])
    const resumed = await p.until('the resumed pods watch', () => p.since(m, 'req', 'pods').find((r) => r.at >= logged!.at))
    expect(rvOfPath(resumed.path)).toBe(resumedFrom)
    expect(resumed.path).not.toContain('sendInitialEvents')
    // The event whose line was cut is not lost: the resumed watch replays it.
    await p.until('the pod created with the malformed line', () => p.events('pods', m).find((e) => e.uid === uid))
    expect(p.events('pods', m).some((e) => e.type === 'init')).toBe(false)
    expect(relistTotal(p.stats('pods'))).toBe(relistTotal(before.pods))
  })

  it('exits 0 on SIGTERM with every stream stopped', async () => {
    for (const printer of [p, q]) {
      const { code } = await printer.stop()
      expect(code).toBe(0)
      expect(printer.lines.at(-1)).toMatchObject({ t: 'exit', signal: 'SIGTERM', ended: true })
      for (const s of STREAMS) expect(printer.stats(s)?.phase).toBe('stopped')
    }
  })
})
