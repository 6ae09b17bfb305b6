// The API silence rule on fake time (docs/behaviour.md §12): the three streams against a real HTTPS
// server that behaves as a kube-apiserver does — a watch's body ends at its timeoutSeconds, with
// bookmarks once a minute and 2 s before that end (or none at all: they are not guaranteed) — for
// 10 minutes, healthy or slow but live, count no teardown; a frozen server is torn down at the limit.
// Fake time moves in 1 s steps, and between steps the test waits until the client has read all
// the server wrote and every stream's next request was answered, so silences are measured to 1 s.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { collect } from '../../e2e/harness/collect.ts'
import { listBody, podObject, sendJson, startFakeApiServer, startWatchBody, type FakeApiServer, type WatchWriter } from '../../e2e/harness/fake-apiserver.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import { logger } from '../observe/log.ts'
import type { TimerHandle } from '../util/clock.ts'
import type { KubeClient } from './client.ts'
import type { WatchStats } from './stats.ts'
import { watchJobs, watchPods, watchReplicaSets, type WatchStream } from './stream.ts'

const PATHS = { pods: '/api/v1/pods', replicasets: '/apis/apps/v1/replicasets', jobs: '/apis/batch/v1/jobs' } as const
type Stream = keyof typeof PATHS
const STREAMS = Object.keys(PATHS) as Stream[]
const LIMIT_MS = 30_000 // the default silence limit

/** How the emulated API server answers a watch. */
interface Behaviour {
  /** A bookmark this often (the cacher's minute); none when unset. */
  readonly bookmarkEveryMs?: number
  /** A bookmark 2 s before timeoutSeconds (the cacher's pre-timeout bookmark). */
  readonly bookmarkBeforeEnd: boolean
  /** Response headers this late (the request queued by API Priority and Fairness). */
  readonly headersLateMs: number
  /** The body ends this long after timeoutSeconds (a loaded server, a slow network). */
  readonly endLateMs: number
}

/** What the server did for one stream's path. */
interface PathLog {
  /** Requests received, headers sent, bookmarks written. */
  received: number
  answered: number
  bookmarks: number
  /** Bodies open (headers sent, not yet closed), with their pending writes. */
  readonly open: Set<{ readonly timers: TimerHandle[] }>
  /** Fake time of the last byte written on this path, and of every request received. */
  lastByteAt: number
  readonly receivedAt: number[]
}

/** Makes `api` answer every list and watch request on `clock` as `b` says. `freeze()` stops every open body for good. */
function emulateApiServer(api: FakeApiServer, clock: FakeClock, b: Behaviour) {
  const logs = Object.fromEntries(STREAMS.map((s) => [PATHS[s], { received: 0, answered: 0, bookmarks: 0, open: new Set(), lastByteAt: 0, receivedAt: [] }])) as Record<string, PathLog>
  const rv = 100
  api.fallback = (req, res) => {
    const log = logs[req.path]!
    log.received++
    log.receivedAt.push(clock.now())
    const timeoutMs = Number(req.query.get('timeoutSeconds')) * 1000
    const start = (): void => {
      const w = startWatchBody(res)
      const body = { timers: [] as TimerHandle[] }
      log.answered++
      log.open.add(body)
      log.lastByteAt = clock.now()
      void w.closed.then(() => {
        log.open.delete(body)
        for (const t of body.timers) clock.clearTimeout(t)
      })
      const bookmark = (end = false) => {
        w.bookmark(rv, end)
        log.bookmarks++
        log.lastByteAt = clock.now()
      }
      // A streaming list of an empty collection: the end bookmark at once; the client closes it.
      if (req.query.get('sendInitialEvents') === 'true') return bookmark(true)
      const every = b.bookmarkEveryMs
      if (every !== undefined) {
        const tick = (): void => {
          bookmark()
          body.timers.push(clock.setTimeout(tick, every))
        }
        body.timers.push(clock.setTimeout(tick, every))
      }
      if (b.bookmarkBeforeEnd && timeoutMs > 2000) body.timers.push(clock.setTimeout(() => bookmark(), timeoutMs - 2000))
      body.timers.push(clock.setTimeout(() => w.end(), timeoutMs + b.endLateMs))
    }
    if (b.headersLateMs > 0) clock.setTimeout(start, b.headersLateMs)
    else start()
  }
  return {
    logs,
    log: (s: Stream) => logs[PATHS[s]]!,
    /** The server hangs: every open body stays open and nothing more is written on it; new requests are served. */
    freeze() {
      for (const log of Object.values(logs)) for (const body of log.open) for (const t of body.timers.splice(0)) clock.clearTimeout(t)
    },
  }
}

