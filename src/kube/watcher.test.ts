// State machine steps with a fake clock and scripted requests, alone and unfolded by runWatcher
// under the stream's stats and log wrappers (the HTTP path is covered by stream-*.test.ts against
// a real HTTPS server).
import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import type { OwnerMeta } from '../model/types.ts'
import { createRateLimitedLog } from '../observe/rate-limit.ts'
import type { WatchListSupport } from './client.ts'
import { KubeApiError, KubeDecodeError, KubeIdleTimeoutError, KubeInitialEventsTimeoutError, KubeShortWatchError, KubeTransportError } from './errors.ts'
import type { ListPage } from './list.ts'
import { countSteps, createWatchStats } from './stats.ts'
import type { WatchConnection, WatchItem } from './watch.ts'
import { logSteps } from './watch-log.ts'
import { runWatcher, step, type State, type StepContext, type StepResult } from './watcher.ts'

type M = OwnerMeta
const meta = (name: string, rv: string): M => ({ kind: 'ReplicaSet', uid: `uid-${name}`, name, namespace: 'ns', resourceVersion: rv })

/** A connection replaying items; an Error item is thrown, running out is the clean end. */
function conn(items: Array<WatchItem<M> | Error>): WatchConnection<M> & { closed: boolean } {
  let lines = 0
  const c = {
    closed: false,
    async next() {
      const item = items.shift()
      if (item === undefined) return null
      if (item instanceof Error) throw item
      lines++
      return item
    },
    close() {
      c.closed = true
    },
    get lines() {
      return lines
    },
  }
  return c
}

function harness(opts: { support?: WatchListSupport; pages?: Array<ListPage<M> | Error>; watches?: Array<WatchConnection<M> | Error> } = {}) {
  const clock = createFakeClock(10_000)
  const calls: string[] = []
  const pages = opts.pages ?? []
  const watches = opts.watches ?? []
  let support: WatchListSupport = opts.support ?? 'unknown'
  const ctx: StepContext<M> = {
    api: {
      get watchList() {
        return support
      },
      rememberWatchList(learnt) {
        support = learnt
      },
      async listPage(token) {
        calls.push(`list ${token ?? '-'}`)
        const p = pages.shift()
        if (!p) throw new Error('unexpected list')
        if (p instanceof Error) throw p
        return p
      },
      async watch(req) {
        calls.push(req.streamingList ? 'streamingList' : `watch ${req.resourceVersion}`)
        const w = watches.shift()
        if (!w) throw new Error('unexpected watch')
        if (w instanceof Error) throw w
        return w
      },
    },
    now: () => clock.now(),
    shortWatchMs: 1000,
    resource: 'replicasets',
  }
  return { ctx, calls, clock, support: () => support }
}

/**
 * The watcher from `initial` with the stream's stats and log wrappers around it, stepped one
 * result at a time: what the stream does with each step, minus the backoff waits.
 */
function walk(ctx: StepContext<M>, initial: State<M>) {
  const stats = createWatchStats('replicasets')
  const logs: string[] = []
  const line = (...args: unknown[]) => void logs.push(args.map(String).join(' '))
  const log = createRateLimitedLog({ error: line, warn: line, info: line, debug: line }, { clock: { now: ctx.now } })
  const results = logSteps(countSteps(runWatcher(ctx, initial), stats, initial, { now: ctx.now }), log)
  return {
    stats,
    logs,
    async next(): Promise<StepResult<M>> {
      const r = await results.next()
      if (r.done) throw new Error('the watcher ended')
      return r.value
    },
  }
}

const page = (items: M[], rv: string, continueToken = '', dropped = 0): ListPage<M> => ({ items, resourceVersion: rv, continueToken, dropped })
const added = (m: M): WatchItem<M> => ({ type: 'ADDED', object: m, resourceVersion: m.resourceVersion })
const bookmark = (rv: string, initialEventsEnd = false): WatchItem<M> => ({ type: 'BOOKMARK', resourceVersion: rv, initialEventsEnd })
const empty: State<M> = { type: 'empty', cause: 'initial' }

