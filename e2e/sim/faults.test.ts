// The fault hooks a chaos soak drives (issue 18), over real HTTP: request failures by count, verb and
// time window, stalled watches that stay open, an oversized object, slow responses, and the fault
// log and active faults in GET /sim/stats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSimulator, type Simulator } from './index.ts'
import { raw, rawJson, until, watchLines } from './test-client.ts'

let sim: Simulator

beforeAll(async () => {
  sim = await startSimulator({ nodes: 1, podStartDelayMs: 10 })
})
afterAll(async () => {
  await sim?.close()
})

const pod = (name: string, namespace = 'kube-public') => ({ metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'i' }] } })
const post = (path: string, body: object = {}) => rawJson(sim, path, { method: 'POST', body })

describe('request failures', () => {
  it('503 and 504 bursts by count, with Retry-After when asked; then requests succeed', async () => {
    sim.faults.failRequests({ resource: 'pods', status: 503, retryAfterSeconds: 2, count: 2 })
    const a = await raw(sim, '/api/v1/pods')
    const b = await raw(sim, '/api/v1/pods')
    expect([a.status, b.status]).toEqual([503, 503])
    expect(a.headers['retry-after']).toBe('2')
    expect(JSON.parse(a.body)).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 })
    expect((await raw(sim, '/api/v1/pods')).status).toBe(200)
    sim.faults.failRequests({ status: 504, count: 1 })
    const t = await raw(sim, '/apis/apps/v1/deployments')
    expect(t.status).toBe(504)
    expect(JSON.parse(t.body)).toMatchObject({ reason: 'Timeout', code: 504 })
    expect(t.headers['retry-after']).toBeUndefined()
    expect(sim.stats.faultLog.filter((r) => r.fault === 'failRequests healed').map((r) => (r.options as any).by)).toEqual(['count', 'count'])
  })

  it('fails only the given verbs: writes of pods refused, reads served', async () => {
    sim.faults.failRequests({ resource: 'pods', verbs: ['create', 'patch'], status: 500 })
    try {
      const created = await rawJson(sim, '/api/v1/namespaces/kube-public/pods', { method: 'POST', body: pod('refused') })
      expect(created.status).toBe(500)
      expect(created.body).toMatchObject({ reason: 'InternalError', code: 500 })
      expect((await raw(sim, '/api/v1/namespaces/kube-public/pods')).status).toBe(200)
      expect(sim.stats.faults.failures).toEqual([expect.objectContaining({ resource: 'pods', verbs: ['create', 'patch'], status: 500, failed: 1 })])
    } finally {
      sim.faults.clearFailures()
    }
    expect((await rawJson(sim, '/api/v1/namespaces/kube-public/pods', { method: 'POST', body: pod('accepted') })).status).toBe(201)
  })

  it('403 on one resource for a while heals by itself (POST /sim/faults/failRequests with durationMs)', async () => {
    const res = await post('/sim/faults/failRequests', { resource: 'replicasets', status: 403, durationMs: 400 })
    expect(res).toMatchObject({ status: 200, body: { ok: true, fault: 'failRequests' } })
    const denied = await rawJson(sim, '/apis/apps/v1/namespaces/default/replicasets')
    expect(denied.status).toBe(403)
    expect(denied.body.message).toContain('cannot list resource "replicasets" in API group "apps" in the namespace "default"')
    expect((await raw(sim, '/api/v1/pods')).status).toBe(200) // other resources unaffected
    const stats = (await rawJson(sim, '/sim/stats')).body
    expect(stats.faults.failures).toEqual([expect.objectContaining({ resource: 'replicasets', status: 403, until: expect.any(String) })])
    await until('the 403 to heal', async () => (await raw(sim, '/apis/apps/v1/replicasets')).status === 200)
    expect(sim.stats.faults.failures).toEqual([])
    expect(sim.stats.faultLog.at(-1)).toMatchObject({ fault: 'failRequests healed', options: { resource: 'replicasets', by: 'duration' } })
  })

  it('rejects fault options it cannot honour with 400', async () => {
    expect((await post('/sim/faults/failRequests', { status: 418 })).status).toBe(400)
    expect((await post('/sim/faults/failRequests', { status: 429, verbs: ['frobnicate'] })).status).toBe(400)
    expect((await post('/sim/faults/malformedLine', {})).status).toBe(400)
    expect((await post('/sim/faults/nonsense', {})).status).toBe(404)
  })
})

