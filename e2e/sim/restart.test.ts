// Restarts (issue 18): the in-process restart keeps the CA, token and objects, optionally refusing
// connections for a while on the same port; a state directory carries all of it across simulators.
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startSimulator, type Simulator } from './index.ts'
import { kubectl, raw, until, watchLines } from './test-client.ts'

const dir = mkdtempSync(join(tmpdir(), 'sim-restart-'))
const started: Simulator[] = []
afterAll(async () => {
  for (const s of started) await s.close()
  rmSync(dir, { recursive: true, force: true })
})

const start = async (opts: Parameters<typeof startSimulator>[0]) => {
  const s = await startSimulator(opts)
  started.push(s)
  return s
}

/** 'refused', or 'open' once a TCP connection to the simulator's port succeeds. */
const probe = (url: string) => new Promise<'open' | 'refused'>((resolve) => {
  const { hostname, port } = new URL(url)
  const s = connect({ host: hostname, port: Number(port) })
  s.once('connect', () => {
    s.destroy()
    resolve('open')
  })
  s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'refused' : 'open'))
})

describe('in-process restart', () => {
  it('down for a while (connections refused), then back on the same port with the same CA, token and objects', async () => {
    const sim = await start({ nodes: 1, podStartDelayMs: 10 })
    const kubeconfig = join(dir, 'down.kubeconfig')
    await sim.writeKubeconfig(kubeconfig)
    await kubectl(kubeconfig, 'create', 'namespace', 'before')
    const rv = sim.resourceVersion
    const w = watchLines(sim, `/api/v1/namespaces?watch=1&resourceVersion=${rv}`, () => false)
    await until('the watch to open', () => sim.stats.watchesOpen === 1)

    const restarted = sim.faults.restart({ downMs: 1500 })
    const cut = await w
    expect(cut.ended).toBe(true) // the open watch was cut
    await until('connections refused', async () => (await probe(sim.url)) === 'refused')
    expect(sim.stats.faults.down).toBe(true)
    sim.create('namespaces', { metadata: { name: 'while-down' } }) // the cluster goes on meanwhile
    await restarted
    expect(await probe(sim.url)).toBe('open')

    const names = await kubectl(kubeconfig, 'get', 'namespaces', '-o', 'name') // same kubeconfig: same CA, certificate, URL
    expect(names).toContain('namespace/before')
    expect(names).toContain('namespace/while-down')
    expect((await raw(sim, '/api/v1/namespaces')).status).toBe(200) // same token
    // The restarted server's history starts after the restart: resuming from before it is too old.
    const resumed = await watchLines(sim, `/api/v1/namespaces?watch=1&resourceVersion=${rv}`, () => false)
    expect(resumed.lines).toEqual([{ type: 'ERROR', object: expect.objectContaining({ code: 410, reason: 'Expired' }) }])
    expect(sim.stats.faultLog.map((r) => r.fault)).toEqual(['restart', 'restart down', 'restart up'])
    expect(sim.stats.faults.down).toBe(false)
  })

  it('over HTTP: POST /sim/faults/restart is answered, then the port refuses connections, then serves again', async () => {
    const sim = await start({ nodes: 1, controllers: false })
    const res = await raw(sim, '/sim/faults/restart', { method: 'POST', body: { downMs: 800 } })
    expect(res.status).toBe(200)
    await until('connections refused', async () => (await probe(sim.url)) === 'refused')
    await until('serving again', async () => (await probe(sim.url)) === 'open', 10_000)
    expect((await raw(sim, '/api/v1/namespaces')).status).toBe(200)
  })

  it('with freshPki: the old kubeconfig is refused (unknown CA), a new one works', async () => {
    const sim = await start({ nodes: 1, controllers: false })
    const old = join(dir, 'old.kubeconfig')
    await sim.writeKubeconfig(old)
    const oldToken = sim.token
    await sim.faults.restart({ freshPki: true })
    await expect(kubectl(old, 'get', 'namespaces')).rejects.toThrow(/certificate|x509|tls/i)
    expect((await raw(sim, '/api/v1/namespaces', { token: oldToken })).status).toBe(401)
    const fresh = join(dir, 'fresh.kubeconfig')
    await sim.writeKubeconfig(fresh)
    expect(await kubectl(fresh, 'get', 'namespaces', '-o', 'name')).toContain('namespace/default')
  })
})

describe('state directory', () => {
  it('a simulator started on the same directory serves the same CA, token and objects; fresh options start anew', async () => {
    const stateDir = join(dir, 'state')
    const first = await startSimulator({ nodes: 2, controllers: false, stateDir })
    const kubeconfig = join(dir, 'state.kubeconfig')
    await first.writeKubeconfig(kubeconfig, { auth: 'token' })
    const ns = first.create('namespaces', { metadata: { name: 'kept' } })
    first.create('pods', { metadata: { name: 'p', namespace: 'kept' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
    const rv = first.resourceVersion
    const token = first.token
    const ca = first.kubeconfig().match(/certificate-authority-data: (\S+)/)![1]
    await first.close()

    const second = await start({ nodes: 2, controllers: false, stateDir, port: Number(new URL(first.url).port) })
    expect(second.token).toBe(token)
    expect(second.kubeconfig().match(/certificate-authority-data: (\S+)/)![1]).toBe(ca)
    expect(second.get('namespaces', undefined, 'kept').metadata.uid).toBe(ns.metadata.uid)
    expect(second.get('pods', 'kept', 'p').metadata.resourceVersion).toBe(String(rv))
    expect(second.resourceVersion).toBe(rv)
    expect(await kubectl(kubeconfig, 'get', 'pods', '-n', 'kept', '-o', 'name')).toBe('pod/p\n') // the first run's kubeconfig
    second.create('namespaces', { metadata: { name: 'later' } })
    expect(second.resourceVersion).toBe(rv + 1)
    await second.close()
    started.pop()

    const fresh = await start({ nodes: 2, controllers: false, stateDir, freshPki: true, freshState: true })
    expect(fresh.token).not.toBe(token)
    expect(fresh.kubeconfig().match(/certificate-authority-data: (\S+)/)![1]).not.toBe(ca)
    expect(fresh.get('namespaces', undefined, 'kept')).toBeUndefined()
    expect(fresh.list('nodes').map((n) => n.metadata.name)).toEqual(['node-1', 'node-2'])
  })
})
