// Initial sync of the watch streams against a real HTTPS server: streaming lists, the fallback
// to paginated LIST, pagination, metadata-only owner streams, event order and content.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OwnerMeta, PodMeta } from '../model/types.ts'
import { collect, count } from '../../e2e/harness/collect.ts'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import {
  listBody,
  podObject,
  replicaSetObject,
  sendJson,
  sendStatus,
  startFakeApiServer,
  startWatchBody,
  wantsMetadata,
  type FakeApiServer,
  type FakeRequest,
  type Handler,
  type WatchWriter,
} from '../../e2e/harness/fake-apiserver.ts'
import { watchJobs, watchPods, watchReplicaSets, type WatchOptions } from './stream.ts'

let api: FakeApiServer
let ac: AbortController
beforeEach(async () => {
  api = await startFakeApiServer()
  ac = new AbortController()
})
afterEach(async () => {
  ac.abort()
  await api.close()
})

const fast = (): WatchOptions => ({ signal: ac.signal, backoff: { initialMs: 10, maxMs: 50 }, watchTimeoutSecs: [300, 301] })
const watch = (fn: (w: WatchWriter, req: FakeRequest) => void, kind = 'Pod'): Handler => (req, res) => fn(startWatchBody(res, kind), req)
const isWatch = (r: FakeRequest): boolean => r.query.get('watch') === '1'
const POD_A = { name: 'web-a', rv: 5, ip: '10.244.1.7', owner: { kind: 'ReplicaSet', name: 'web-6f9', uid: 'uid-rs' }, images: ['nginx:1.25', 'busybox'] }

