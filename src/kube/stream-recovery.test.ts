// Recovery of the watch streams against a real HTTPS server (docs/kube-api.md "Recovery algorithm"):
// resume, relist on 410, idle timeout, backoff and Retry-After, unavailability, malformed lines, abort.
// What is driven by time (timeouts, backoff) runs on a fake clock; the HTTP is real.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PodMeta } from '../model/types.ts'
import { collect, count } from '../../e2e/harness/collect.ts'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import {
  listBody,
  podObject,
  sendJson,
  sendStatus,
  startFakeApiServer,
  startWatchBody,
  statusObject,
  type FakeApiServer,
  type FakeRequest,
  type Handler,
  type WatchWriter,
} from '../../e2e/harness/fake-apiserver.ts'
import { watchPods, type WatchOptions, type WatchStream } from './stream.ts'

let api: FakeApiServer
let ac: AbortController
let writers: WatchWriter[]
let clock: FakeClock
beforeEach(async () => {
  api = await startFakeApiServer()
  ac = new AbortController()
  writers = []
  clock = createFakeClock()
})
afterEach(async () => {
  ac.abort()
  await api.close()
})

const PODS = '/api/v1/pods'
const fast = (): WatchOptions => ({ signal: ac.signal, backoff: { initialMs: 10, maxMs: 50 }, watchTimeoutSecs: [300, 301] })
const watch = (fn: (w: WatchWriter, req: FakeRequest) => void = () => {}): Handler => (req, res) => {
  const w = startWatchBody(res)
  writers.push(w)
  fn(w, req)
}
/** A streaming list of one pod `a` ending at `rv` (closed there by the client), then the watch from `rv`, running `then(w)`. */
const synced = (rv: number, then: (w: WatchWriter) => void = () => {}): Handler[] => [
  watch((w) => {
    w.event('ADDED', podObject({ name: 'a', rv: rv - 1 }))
    w.bookmark(rv, true)
  }),
  watch(then),
]
const rvOf = (r: FakeRequest): string | null => r.query.get('resourceVersion')
/** On fake time with jitter 0.5: nothing waits unless the test advances the clock. */
const onFakeTime = (): WatchOptions => ({ signal: ac.signal, clock, random: () => 0.5 })

/** Asserts that `stream`, now failing, waits exactly `ms` of fake time in backoff before its next request. */
async function expectPause(stream: WatchStream<unknown>, ms: number): Promise<void> {
  await waitFor('the backoff', () => (stream.stats.phase === 'backoff' ? true : undefined), { timeoutMs: 10_000 })
  const requests = api.requests.length
  await clock.advance(ms - 1)
  expect(stream.stats.phase).toBe('backoff')
  expect(api.requests).toHaveLength(requests)
  await clock.advance(1)
  await api.waitForRequests(requests + 1)
}
const names = (events: { type: string }[]): string[] =>
  events.map((e) => ('object' in e ? `${e.type}:${(e.object as PodMeta).name}@${(e.object as PodMeta).resourceVersion}` : e.type))

