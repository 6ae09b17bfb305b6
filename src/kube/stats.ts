// Per-stream observability: what a watch stream is doing and what happened to it so far.

/** Why a (re)list started. */
export type RelistCause =
  /** The first list of the stream. */
  | 'initial'
  /** 410 Gone / Expired: the resume revision or the continue token was too old. */
  | 'gone'
  /** Retrying after 403/404 (docs/behaviour.md §3). */
  | 'unavailable'
  /** The server does not support streaming lists: switched to paginated LIST. */
  | 'fallback'
  /** The previous list failed midway (connection lost, timeout, server error). */
  | 'error'

/** What the stream is doing right now. */
export type WatchPhase = 'starting' | 'listing' | 'initialEvents' | 'watching' | 'backoff' | 'stopped'

/** Counters and state of one stream; the watcher mutates it in place, readers poll it. */
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
  /** Lists started, by cause. */
  readonly relists: Record<RelistCause, number>
  /** Watch requests opened (streaming lists included). */
  watchesOpened: number
  /** Watches that ended (cleanly or not) and were resumed from their last revision without a relist. */
  watchRestarts: number
  /** Failures by label: HTTP status (`'410'`, `'429'`, `'500'` …) or `network`, `idle`, `malformed`, `shortWatch`, `initialEventsTimeout`. */
  readonly errors: Record<string, number>
  /** Objects ignored because they had no `metadata.uid` (docs/behaviour.md §9). */
  droppedNoUid: number
  /** Watch lines that were not valid JSON (each ended its watch). */
  malformedLines: number
  /** The most recent failure. */
  lastError?: { readonly label: string; readonly message: string; readonly atMs: number }
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
    watchRestarts: 0,
    errors: {},
    droppedNoUid: 0,
    malformedLines: 0,
  }
}