describe('streaming list (sendInitialEvents)', () => {
  it('syncs with a streaming list, closes it at the end bookmark and watches from there; events in order, converted', async () => {
    let listClosed: Promise<void> | undefined
    api.script(
      '/api/v1/pods',
      watch((w) => {
        w.event('ADDED', podObject(POD_A))
        w.event('ADDED', podObject({ name: 'db-0', rv: 6, ip: 'fd00::5' }))
        w.bookmark(10, true)
        listClosed = w.closed
      }),
      watch((w) => {
        w.event('MODIFIED', podObject({ ...POD_A, rv: 11, images: ['nginx:1.26'] }))
        w.event('DELETED', podObject({ name: 'db-0', rv: 12 }))
      }),
    )
    const stream = watchPods(api.client(), fast())
    const got = collect(stream)
    await got.until((e) => e.length >= 6)
    expect(got.events.map((e) => e.type)).toEqual(['init', 'initApply', 'initApply', 'initDone', 'apply', 'delete'])
    const first = (got.events[1] as { object: PodMeta }).object
    expect(first).toEqual({
      uid: 'uid-web-a',
      name: 'web-a',
      namespace: 'default',
      resourceVersion: '5',
      ip: 0x0af4_0107,
      hasIp: true,
      hostNetwork: false,
      version: "'busybox','nginx:1.25'",
      containers: [
        { id: 'containerd://web-a-0', name: 'c0', image: 'nginx:1.25' },
        { id: 'containerd://web-a-1', name: 'c1', image: 'busybox' },
      ],
      owner: { kind: 'ReplicaSet', name: 'web-6f9', uid: 'uid-rs' },
    })
    expect((got.events[2] as { object: PodMeta }).object).toMatchObject({ name: 'db-0', ip: 0, hasIp: true })
    expect((got.events[4] as { object: PodMeta }).object).toMatchObject({ resourceVersion: '11', version: "'nginx:1.26'" })
    const req = api.requests[0]
    expect(Object.fromEntries(req.query)).toMatchObject({ watch: '1', sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' })
    expect(req.query.has('resourceVersion')).toBe(false)
    // Long enough for a big snapshot; the watch that follows asks for the short one.
    expect(Number(req.query.get('timeoutSeconds'))).toBe(600)
    expect(req.headers.accept).toBe('application/json')
    await listClosed
    expect(api.requests).toHaveLength(2)
    expect(Object.fromEntries(api.requests[1].query)).toMatchObject({ watch: '1', resourceVersion: '10', timeoutSeconds: '300' })
    expect(stream.stats).toMatchObject({ listMode: 'streaming', availability: 'available', resourceVersion: '12', phase: 'watching', errors: {} })
    ac.abort()
    expect(await got.done).toBeUndefined()
    expect(stream.stats.phase).toBe('stopped')
  })

  it('falls back to paginated LIST on 422 and remembers it for the server', async () => {
    api.script('/api/v1/pods', (_r, res) => sendStatus(res, 422, 'Invalid', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'))
    api.script('/api/v1/pods', (_r, res) => sendJson(res, 200, listBody('PodList', [podObject(POD_A)], 40)))
    api.script('/apis/apps/v1/replicasets', (req, res) => sendJson(res, 200, listBody('PartialObjectMetadataList', [replicaSetObject({ name: 'web-6f9', rv: 3 }, wantsMetadata(req))], 41)))
    const client = api.client()
    const pods = watchPods(client, fast())
    const got = collect(pods)
    await got.until((e) => count(e, 'initDone') === 1)
    expect(got.events.map((e) => e.type)).toEqual(['init', 'initApply', 'initDone'])
    expect(client.watchList).toBe('unsupported')
    await api.waitForRequests(1, (r) => r.path === '/api/v1/pods' && r.query.get('resourceVersion') === '40')
    const rs = collect(watchReplicaSets(client, fast()))
    await rs.until((e) => count(e, 'initDone') === 1)
    const rsRequests = api.requests.filter((r) => r.path === '/apis/apps/v1/replicasets')
    expect(isWatch(rsRequests[0])).toBe(false) // the second stream went straight to LIST
    // The streaming list answered 422 counts as the initial list, the LIST after it as the fallback.
    expect(pods.stats.relists).toMatchObject({ fallback: 1, initial: 1 })
    expect(pods.stats.errors).toEqual({})
  })

  it('falls back when the server ignores sendInitialEvents (plain bookmark before any end marker)', async () => {
    api.script(
      '/api/v1/pods',
      watch((w) => {
        w.event('ADDED', podObject({ name: 'a', rv: 3 }))
        w.bookmark(9)
      }),
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'a', rv: 3 }), podObject({ name: 'b', rv: 4 })], 9)),
    )
    const client = api.client()
    const got = collect(watchPods(client, fast()))
    await got.until((e) => count(e, 'initDone') === 1)
    expect(got.events.map((e) => e.type)).toEqual(['init', 'initApply', 'init', 'initApply', 'initApply', 'initDone'])
    expect(client.watchList).toBe('unsupported')
    await api.waitForRequests(1, (r) => r.query.get('resourceVersion') === '9')
  })

  it('falls back when no initial event and no end bookmark arrive in time (fake time)', async () => {
    api.script(
      '/api/v1/pods',
      watch(() => {}),
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'a', rv: 3 })], 9)),
    )
    const clock = createFakeClock()
    const stream = watchPods(api.client(), { ...fast(), clock, initialEventsTimeoutMs: 20_000 })
    const got = collect(stream)
    await got.until((e) => count(e, 'init') === 1) // the streaming list is open
    await clock.advance(19_999)
    expect(api.requests).toHaveLength(1)
    expect(stream.stats.phase).toBe('initialEvents')
    await clock.advance(1)
    await got.until((e) => count(e, 'initDone') === 1, 5_000)
    expect(got.events.map((e) => e.type)).toEqual(['init', 'init', 'initApply', 'initDone'])
    expect(stream.stats.relists.fallback).toBe(1)
  })
})