let api: FakeApiServer
let clock: FakeClock
let ac: AbortController
let warnings: string[]
beforeEach(async () => {
  api = await startFakeApiServer()
  clock = createFakeClock()
  ac = new AbortController()
  warnings = []
  logger.level = 1
  logger.setReporters([{ log: (entry) => void (entry.type === 'warn' && warnings.push(entry.args.map(String).join(' '))) }])
})
afterEach(async () => {
  ac.abort()
  await api.close()
})

/** The three streams on fake time (jitter 0.5: watches ask for timeoutSeconds 17, backoffs are 400 ms). */
function startStreams(client: KubeClient): Record<Stream, WatchStream<unknown>> {
  const opts = { signal: ac.signal, clock, random: () => 0.5 }
  const streams = { pods: watchPods(client, opts), replicasets: watchReplicaSets(client, opts), jobs: watchJobs(client, opts) }
  for (const s of STREAMS) collect(streams[s] as WatchStream<unknown>)
  return streams
}

/**
 * Runs `ms` of fake time in 1 s steps; after each, waits until every stream has read what was
 * written and its current request was answered (or it waits out a backoff, on fake time too).
 */
async function run(ms: number, server: ReturnType<typeof emulateApiServer>, streams: Record<Stream, WatchStream<unknown>>): Promise<void> {
  const settled = (s: Stream, st: WatchStats): boolean => {
    const log = server.log(s)
    const waitingForHeaders = log.received > log.answered
    const watching = log.open.size === 1 && st.watchesOpened === log.answered
    return st.events.bookmark === log.bookmarks && (waitingForHeaders || watching || st.phase === 'backoff')
  }
  for (let t = 0; t < ms; t += 1000) {
    await clock.advance(1000)
    await waitFor('the streams to settle', () => (STREAMS.every((s) => settled(s, streams[s].stats)) ? true : undefined), {
      timeoutMs: 10_000,
      describe: () => STREAMS.map((s) => ({ s, server: { ...server.log(s), open: server.log(s).open.size }, watchesOpened: streams[s].stats.watchesOpened, bookmarks: streams[s].stats.events.bookmark })),
    })
  }
}

describe('the API silence rule over 10 minutes of a healthy idle cluster', () => {
  it.each<[string, Behaviour]>([
    ['bookmarks once a minute and 2 s before the end, as the cacher sends them', { bookmarkEveryMs: 60_000, bookmarkBeforeEnd: true, headersLateMs: 0, endLateMs: 0 }],
    ['no bookmark at all (none before the cacher saw an event)', { bookmarkBeforeEnd: false, headersLateMs: 0, endLateMs: 0 }],
    ['a slow but live server: headers 15 s late, every body ending 8 s late, no bookmark', { bookmarkBeforeEnd: false, headersLateMs: 15_000, endLateMs: 8_000 }],
  ])('%s: no request torn down', async (_, behaviour) => {
    const server = emulateApiServer(api, clock, behaviour)
    const streams = startStreams(api.client())
    await run(600_000, server, streams)
    for (const s of STREAMS) {
      const st = streams[s].stats
      expect({ s, errors: st.errors, peer_silent: st.disconnects.peer_silent }).toEqual({ s, errors: {}, peer_silent: 0 })
      // Each watch asked for 17 s and was ended by the server: a new request every 17 to 40 s.
      expect(st.disconnects.peer_closed).toBeGreaterThanOrEqual(behaviour.headersLateMs ? 14 : 30)
      expect(api.requests.filter((r) => r.path === PATHS[s] && r.query.get('timeoutSeconds') === '17').length).toBe(st.disconnects.peer_closed + 1)
    }
    expect(warnings).toEqual([])
  }, 120_000)
})

