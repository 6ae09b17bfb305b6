// Test support: a FakeApiServer (fake-apiserver.ts) made to answer the three streams' list and
// watch requests on a fake clock as a kube-apiserver does (a watch's body ends at its
// timeoutSeconds; bookmarks once a minute and 2 s before that end, or none), and a loop that runs
// fake time in 1 s steps while the streams keep up (docs/dead-links.md §2.6).
import type { FakeClock } from './fake-clock.ts'
import { startWatchBody, type FakeApiServer } from './fake-apiserver.ts'
import { waitFor } from './wait.ts'
import type { TimerHandle } from '../../src/util/clock.ts'
import type { WatchStats } from '../../src/kube/stats.ts'
import type { WatchStream } from '../../src/kube/stream.ts'

export const PATHS = { pods: '/api/v1/pods', replicasets: '/apis/apps/v1/replicasets', jobs: '/apis/batch/v1/jobs' } as const
export type Stream = keyof typeof PATHS
export const STREAMS = Object.keys(PATHS) as Stream[]

/** How the emulated API server answers a watch. */
export interface Behaviour {
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
export function emulateApiServer(api: FakeApiServer, clock: FakeClock, b: Behaviour) {
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


/** What {@link emulateApiServer} returns. */
export type EmulatedApiServer = ReturnType<typeof emulateApiServer>

/**
 * Runs `ms` of fake time in 1 s steps; after each, waits until every stream has read what was
 * written and its current request was answered (or it waits out a backoff, on fake time too).
 */
export async function runStreams(
  clock: FakeClock,
  ms: number,
  server: EmulatedApiServer,
  streams: Record<Stream, WatchStream<unknown>>,
  /** Nothing else in flight, e.g. no HTTP/2 PING waiting for its answer (default: true). */
  quiet: () => boolean = () => true,
): Promise<void> {
  const settled = (s: Stream, st: WatchStats): boolean => {
    const log = server.log(s)
    const waitingForHeaders = log.received > log.answered
    const watching = log.open.size === 1 && st.watchesOpened === log.answered
    return st.events.bookmark === log.bookmarks && (waitingForHeaders || watching || st.phase === 'backoff')
  }
  for (let t = 0; t < ms; t += 1000) {
    await clock.advance(1000)
    await waitFor('the streams to settle', () => (quiet() && STREAMS.every((s) => settled(s, streams[s].stats)) ? true : undefined), {
      timeoutMs: 10_000,
      describe: () => STREAMS.map((s) => ({ s, server: { ...server.log(s), open: server.log(s).open.size }, watchesOpened: streams[s].stats.watchesOpened, bookmarks: streams[s].stats.events.bookmark })),
    })
  }
}