describe('watcher step: streaming list', () => {
  it('opens a streaming list, yields init, initApply per ADDED, initDone at the end bookmark, closes it and watches on', async () => {
    const c = conn([added(meta('a', '5')), added(meta('b', '6')), bookmark('9', true), { type: 'MODIFIED', object: meta('a', '10'), resourceVersion: '10' }])
    const w2 = conn([{ type: 'MODIFIED', object: meta('a', '11'), resourceVersion: '11' }])
    const h = harness({ watches: [c, w2] })
    const w = walk(h.ctx, empty)
    let r = await w.next()
    expect(r.events).toEqual([{ type: 'init' }])
    expect(r.next.type).toBe('initialEvents')
    r = await w.next()
    expect(r.events).toEqual([{ type: 'initApply', object: meta('a', '5') }])
    r = await w.next()
    r = await w.next()
    expect(r.events).toEqual([{ type: 'initDone' }])
    // Its long timeoutSeconds would outlast the silence limit on a quiet cluster: a watch follows.
    expect(r.next).toEqual({ type: 'listed', resourceVersion: '9' })
    expect(c.closed).toBe(true)
    expect(r.watchList).toEqual({ supported: true })
    expect(h.support()).toBe('supported')
    expect(w.stats.availability).toBe('available')
    r = await w.next()
    expect(r.next).toMatchObject({ type: 'watching', resourceVersion: '9' })
    r = await w.next()
    expect(r.events).toEqual([{ type: 'apply', object: meta('a', '11') }])
    expect(h.calls).toEqual(['streamingList', 'watch 9'])
    expect(w.stats.disconnects).toEqual({ peer_closed: 0, peer_silent: 0, error: 0 })
    expect(w.stats.relists.initial).toBe(1)
    expect(w.stats.listMode).toBe('streaming')
  })

  it('falls back to LIST without backoff on 422 and remembers it', async () => {
    const h = harness({ watches: [new KubeApiError({ status: 422, reason: 'Invalid' })], pages: [page([meta('a', '3')], '7')] })
    const w = walk(h.ctx, empty)
    let r = await w.next()
    expect(r).toEqual({ events: [], next: { type: 'empty', cause: 'fallback' }, watchList: { supported: false, why: 'HTTP 422 Invalid' } })
    expect(h.support()).toBe('unsupported')
    expect(w.logs).toEqual(['streaming lists not supported by this server (HTTP 422 Invalid); using paginated LIST'])
    r = await w.next()
    expect(r.events).toEqual([{ type: 'init' }, { type: 'initApply', object: meta('a', '3') }, { type: 'initDone' }])
    expect(r.next).toEqual({ type: 'listed', resourceVersion: '7' })
    expect(h.calls).toEqual(['streamingList', 'list -'])
    // The refused streaming list was a list request too.
    expect(w.stats.relists).toMatchObject({ initial: 1, fallback: 1 })
  })

  it.each([
    ['a bookmark without the annotation', bookmark('4'), { bookmark: true }],
    ['a MODIFIED event', { type: 'MODIFIED', object: meta('a', '4'), resourceVersion: '4' } as WatchItem<M>, {}],
    ['a DELETED event', { type: 'DELETED', object: meta('a', '4'), resourceVersion: '4' } as WatchItem<M>, {}],
  ])('falls back when the server sends %s before the end bookmark', async (_what, item, extra) => {
    const c = conn([added(meta('a', '3')), item])
    const h = harness({ watches: [c] })
    const w = walk(h.ctx, empty)
    await w.next()
    await w.next()
    const r = await w.next()
    expect(r).toEqual({ events: [], next: { type: 'empty', cause: 'fallback' }, watchList: { supported: false, why: expect.any(String) }, ...extra })
    expect(c.closed).toBe(true)
    expect(h.support()).toBe('unsupported')
  })

  it('falls back when the body ends or the initial events time out before the end bookmark', async () => {
    for (const items of [[], [new KubeInitialEventsTimeoutError('slow')]]) {
      const h = harness({ watches: [conn(items)] })
      const r = await step((await step(empty, h.ctx)).next, h.ctx)
      expect(r).toMatchObject({ events: [], next: { type: 'empty', cause: 'fallback' }, watchList: { supported: false } })
      expect(r.error).toBeUndefined()
    }
  })

  it('restarts the whole list after backoff when the connection fails midway', async () => {
    const h = harness({ watches: [conn([added(meta('a', '3')), new KubeTransportError('reset')])] })
    let r = await step(empty, h.ctx)
    r = await step(r.next, h.ctx)
    r = await step(r.next, h.ctx)
    expect(r.next).toEqual({ type: 'empty', cause: 'error' })
    expect(r.error).toBeInstanceOf(KubeTransportError)
    expect(r.watchList).toBeUndefined()
  })
})

