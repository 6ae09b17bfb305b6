// Watch health for operators (docs/behaviour.md §15): per stream, how long ago the API server was
// last heard from and whether the stream reaches it now, as metrics and as /readyz reasons.
import type { StreamName } from '../match/index.ts'
import type { Registry } from '../observe/metrics.ts'

/** What a stream tells of its contact with the API server. */
export interface StreamHealth {
  /**
   * Clock time (ms) of its last successful contact with the API server: a list page, a watch
   * opened or ended by the server, an event, a bookmark. Undefined before the first.
   */
  readonly lastContactMs: number | undefined
  /** False from a failed request (network error, silence, 429, 5xx, 403/404) until the next contact. */
  readonly reachable: boolean
}

/** /readyz turns 503 once a stream has failed to reach the API server for this long (§15). */
export const UNREACHABLE_GRACE_MS = 60_000

const STREAMS: readonly StreamName[] = ['pods', 'replicasets', 'jobs']

/** What the health of the watches is read from. */
export interface WatchHealthSource {
  readonly streams: Readonly<Record<StreamName, { health(): StreamHealth }>>
  /** When the collector started: a stream never heard from counts its age from here. */
  readonly startedAt: number
  readonly now: () => number
  /** The core's view per stream: served (not 403/404, not given up by the priming timeout) and primed. */
  readonly core: () => { readonly available: Readonly<Record<StreamName, boolean>>; readonly primed: Readonly<Record<StreamName, boolean>> }
  /** Streams the priming timeout connected without, whose first list has not completed since. */
  readonly listPending: ReadonlySet<StreamName>
}

/** Milliseconds since the stream last heard from the API server (since the start when it never did). */
function contactAgeMs(src: WatchHealthSource, stream: StreamName): number {
  return Math.max(0, src.now() - (src.streams[stream].health().lastContactMs ?? src.startedAt))
}

/** Registers `k8s_collector_watch_last_contact_age_seconds`, `_stream_available` and `_stream_primed`. */
export function registerWatchHealth(registry: Registry, src: WatchHealthSource): void {
  registry.gauge({
    name: 'k8s_collector_watch_last_contact_age_seconds',
    help: 'Seconds since the stream last got an answer from the API server (a list page, a watch opened or ended by the server, an event, a bookmark); since the process started before the first. Below 20 s while healthy (docs/behaviour.md §15).',
    labelNames: ['stream'],
    collect: () => STREAMS.map((s) => [[s], contactAgeMs(src, s) / 1000] as const),
  })
  registry.gauge({
    name: 'k8s_collector_stream_available',
    help: '1 while the API server serves the stream; 0 from a 403/404 (docs/behaviour.md §3) or a failed request (network, peer_silent, 429, 5xx) until its next answer, and while a first list given up by the priming timeout is pending (docs/behaviour.md §15).',
    labelNames: ['stream'],
    collect: () => STREAMS.map((s) => [[s], src.core().available[s] && src.streams[s].health().reachable ? 1 : 0] as const),
  })
  registry.gauge({
    name: 'k8s_collector_stream_primed',
    help: '1 once the stream delivered its first complete list or was answered 403/404; 0 before, and still 0 after the priming timeout gave up on it until that list is in (docs/behaviour.md §6, §15).',
    labelNames: ['stream'],
    collect: () => STREAMS.map((s) => [[s], src.core().primed[s] && !src.listPending.has(s) ? 1 : 0] as const),
  })
}

/**
 * Why the watches make the collector not ready (§15), or undefined: a first list still pending
 * after the priming timeout, or a served stream that has failed to reach the API server for
 * {@link UNREACHABLE_GRACE_MS}. A stream answered with 403/404 is not counted: it is unavailable
 * by configuration, and the collector works without it (§3).
 */
export function watchUnreadiness(src: WatchHealthSource): string | undefined {
  if (src.listPending.size > 0) return `initial list pending after the priming timeout: ${STREAMS.filter((s) => src.listPending.has(s)).join(', ')}`
  const available = src.core().available
  const cut = STREAMS.filter((s) => available[s] && !src.streams[s].health().reachable && contactAgeMs(src, s) >= UNREACHABLE_GRACE_MS)
  if (cut.length === 0) return undefined
  const seconds = Math.floor(Math.max(...cut.map((s) => contactAgeMs(src, s))) / 1000)
  return `API server unreachable for ${seconds} s: ${cut.join(', ')}`
}