describe('paginated LIST', () => {
  it('pages with limit=500 and continue, then watches from the list revision', async () => {
    api.script(
      '/api/v1/pods',
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'a', rv: 3 })], 50, 'tok/1+')),
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'b', rv: 4 }), podObject({ name: 'nouid', uid: '', rv: 5 })], 50)),
    )
    const stream = watchPods(api.client({ streamingList: 'never' }), fast())
    const got = collect(stream)
    const [, , w] = await api.waitForRequests(3, (r) => r.path === '/api/v1/pods')
    expect(got.events.map((e) => e.type)).toEqual(['init', 'initApply', 'initApply', 'initDone'])
    const [p1, p2] = api.requests
    expect(Object.fromEntries(p1.query)).toEqual({ limit: '500' })
    expect(Object.fromEntries(p2.query)).toEqual({ limit: '500', continue: 'tok/1+' })
    expect(Object.fromEntries(w.query)).toMatchObject({ watch: '1', resourceVersion: '50', allowWatchBookmarks: 'true' })
    expect(w.query.has('sendInitialEvents')).toBe(false)
    expect(stream.stats).toMatchObject({ listMode: 'paginated', droppedNoUid: 1, resourceVersion: '50', listPages: 2 })
  })

  it('asks for pageSize objects a page', async () => {
    api.script('/api/v1/pods', (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'a', rv: 3 })], 50)))
    const stream = watchPods(api.client({ streamingList: 'never' }), { ...fast(), pageSize: 2 })
    collect(stream)
    const [p1] = await api.waitForRequests(2, (r) => r.path === '/api/v1/pods')
    expect(Object.fromEntries(p1.query)).toEqual({ limit: '2' })
    expect(stream.stats.listPages).toBe(1)
  })

  it('restarts the list when a continue page answers 410 Expired', async () => {
    const page1 = (cont: string): Handler => (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'a', rv: 3 })], 50, cont))
    api.script(
      '/api/v1/pods',
      page1('old'),
      (_r, res) => sendStatus(res, 410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.'),
      page1('new'),
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'b', rv: 4 })], 60)),
    )
    const stream = watchPods(api.client({ streamingList: 'never' }), fast())
    const got = collect(stream)
    await got.until((e) => count(e, 'initDone') === 1)
    expect(got.events.map((e) => e.type)).toEqual(['init', 'initApply', 'init', 'initApply', 'initApply', 'initDone'])
    expect(api.requests.map((r) => r.query.get('continue'))).toEqual([null, 'old', null, 'new'])
    expect(stream.stats.relists).toMatchObject({ initial: 1, gone: 1 })
    // Still the stream's first list: its items are allocated to be kept (src/model/records.ts).
    expect(got.events.flatMap((e) => (e.type === 'initApply' ? [e.object.constructor.name === 'ListedPodRecord'] : []))).toEqual([true, true, true])
    expect(stream.stats.errors).toEqual({ '410': 1 })
    // Three pages answered; the 410 is not one.
    expect(stream.stats.listPages).toBe(3)
  })
})

describe('owner streams', () => {
  it('ask for PartialObjectMetadata (list: plural, watch: singular) and convert it', async () => {
    api.script('/apis/apps/v1/replicasets', (req, res) =>
      sendJson(res, 200, listBody('PartialObjectMetadataList', [replicaSetObject({ name: 'web-6f9', rv: 3, deployment: 'web' }, wantsMetadata(req))], 70)),
    )
    api.script(
      '/apis/apps/v1/replicasets',
      watch((w, req) => w.event('ADDED', replicaSetObject({ name: 'web-7aa', rv: 71 }, wantsMetadata(req))), 'PartialObjectMetadata'),
    )
    const got = collect(watchReplicaSets(api.client({ streamingList: 'never' }), fast()))
    await got.until((e) => count(e, 'apply') === 1)
    const [list, w] = api.requests
    expect(list.headers.accept).toBe('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json')
    expect(w.headers.accept).toBe('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json')
    expect((got.events[1] as { object: OwnerMeta }).object).toEqual({
      kind: 'ReplicaSet',
      uid: 'uid-web-6f9',
      name: 'web-6f9',
      namespace: 'default',
      resourceVersion: '3',
      controller: { kind: 'Deployment', name: 'web', uid: 'uid-web' },
    })
    expect((got.events[3] as { object: OwnerMeta }).object).toMatchObject({ kind: 'ReplicaSet', name: 'web-7aa', resourceVersion: '71' })
  })

  it('accept full objects from a server that ignores the metadata Accept (jobs, streaming list)', async () => {
    const job = (name: string, rv: number) => ({
      kind: 'Job',
      apiVersion: 'batch/v1',
      metadata: { name, namespace: 'batch', uid: `uid-${name}`, resourceVersion: String(rv), ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nightly', uid: 'uid-cj', controller: true }] },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      status: { active: 1 },
    })
    api.script(
      '/apis/batch/v1/jobs',
      watch((w) => {
        w.event('ADDED', job('nightly-1', 5))
        w.bookmark(6, true)
      }, 'Job'),
      watch((w) => w.event('DELETED', job('nightly-1', 7)), 'Job'),
    )
    const got = collect(watchJobs(api.client(), fast()))
    await got.until((e) => count(e, 'delete') === 1)
    expect(api.requests[0].headers.accept).toBe('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json')
    expect(got.events.map((e) => e.type)).toEqual(['init', 'initApply', 'initDone', 'delete'])
    expect((got.events[1] as { object: OwnerMeta }).object).toEqual({
      kind: 'Job',
      uid: 'uid-nightly-1',
      name: 'nightly-1',
      namespace: 'batch',
      resourceVersion: '5',
      controller: { kind: 'CronJob', name: 'nightly', uid: 'uid-cj' },
    })
  })
})