describe('watcher step: paginated list', () => {
  it('pages with continue tokens and completes at the last page', async () => {
    const h = harness({ support: 'unsupported', pages: [page([meta('a', '1')], '9', 'tok1'), page([meta('b', '2')], '9', '', 2)] })
    const w = walk(h.ctx, empty)
    let r = await w.next()
    expect(r.events).toEqual([{ type: 'init' }, { type: 'initApply', object: meta('a', '1') }])
    expect(r.next).toEqual({ type: 'listPage', continueToken: 'tok1' })
    r = await w.next()
    expect(r.events).toEqual([{ type: 'initApply', object: meta('b', '2') }, { type: 'initDone' }])
    expect(r.next).toEqual({ type: 'listed', resourceVersion: '9' })
    expect(h.calls).toEqual(['list -', 'list tok1'])
    expect(w.stats.droppedNoUid).toBe(2)
    expect(w.stats).toMatchObject({ listMode: 'paginated', resourceVersion: '9', relists: { initial: 1 } })
  })

  it('restarts the list on 410 on a continue page, retries the same page on 500', async () => {
    const gone = new KubeApiError({ status: 410, reason: 'Expired' })
    const h = harness({ support: 'unsupported', pages: [page([], '9', 'tok1'), new KubeApiError({ status: 500 }), gone] })
    const first = await step(empty, h.ctx)
    const retry = await step(first.next, h.ctx)
    expect(retry.next).toEqual({ type: 'listPage', continueToken: 'tok1' })
    expect(retry.error).toBeInstanceOf(KubeApiError)
    const expired = await step(retry.next, h.ctx)
    expect(expired).toEqual({ events: [], next: { type: 'empty', cause: 'gone' }, error: gone })
  })
})