describe('watch recovery', () => {
  it('resumes from the last revision after a clean end, without a relist', async () => {
    api.script(
      PODS,
      ...synced(10, (w) => {
        w.event('MODIFIED', podObject({ name: 'a', rv: 11 }))
        w.end()
      }),
      watch((w) => w.event('MODIFIED', podObject({ name: 'a', rv: 12 }))),
    )
    const stream = watchPods(api.client(), fast())
    const got = collect(stream)
    await got.until((e) => e.length >= 5)
    expect(names(got.events)).toEqual(['init', 'initApply:a@9', 'initDone', 'apply:a@11', 'apply:a@12'])
    const resumed = api.requests[2]
    expect(rvOf(resumed)).toBe('11')
    expect(resumed.query.has('sendInitialEvents')).toBe(false)
    expect(stream.stats).toMatchObject({ watchRestarts: 1, errors: {}, relists: { initial: 1, gone: 0 }, disconnects: { peer_closed: 1, peer_silent: 0, error: 0 } })
  })

  it('relists after an in-stream ERROR 410 Expired', async () => {
    api.script(
      PODS,
      ...synced(10, (w) => {
        w.event('ERROR', statusObject(410, 'Expired', 'too old resource version: 5 (10)'))
        w.end()
      }),
      watch((w) => {
        w.event('ADDED', podObject({ name: 'b', rv: 19 }))
        w.bookmark(20, true)
      }),
    )
    const stream = watchPods(api.client(), fast())
    const got = collect(stream)
    await got.until((e) => count(e, 'initDone') === 2)
    expect(names(got.events)).toEqual(['init', 'initApply:a@9', 'initDone', 'init', 'initApply:b@19', 'initDone'])
    expect(api.requests[2].query.get('sendInitialEvents')).toBe('true')
    expect(stream.stats.relists).toMatchObject({ initial: 1, gone: 1 })
    expect(stream.stats.errors).toEqual({ '410': 1 })
  })

  it('relists after HTTP 410 on a watch request (paginated mode)', async () => {
    api.script(
      PODS,
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'a', rv: 3 })], 10)),
      (_r, res) => sendStatus(res, 410, 'Gone', 'too old resource version'),
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'b', rv: 13 })], 20)),
    )
    const stream = watchPods(api.client({ streamingList: 'never' }), fast())
    const got = collect(stream)
    await got.until((e) => count(e, 'initDone') === 2)
    const [, w1, , w2] = await api.waitForRequests(4)
    expect([rvOf(w1), rvOf(w2)]).toEqual(['10', '20'])
    expect(stream.stats.relists.gone).toBe(1)
    // The first list's items are allocated to be kept (ListedPodRecord), the relist's as watch events' objects (src/model/records.ts).
    const literal = got.events.flatMap((e) => (e.type === 'initApply' ? [e.object.constructor.name === 'ListedPodRecord'] : []))
    expect(literal).toEqual([true, false])
  })

  it('tears a silent watch down at the silence limit and re-watches from the same revision', async () => {
    api.script(PODS, ...synced(10))
    // A minute: only fake time can run it out while the test runs.
    const stream = watchPods(api.client(), { ...onFakeTime(), silenceLimitMs: 60_000 })
    collect(stream)
    await waitFor('the watch to open', () => (stream.stats.watchesOpened === 2 ? true : undefined), { timeoutMs: 5_000 })
    // The server was asked to end it after ½ to ⅔ of the limit (random 0.5 → 35 s): it does not.
    expect(api.requests[1].query.get('timeoutSeconds')).toBe('35')
    await clock.advance(59_999)
    expect(stream.stats.errors).toEqual({})
    await clock.advance(1)
    await waitFor('the teardown', () => stream.stats.errors.peer_silent, { timeoutMs: 5_000 })
    await writers[1].closed // the silent socket was closed by the client
    await expectPause(stream, 400)
    expect(rvOf(api.requests[2])).toBe('10')
    expect(stream.stats.errors).toEqual({ peer_silent: 1 })
    expect(stream.stats.disconnects).toEqual({ peer_closed: 0, peer_silent: 1, error: 0 })
    expect(stream.stats.lastError).toMatchObject({
      label: 'peer_silent',
      message: 'pods watch from resourceVersion 10 (timeoutSeconds 35) torn down (peer_silent): the API server sent nothing for 60.0 s',
      atMs: clock.now() - 400,
    })
  })

  it('re-watches from the same revision after a connection reset', async () => {
    api.script(PODS, ...synced(10, (w) => setTimeout(() => w.destroy(), 20)))
    const stream = watchPods(api.client(), fast())
    collect(stream)
    const [, , again] = await api.waitForRequests(3)
    expect(rvOf(again)).toBe('10')
    expect(stream.stats.errors).toEqual({ reset: 1 })
    expect(stream.stats.disconnects).toEqual({ peer_closed: 0, peer_silent: 0, error: 1 })
  })

  it('backs off 0.8 s doubling with full jitter, honours Retry-After, and keeps the revision', async () => {
    api.script(
      PODS,
      ...synced(10, (w) => {
        w.bookmark(10)
        w.end()
      }),
      (_r, res) => sendStatus(res, 429, 'TooManyRequests', 'storage is (re)initializing', { 'Retry-After': '3' }),
      (_r, res) => sendStatus(res, 500, 'InternalError'),
      (_r, res) => sendStatus(res, 503, 'ServiceUnavailable'),
    )
    const stream = watchPods(api.client(), onFakeTime())
    collect(stream)
    await api.waitForRequests(3) // a clean end resumes at once
    await expectPause(stream, 3000)
    await expectPause(stream, 800)
    await expectPause(stream, 1600)
    const requests = api.requests
    expect(requests.slice(1).map(rvOf)).toEqual(['10', '10', '10', '10', '10'])
    expect(stream.stats.errors).toEqual({ '429': 1, '500': 1, '503': 1 })
    // Each watch asked for a server timeout of ½ to ⅔ of the 30 s silence limit, [15, 20) s (random 0.5 → 17).
    expect(requests.slice(1).map((r) => r.query.get('timeoutSeconds'))).toEqual(['17', '17', '17', '17', '17'])
  })

  it('relists after a 410 from the first backoff step, however far an outage grew it; 410s in a row grow it', async () => {
    api.script(
      PODS,
      ...synced(10, (w) => {
        w.bookmark(10)
        w.end()
      }),
      (_r, res) => sendStatus(res, 500, 'InternalError'),
      (_r, res) => sendStatus(res, 503, 'ServiceUnavailable'),
      (_r, res) => sendStatus(res, 500, 'InternalError'),
      // The server is back and answers: the revision is too old.
      (_r, res) => sendStatus(res, 410, 'Gone', 'too old resource version'),
      (_r, res) => sendStatus(res, 410, 'Gone', 'too old resource version'),
      (_r, res) => sendStatus(res, 410, 'Gone', 'too old resource version'),
    )
    const stream = watchPods(api.client(), onFakeTime())
    collect(stream)
    await api.waitForRequests(3) // a clean end resumes at once
    await expectPause(stream, 400)
    await expectPause(stream, 800)
    await expectPause(stream, 1600) // → the 410: the outage's next step would be 3,200
    await expectPause(stream, 400)
    await expectPause(stream, 800)
    await expectPause(stream, 1600)
    expect(stream.stats.errors).toEqual({ '500': 2, '503': 1, '410': 3 })
    expect(stream.stats.relists.gone).toBe(3)
  })

  it('counts a watch that ends at once without events as an error (backoff)', async () => {
    api.script(
      PODS,
      (_r, res) => sendJson(res, 200, listBody('PodList', [], 10)),
      watch((w) => w.end()),
    )
    const stream = watchPods(api.client({ streamingList: 'never' }), onFakeTime())
    collect(stream)
    await api.waitForRequests(2)
    await expectPause(stream, 400)
    expect(rvOf(api.requests[2])).toBe('10')
    expect(stream.stats.errors).toEqual({ short_watch: 1 })
  })

  it('counts every list request in its relist cause, the failed ones too', async () => {
    const failures = Array.from({ length: 10 }, (): Handler => (_r, res) => sendStatus(res, 500, 'InternalError'))
    api.script(PODS, ...failures, ...synced(10))
    const stream = watchPods(api.client(), fast())
    const got = collect(stream)
    await got.until((e) => count(e, 'initDone') === 1)
    // Ten failed first lists and the one that succeeded: all are lists started for the first snapshot.
    expect(stream.stats.relists).toEqual({ initial: 11, gone: 0, unavailable: 0, fallback: 0, error: 0 })
    expect(stream.stats.errors).toEqual({ '500': 10 })
  })

  it('403 → unavailable once, retried with backoff; available again at the next initDone; 404 likewise', async () => {
    api.script(
      PODS,
      (_r, res) => sendStatus(res, 403, 'Forbidden', 'pods is forbidden: User "collector" cannot watch resource "pods"'),
      (_r, res) => sendStatus(res, 403, 'Forbidden'),
      ...synced(10, (w) => w.end()),
      (_r, res) => sendStatus(res, 404, 'NotFound'),
      ...synced(20),
    )
    const stream = watchPods(api.client(), fast())
    const got = collect(stream)
    await got.until((e) => count(e, 'unavailable') === 1)
    expect(stream.stats.availability).toBe('unavailable')
    await got.until((e) => count(e, 'initDone') === 2)
    expect(names(got.events)).toEqual(['unavailable', 'init', 'initApply:a@9', 'initDone', 'unavailable', 'init', 'initApply:a@19', 'initDone'])
    expect(got.events[0]).toEqual({ type: 'unavailable', reason: 'HTTP 403 Forbidden: pods is forbidden: User "collector" cannot watch resource "pods"' })
    expect(stream.stats).toMatchObject({ availability: 'available', errors: { '403': 2, '404': 1 }, relists: { initial: 1, unavailable: 3 } })
  })

  it('ends the watch on a malformed line, counts it, and resumes from the last revision', async () => {
    api.script(
      PODS,
      ...synced(10, (w) => {
        w.event('MODIFIED', podObject({ name: 'a', rv: 11 }))
        w.raw('{"type":"MODIFIED","object":{"metadata":\n')
        w.event('MODIFIED', podObject({ name: 'a', rv: 99 })) // never read: the watch ended
      }),
      watch((w) => w.event('MODIFIED', podObject({ name: 'a', rv: 12 }))),
    )
    const stream = watchPods(api.client(), fast())
    const got = collect(stream)
    await got.until((e) => count(e, 'apply') === 2)
    expect(names(got.events).slice(3)).toEqual(['apply:a@11', 'apply:a@12'])
    expect(rvOf(api.requests[2])).toBe('11')
    expect(stream.stats).toMatchObject({ malformedLines: 1, errors: { malformed: 1 } })
    await writers[1].closed
  })
})