describe('the API silence rule against a server that hangs', () => {
  it('tears every watch down 30 s after its last byte, logs it once with the evidence, and watches again through a new connection', async () => {
    const server = emulateApiServer(api, clock, { bookmarkEveryMs: 60_000, bookmarkBeforeEnd: true, headersLateMs: 0, endLateMs: 0 })
    const streams = startStreams(api.client())
    await run(100_000, server, streams)
    server.freeze()
    const frozenAt = clock.now()
    const last = Object.fromEntries(STREAMS.map((s) => [s, { lastByteAt: server.log(s).lastByteAt, requests: server.log(s).received }]))
    await run(40_000, server, streams)
    for (const s of STREAMS) {
      const st = streams[s].stats
      const { lastByteAt, requests } = last[s]!
      expect(st.disconnects.peer_silent).toBe(1)
      const tornDownAt = st.lastError!.atMs
      expect(tornDownAt - lastByteAt).toBeGreaterThanOrEqual(LIMIT_MS)
      expect(tornDownAt - lastByteAt).toBeLessThanOrEqual(LIMIT_MS + 1000)
      expect(tornDownAt - frozenAt).toBeLessThanOrEqual(LIMIT_MS + 1000)
      // The next request after the 400 ms backoff, on a new connection (the client keeps none alive).
      const next = server.log(s).receivedAt[requests]!
      expect(next - tornDownAt).toBeGreaterThanOrEqual(400)
      expect(next - tornDownAt).toBeLessThanOrEqual(1400)
      expect(server.log(s).open.size).toBe(1)
      expect(st.watchesOpened).toBe(server.log(s).answered)
    }
    expect(warnings).toHaveLength(3)
    for (const s of STREAMS) {
      const line = warnings.find((w) => w.startsWith(`${s} watch`))
      expect(line).toMatch(new RegExp(`^${s} watch from resourceVersion 100 \\(timeoutSeconds 17\\) torn down \\(peer_silent\\): the API server sent nothing for 30\\.\\d s; resuming from resourceVersion 100 in 400 ms$`))
    }
  }, 60_000)

  it('tears a LIST page that stalls mid-body down at the limit and fetches that page again', async () => {
    let stalled: WatchWriter | undefined
    api.script(
      PATHS.pods,
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'a', rv: 3 })], 10, 'page-2')),
      (_r, res) => {
        // Headers and half a body, then nothing: a server that hung mid-page.
        stalled = startWatchBody(res)
        stalled.raw('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[')
      },
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'b', rv: 4 })], 10)),
      (_r, res) => startWatchBody(res).bookmark(10),
    )
    const stream = watchPods(api.client({ streamingList: 'never' }), { signal: ac.signal, clock, random: () => 0.5 })
    const got = collect(stream)
    await api.waitForRequests(2)
    await waitFor('the half page to arrive', () => (stalled ? true : undefined))
    await clock.settle()
    await clock.advance(LIMIT_MS - 1)
    expect(stream.stats.errors).toEqual({})
    await clock.advance(1)
    await waitFor('the teardown', () => stream.stats.errors.peer_silent)
    await stalled!.closed
    await clock.advance(400)
    await got.until((e) => e.some((x) => x.type === 'initDone'))
    expect(got.events.map((e) => e.type)).toEqual(['init', 'initApply', 'initApply', 'initDone'])
    expect(api.requests[2]!.query.get('continue')).toBe('page-2')
    expect(stream.stats).toMatchObject({ disconnects: { peer_silent: 1 }, relists: { initial: 1, error: 0 } })
    expect(warnings).toEqual(['pods LIST continue page (limit 500) torn down (peer_silent): the API server sent nothing for 30.0 s; retrying the list page in 400 ms'])
  })
})