describe('watcher step: watching', () => {
  const watching = (c: WatchConnection<M>, openedAt = 10_000): State<M> => ({ type: 'watching', conn: c, resourceVersion: '20', openedAt })

  it('opens a watch from the listed revision', async () => {
    const c = conn([])
    const h = harness({ watches: [c] })
    const r = await step({ type: 'listed', resourceVersion: '20' }, h.ctx)
    expect(h.calls).toEqual(['watch 20'])
    expect(r.next).toMatchObject({ type: 'watching', resourceVersion: '20', openedAt: 10_000 })
  })

  it('maps ADDED/MODIFIED to apply, DELETED to delete, and tracks revisions from events and bookmarks', async () => {
    const c = conn([
      added(meta('a', '21')),
      { type: 'DELETED', object: meta('a', '22'), resourceVersion: '22' },
      bookmark('30'),
      { type: 'MODIFIED', object: undefined, resourceVersion: '31' },
    ])
    const w = walk(harness().ctx, watching(c))
    let r = await w.next()
    expect(r.events).toEqual([{ type: 'apply', object: meta('a', '21') }])
    r = await w.next()
    expect(r.events).toEqual([{ type: 'delete', object: meta('a', '22') }])
    r = await w.next()
    expect(r.events).toEqual([])
    expect(r.next).toMatchObject({ resourceVersion: '30' })
    expect(r.bookmark).toBe(true)
    r = await w.next()
    expect(r.events).toEqual([])
    expect(r.next).toMatchObject({ resourceVersion: '31' })
    expect(r.dropped).toBe(1)
    expect(w.stats).toMatchObject({ droppedNoUid: 1, resourceVersion: '31', events: { bookmark: 1 } })
  })

  it('re-watches from the last revision on a clean end; a quiet end within 1 s is an error', async () => {
    const h = harness()
    const late = await step(watching(conn([]), 10_000 - 1000), h.ctx)
    expect(late).toEqual({ events: [], next: { type: 'listed', resourceVersion: '20' } })
    const early = await step(watching(conn([]), 10_000 - 999), h.ctx)
    expect(early.next).toEqual({ type: 'listed', resourceVersion: '20' })
    expect(early.error).toBeInstanceOf(KubeShortWatchError)
    const busy = conn([bookmark('25')])
    let r = await step(watching(busy), h.ctx)
    r = await step(r.next, h.ctx)
    expect(r).toEqual({ events: [], next: { type: 'listed', resourceVersion: '25' } })
  })

  it('relists on an in-stream ERROR 410 (code or reason), re-watches on other errors', async () => {
    const h = harness()
    for (const error of [new KubeApiError({ status: 410, reason: 'Expired', inStream: true }), new KubeApiError({ status: 500, reason: 'Gone', inStream: true })]) {
      const c = conn([{ type: 'ERROR', error }])
      const r = await step(watching(c), h.ctx)
      expect(r).toEqual({ events: [], next: { type: 'empty', cause: 'gone' }, error })
      expect(c.closed).toBe(true)
    }
    const other = new KubeApiError({ status: 500, reason: 'InternalError', inStream: true })
    const r = await step(watching(conn([{ type: 'ERROR', error: other }])), h.ctx)
    expect(r).toEqual({ events: [], next: { type: 'listed', resourceVersion: '20' }, error: other })
  })

  it('ends the watch loudly on a malformed line and resumes from the last revision', async () => {
    const bad = new KubeDecodeError('malformed line')
    const w = walk(harness().ctx, watching(conn([added(meta('a', '21')), bad])))
    await w.next()
    const r = await w.next()
    expect(r).toEqual({ events: [], next: { type: 'listed', resourceVersion: '21' }, error: bad })
    expect(w.stats.malformedLines).toBe(1)
    expect(w.stats.watchRestarts).toBe(1)
    expect(w.logs.some((l) => l.includes('malformed line'))).toBe(true)
    expect(w.logs).toEqual(['malformed line; resuming from resourceVersion 21 in 0 ms'])
  })

  it('counts how each watch connection ended, and every request the silence rule tore down', async () => {
    const silent = (what: string) => new KubeIdleTimeoutError(`${what} torn down (peer_silent): the API server sent nothing for 30.0 s`)
    const h = harness({
      support: 'unsupported',
      watches: [conn([bookmark('21')]), conn([silent('watch')]), conn([new KubeTransportError('reset')]), silent('watch request'), conn([])],
      pages: [silent('LIST'), page([], '20')],
    })
    const w = walk(h.ctx, empty)
    const ends: string[] = []
    for (let i = 0; i < 10; i++) {
      const r = await w.next()
      if (r.error) ends.push(r.error.name)
    }
    expect(ends).toEqual(['KubeIdleTimeoutError', 'KubeIdleTimeoutError', 'KubeTransportError', 'KubeIdleTimeoutError'])
    expect(w.stats.disconnects).toEqual({ peer_closed: 1, peer_silent: 3, error: 1 })
    expect(w.stats.errors).toEqual({ peer_silent: 3, network: 1 })
    expect(w.logs[0]).toBe('LIST torn down (peer_silent): the API server sent nothing for 30.0 s; relisting (initial) in 0 ms')
  })

  it('re-watches from the same revision after 429 and 5xx, relists after HTTP 410', async () => {
    const h = harness({
      watches: [new KubeApiError({ status: 429, retryAfterMs: 2000 }), new KubeApiError({ status: 503 }), new KubeApiError({ status: 410, reason: 'Gone' })],
    })
    const listed: State<M> = { type: 'listed', resourceVersion: '20' }
    expect((await step(listed, h.ctx)).next).toEqual(listed)
    expect((await step(listed, h.ctx)).next).toEqual(listed)
    expect((await step(listed, h.ctx)).next).toEqual({ type: 'empty', cause: 'gone' })
  })
})

