// Per-stream observability: what a watch stream is doing and what happened to it so far, counted
// by a wrapper around the watcher's steps (the step itself only reports).
import type { Clock } from '../util/clock.ts'
import { observe } from '../util/observe.ts'
import { errorLabel, isGone, KubeDecodeError, KubeIdleTimeoutError, KubeShortWatchError, KubeTransportError } from './errors.ts'
import type { RelistCause, State, StepResult } from './watcher.ts'

/**
 * How a connection of the stream ended (the twin of the reducer link's causes): `peer_closed` the
 * server ended a watch body (its timeoutSeconds), `peer_silent` the silence rule tore a request down
 * or its HTTP/2 connection did not answer a PING (docs/behaviour.md §12), `error` a watch broke otherwise (reset, malformed line, ERROR event).
 */
export type WatchDisconnectCause = 'peer_closed' | 'peer_silent' | 'error'

/** What the stream is doing right now. */
export type WatchPhase = 'starting' | 'listing' | 'initialEvents' | 'watching' | 'backoff' | 'stopped'

/** Counters and state of one stream; {@link countSteps} updates it in place, readers poll it. */
export interface WatchStats {
  readonly resource: string
  phase: WatchPhase
  /** `pending` until the first initDone or unavailability; `unavailable` after 403/404 until the next initDone. */
  availability: 'pending' | 'available' | 'unavailable'
  /** The last resourceVersion seen (list snapshot, event or bookmark). */
  resourceVersion: string
  /** How the last list was done. */
  listMode: 'none' | 'streaming' | 'paginated'
  /** Events yielded, by type, plus bookmarks received (not yielded). */
  readonly events: { init: number; initApply: number; initDone: number; apply: number; delete: number; unavailable: number; bookmark: number }
  /** List requests made (streaming or the first page of a LIST), failed ones included, by why the stream (re)lists. */
  readonly relists: Record<RelistCause, number>
  /** Watch requests opened (streaming lists included). */
  watchesOpened: number
  /** LIST pages answered (paginated lists; a streaming list is one watch request). */
  listPages: number
  /** Watches that ended (cleanly or not) and were resumed from their last revision without a relist. */
  watchRestarts: number
  /** Watch connections ended, and requests torn down by the silence rule, by cause. */
  readonly disconnects: Record<WatchDisconnectCause, number>
  /** Failures by label: HTTP status (`'410'`, `'429'`, `'500'` …) or a transport reason (`refused`, `tls_unknown_authority` …, transport-reason.ts), `peer_silent`, `malformed`, `short_watch`, `initial_events_timeout`. */
  readonly errors: Record<string, number>
  /** Objects ignored because they had no `metadata.uid` (docs/behaviour.md §9). */
  droppedNoUid: number
  /** Watch lines that were not valid JSON (each ended its watch). */
  malformedLines: number
  /** Watch lines held apart for their size (docs/behaviour.md §14, "Large lines"). */
  heldLines: number
  /** The most recent failure. */
  lastError?: { readonly label: string; readonly message: string; readonly atMs: number }
  /**
   * Clock time (ms) of the last step that got an answer from the API server without an error: a
   * list page, a watch opened or ended by the server, an event, a bookmark (docs/behaviour.md §15).
   */
  lastContactMs?: number
  /** From a failed request (other than a 410, which only calls for a relist) until the next contact. */
  failing: boolean
}

/** A fresh stats object for `resource`. */
export function createWatchStats(resource: string): WatchStats {
  return {
    resource,
    phase: 'starting',
    availability: 'pending',
    resourceVersion: '',
    listMode: 'none',
    events: { init: 0, initApply: 0, initDone: 0, apply: 0, delete: 0, unavailable: 0, bookmark: 0 },
    relists: { initial: 0, gone: 0, unavailable: 0, fallback: 0, error: 0 },
    watchesOpened: 0,
    listPages: 0,
    watchRestarts: 0,
    disconnects: { peer_closed: 0, peer_silent: 0, error: 0 },
    errors: {},
    droppedNoUid: 0,
    malformedLines: 0,
    heldLines: 0,
    failing: false,
  }
}

const phaseOf: Record<State<unknown>['type'], WatchPhase> = {
  empty: 'listing',
  listPage: 'listing',
  initialEvents: 'initialEvents',
  listed: 'watching',
  watching: 'watching',
}

/**
 * Passes the watcher's steps (starting from `initial`) on unchanged, counting each into `stats`.
 * A failed step is followed by a backoff (the retry wrapper around this one): the phase says
 * `backoff` until the next step is asked for.
 */
export function countSteps<T>(
  steps: AsyncIterable<StepResult<T>>,
  stats: WatchStats,
  initial: State<T>,
  clock: Pick<Clock, 'now'>,
): AsyncIterableIterator<StepResult<T>> {
  let from: State<T> = initial
  return observe(steps, {
    pull() {
      stats.phase = phaseOf[from.type]
    },
    item(r) {
      count(stats, from, r, clock)
      from = r.next
      if (r.error) stats.phase = 'backoff'
    },
    end() {
      stats.phase = 'stopped'
    },
  })
}

/** Counts the step from `from` to `r.next`: what the transition means, plus what the step reported. */
function count<T>(stats: WatchStats, from: State<T>, r: StepResult<T>, clock: Pick<Clock, 'now'>): void {
  const next = r.next
  // Every list request counts, failed ones too (a stream whose first lists fail shows initial > 1).
  if (from.type === 'empty') stats.relists[from.cause]++
  if (from.type === 'empty' && next.type !== 'empty') stats.listMode = next.type === 'initialEvents' ? 'streaming' : 'paginated'
  if ((from.type === 'empty' && next.type === 'initialEvents') || (from.type === 'listed' && next.type === 'watching')) stats.watchesOpened++
  if ((from.type === 'empty' || from.type === 'listPage') && (next.type === 'listPage' || next.type === 'listed') && !r.error) stats.listPages++
  if (from.type === 'watching' && next.type === 'listed') stats.watchRestarts++
  if (next.type === 'listed' || next.type === 'watching') stats.resourceVersion = next.resourceVersion
  if (r.dropped) stats.droppedNoUid += r.dropped
  if (r.bookmark) stats.events.bookmark++
  for (const ev of r.events) {
    stats.events[ev.type]++
    if (ev.type === 'initDone') stats.availability = 'available'
    else if (ev.type === 'unavailable') stats.availability = 'unavailable'
  }
  const err = r.error
  // A connection that did not answer its PING went silent too, found by the connection instead of the request.
  if (err instanceof KubeIdleTimeoutError || (err instanceof KubeTransportError && err.reason === 'ping_timeout')) stats.disconnects.peer_silent++
  else if (from.type === 'watching' && next.type !== 'watching') {
    stats.disconnects[err === undefined || err instanceof KubeShortWatchError ? 'peer_closed' : 'error']++
  } else if (from.type === 'initialEvents' && err !== undefined) stats.disconnects.error++
  if (err === undefined) {
    stats.lastContactMs = clock.now()
    stats.failing = false
    return
  }
  if (!isGone(err)) stats.failing = true
  const label = errorLabel(err)
  stats.errors[label] = (stats.errors[label] ?? 0) + 1
  stats.lastError = { label, message: err.message, atMs: clock.now() }
  if (err instanceof KubeDecodeError && (from.type === 'initialEvents' || from.type === 'watching')) stats.malformedLines++
}