describe('watch faults', () => {
  it('stalled watches stay open and send nothing; unstalled, what accumulated flows', async () => {
    await until('no watch open', () => sim.stats.watchesOpen === 0)
    const rv = sim.resourceVersion
    const opened = 0
    const w = watchLines(sim, `/api/v1/namespaces/kube-node-lease/pods?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`, (l) => l.some((x) => x.type === 'ADDED'))
    await until('the watch to open', () => sim.stats.watchesOpen > opened)
    sim.faults.stallWatches(true)
    sim.create('pods', pod('during-stall', 'kube-node-lease'))
    await new Promise((r) => setTimeout(r, 300))
    expect(sim.stats.watchesOpen).toBe(opened + 1) // still open
    expect(sim.stats.faults.stalled).toBe(true)
    sim.faults.stallWatches(false)
    const got = await w
    expect(got.ended).toBe(false)
    expect(got.lines.map((l) => l.type)).toEqual(['ADDED'])
    expect(got.lines[0].object.metadata.name).toBe('during-stall')
    expect(sim.stats.faultLog.slice(-2).map((r) => r.fault)).toEqual(['stallWatches', 'stallWatches healed'])
  })

  it('an oversized pod (~1.5 MB of annotations) is served by list, get, metadata-only list and watch; heal deletes it', async () => {
    await until('no watch open', () => sim.stats.watchesOpen === 0)
    const rv = sim.resourceVersion
    const opened = 0
    const w = watchLines(sim, `/api/v1/namespaces/default/pods?watch=1&resourceVersion=${rv}`, (l) => l.some((x) => x.object?.metadata?.name?.startsWith('oversized-')))
    await until('the watch to open', () => sim.stats.watchesOpen > opened)
    const { name, bytes } = (await post('/sim/faults/oversizedObject', {})).body
    expect(bytes).toBe(1_500_000)
    const size = (o: any) => Object.values(o.metadata.annotations as Record<string, string>).reduce((n, v) => n + v.length, 0)
    const line = (await w).lines.find((l) => l.object?.metadata?.name === name)
    expect(line.type).toBe('ADDED')
    expect(size(line.object)).toBe(1_500_000)
    const got = await raw(sim, `/api/v1/namespaces/default/pods/${name}`)
    expect(got.body.length).toBeGreaterThan(1_500_000)
    expect(size(JSON.parse(got.body))).toBe(1_500_000)
    const list = (await rawJson(sim, '/api/v1/namespaces/default/pods?limit=500')).body
    expect(size(list.items.find((p: any) => p.metadata.name === name))).toBe(1_500_000)
    const meta = (await rawJson(sim, '/api/v1/pods', { headers: { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' } })).body
    expect(size(meta.items.find((p: any) => p.metadata.name === name))).toBe(1_500_000)
    expect(sim.stats.faults.oversized).toEqual([`default/${name}`])
    await post('/sim/faults/heal')
    expect(sim.get('pods', 'default', name)).toBeUndefined()
    expect(sim.stats.faults.oversized).toEqual([])
  })
})

describe('slow responses and heal', () => {
  it('slowResponses delays requests until healed; the log and active faults report both', async () => {
    sim.faults.slowResponses(200)
    sim.faults.failRequests({ resource: 'jobs', status: 429 })
    sim.faults.malformedLine('nodes')
    const t = Date.now()
    expect((await raw(sim, '/version')).status).toBe(200)
    expect(Date.now() - t).toBeGreaterThanOrEqual(150) // the delay was applied (a lower bound, not a speed claim)
    expect(sim.stats.faults).toMatchObject({ delayMs: 200, malformedLine: ['nodes'], failures: [expect.objectContaining({ resource: 'jobs' })] })
    sim.faults.heal()
    expect(sim.stats.faults).toEqual({ stalled: false, delayMs: 0, failures: [], malformedLine: [], down: false, oversized: [] })
    expect((await raw(sim, '/apis/batch/v1/jobs')).status).toBe(200)
    expect(sim.stats.faultLog.map((r) => r.fault)).toEqual(expect.arrayContaining(['slowResponses', 'failRequests', 'malformedLine', 'heal']))
  })
})