describe('watcher step: availability (docs/behaviour.md §3)', () => {
  it('yields unavailable once on 403/404, relists, and becomes available at the next initDone', async () => {
    const h = harness({
      support: 'unsupported',
      watches: [new KubeApiError({ status: 403, reason: 'Forbidden' }), new KubeApiError({ status: 404, reason: 'NotFound' })],
      pages: [new KubeApiError({ status: 404, reason: 'NotFound' }), page([meta('a', '1')], '5')],
    })
    const w = walk(h.ctx, { type: 'listed', resourceVersion: '20' })
    const a = await w.next()
    expect(a.events).toEqual([{ type: 'unavailable', reason: 'HTTP 403 Forbidden' }])
    expect(a.next).toEqual({ type: 'empty', cause: 'unavailable' })
    expect(w.stats.availability).toBe('unavailable')
    const b = await w.next()
    expect(b.events).toEqual([])
    expect(b.error).toBeInstanceOf(KubeApiError)
    const c = await w.next()
    expect(c.events.at(-1)).toEqual({ type: 'initDone' })
    expect(w.stats.availability).toBe('available')
    // Two list requests after the 403: the one answered 404, the one that listed.
    expect(w.stats.relists.unavailable).toBe(2)
    // Available again: the next 403/404 is reported anew.
    const d = await w.next()
    expect(d.events).toEqual([{ type: 'unavailable', reason: 'HTTP 404 NotFound' }])
    expect(w.stats.events.unavailable).toBe(2)
  })

  it('a step reports every 403/404 it meets; the watcher passes on the first', async () => {
    const h = harness({ support: 'unsupported', pages: [new KubeApiError({ status: 404 })] })
    const again = await step({ type: 'empty', cause: 'unavailable' }, h.ctx)
    expect(again.events).toEqual([{ type: 'unavailable', reason: 'HTTP 404' }])
  })

  it('yields unavailable before the first initDone too (priming must not wait for it)', async () => {
    const h = harness({ support: 'unsupported', pages: [new KubeApiError({ status: 403 })] })
    const r = await step(empty, h.ctx)
    expect(r.events).toEqual([{ type: 'unavailable', reason: 'HTTP 403' }])
  })
})

describe('stream stats: contact with the API server (docs/behaviour.md §15)', () => {
  it('records the last answered step and is failing from an error (not a 410) until the next answer', async () => {
    const h = harness({
      support: 'unsupported',
      pages: [new KubeApiError({ status: 503 }), page([meta('a', '3')], '7'), new KubeTransportError('connect ECONNREFUSED'), page([], '8')],
      watches: [new KubeApiError({ status: 410, reason: 'Expired' }), conn([bookmark('9'), new KubeIdleTimeoutError('nothing for 30 s')])],
    })
    const { clock } = h
    const s = walk(h.ctx, empty)
    await s.next() // 503
    expect(s.stats.lastContactMs).toBeUndefined()
    expect(s.stats.failing).toBe(true)
    await clock.advance(5_000)
    await s.next() // the page
    expect(s.stats).toMatchObject({ lastContactMs: 15_000, failing: false })
    await clock.advance(1_000)
    await s.next() // watch from 7: 410, only a relist
    expect(s.stats).toMatchObject({ lastContactMs: 15_000, failing: false })
    await s.next() // list: refused
    expect(s.stats).toMatchObject({ lastContactMs: 15_000, failing: true })
    await clock.advance(2_000)
    await s.next() // the page
    expect(s.stats).toMatchObject({ lastContactMs: 18_000, failing: false })
    await clock.advance(1_000)
    await s.next() // the watch opened
    expect(s.stats).toMatchObject({ lastContactMs: 19_000, failing: false })
    await clock.advance(10_000)
    await s.next() // a bookmark
    expect(s.stats).toMatchObject({ lastContactMs: 29_000, failing: false })
    await clock.advance(30_000)
    await s.next() // torn down as silent
    expect(s.stats).toMatchObject({ lastContactMs: 29_000, failing: true })
    expect(s.stats.disconnects.peer_silent).toBe(1)
  })
})