describe('cancellation', () => {
  it('aborting ends the iterable and closes the watch socket', async () => {
    api.script(PODS, ...synced(10))
    const stream = watchPods(api.client(), fast())
    const got = collect(stream)
    await api.waitForRequests(2)
    ac.abort()
    expect(await got.done).toBeUndefined()
    await writers[1].closed
    expect(stream.stats.phase).toBe('stopped')
  })

  it('aborting during a long backoff ends the iterable without waiting it out', async () => {
    api.script(PODS, (_r, res) => sendStatus(res, 500, 'InternalError'))
    const stream = watchPods(api.client(), { ...onFakeTime(), backoff: { initialMs: 600_000, maxMs: 600_000 } })
    const got = collect(stream)
    await api.waitForRequests(1)
    await got.until(() => stream.stats.phase === 'backoff')
    ac.abort()
    // On fake time the backoff never runs out by itself: only the abort can end it.
    const ended = await Promise.race([got.done.then(() => 'ended'), clock.settle().then(() => 'still sleeping')])
    expect(ended).toBe('ended')
    expect(clock.pending).toBe(0)
  })

  it('breaking out of the loop closes the connection', async () => {
    api.script(PODS, ...synced(10, (w) => w.event('MODIFIED', podObject({ name: 'a', rv: 11 }))))
    const stream = watchPods(api.client(), fast())
    for await (const ev of stream) {
      if (ev.type === 'apply') break
    }
    await writers[1].closed
    expect(stream.stats.phase).toBe('stopped')
  })
})
