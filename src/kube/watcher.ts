// The watcher state machine (kube-rs watcher.rs style): one tagged-union State, one exhaustive
// `step` that performs one request or reads one line and returns what happened (events, the next
// state, an error to back off on, what it learnt) and touches nothing else, and `runWatcher`, which
// unfolds it into a stream; counting, backoff and logging are wrappers around that (stream.ts)
// (docs/kube-api.md "Recovery algorithm", docs/behaviour.md §1, §3, §8).
import { pageArray } from '../model/records.ts'
import type { StreamEvent } from '../model/types.ts'
import type { WatchListSupport } from './client.ts'
import {
  KubeAbortedError,
  KubeApiError,
  KubeInitialEventsTimeoutError,
  KubeShortWatchError,
  isGone,
  isUnavailable,
  toKubeError,
  type KubeError,
} from './errors.ts'
import type { ListPage } from './list.ts'
import type { KubeObject } from './resources.ts'
import type { WatchConnection } from './watch.ts'

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

/** Where the watcher is. Each variant carries only its own data. */
export type State<T> =
  /** About to (re)list; nothing of the new list has been yielded yet. */
  | { readonly type: 'empty'; readonly cause: RelistCause }
  /** Paginated LIST in progress: `init` and earlier pages were yielded. */
  | { readonly type: 'listPage'; readonly continueToken: string }
  /** Streaming list in progress: `init` was yielded, initial ADDED events arrive on `conn` until the end bookmark. */
  | { readonly type: 'initialEvents'; readonly conn: WatchConnection<T>; readonly resourceVersion: string }
  /** A snapshot is complete or a watch ended: (re)watch from `resourceVersion`. */
  | { readonly type: 'listed'; readonly resourceVersion: string }
  /** A watch is open. */
  | { readonly type: 'watching'; readonly conn: WatchConnection<T>; readonly resourceVersion: string; readonly openedAt: number }

/** The requests a step may make; the real ones are HTTP, tests may script them. */
export interface WatchApi<T> {
  /** What is known so far of the server's streaming-list support (kept per server, read by steps). */
  readonly watchList: WatchListSupport
  /** Records what a step learnt of that support (called by {@link runWatcher}, never by a step). */
  rememberWatchList(support: 'supported' | 'unsupported'): void
  /** One LIST page (first page when `continueToken` is undefined). */
  listPage(continueToken: string | undefined): Promise<ListPage<T>>
  /** Opens a watch from `resourceVersion`, or a streaming list. */
  watch(req: { readonly resourceVersion?: string; readonly streamingList: boolean }): Promise<WatchConnection<T>>
}

/** Everything `step` reads besides the state. */
export interface StepContext<T> {
  readonly api: WatchApi<T>
  /** The clock, ms (the short-watch rule). */
  readonly now: () => number
  /** A watch ending cleanly sooner than this (ms) without any line is an error (docs/kube-api.md step 3). */
  readonly shortWatchMs: number
  /** The resource's name, for messages. */
  readonly resource: string
}

/** What a step showed of the server's streaming-list support (docs/kube-api.md "Streaming lists"). */
export type WatchListVerdict = { readonly supported: true } | { readonly supported: false; readonly why: string }

/** One step's outcome. Besides `events`, `next` and `error`, a field is set only when it happened. */
export interface StepResult<T> {
  /** Events to yield, in order; `initDone` is always last, `unavailable` always alone. */
  readonly events: readonly StreamEvent<T>[]
  readonly next: State<T>
  /** A failure to back off on (an abort ends the stream instead). */
  readonly error?: KubeError
  /** Objects left out because they had no `metadata.uid` (docs/behaviour.md §9). */
  readonly dropped?: number
  /** A bookmark arrived (bookmarks are not events). */
  readonly bookmark?: true
  /** Learnt from the server: {@link runWatcher} remembers it for every stream of that server. */
  readonly watchList?: WatchListVerdict
}

const NO_EVENTS: readonly never[] = []

/** A LIST item's event, born young (a literal's would be pretenured: src/model/records.ts). */
class InitApply<T> {
  readonly type = 'initApply'
  constructor(readonly object: T) {}
}

/** A LIST page's step, born young (a literal's would be pretenured: src/model/records.ts). */
class PageStep<T> implements StepResult<T> {
  constructor(
    readonly events: readonly StreamEvent<T>[],
    readonly next: State<T>,
    readonly dropped: number,
  ) {}
}

const INIT = { type: 'init' } as const
const INIT_DONE = { type: 'initDone' } as const
const GONE = { type: 'empty', cause: 'gone' } as const
const AFTER_ERROR = { type: 'empty', cause: 'error' } as const
const FALLBACK = { type: 'empty', cause: 'fallback' } as const
const SUPPORTED: WatchListVerdict = { supported: true }

/**
 * The watcher (kube-rs `watcher()`): unfolds {@link step} from `initial` until `signal` aborts or
 * a request is aborted, yielding every step's result. Besides, it remembers what steps learnt of
 * streaming-list support, passes `unavailable` on once until the next initDone (docs/behaviour.md
 * §3), and closes the open connection when the iteration ends.
 */
export async function* runWatcher<T extends KubeObject>(
  ctx: StepContext<T>,
  initial: State<T>,
  signal?: AbortSignal,
): AsyncGenerator<StepResult<T>, void, undefined> {
  let state = initial
  let unavailable = false
  try {
    while (!signal?.aborted) {
      let r = await step(state, ctx)
      state = r.next
      if (r.error instanceof KubeAbortedError || signal?.aborted) return
      if (r.watchList) ctx.api.rememberWatchList(r.watchList.supported ? 'supported' : 'unsupported')
      const last = r.events.at(-1)?.type
      if (last === 'unavailable') {
        if (unavailable) r = { ...r, events: NO_EVENTS }
        unavailable = true
      } else if (last === 'initDone') {
        unavailable = false
      }
      yield r
    }
  } finally {
    if (state.type === 'watching' || state.type === 'initialEvents') state.conn.close()
  }
}

/** Advances the watcher by one request or one watch line. Never throws: failures are values. */
export async function step<T extends KubeObject>(state: State<T>, ctx: StepContext<T>): Promise<StepResult<T>> {
  switch (state.type) {
    case 'empty':
      return startList(state, ctx)
    case 'listPage':
      return nextPage(state, ctx)
    case 'initialEvents':
      return nextInitialEvent(state, ctx)
    case 'listed':
      return startWatch(state, ctx)
    case 'watching':
      return nextWatchEvent(state, ctx)
    default:
      return assertNever(state)
  }
}

function assertNever(state: never): never {
  throw new Error(`unknown watcher state ${JSON.stringify(state)}`)
}

/**
 * The common failure rule: 403/404 → `unavailable` and relist (the stream passes it on once until
 * the next initDone); 410 → relist; anything else → stay in `retry` (same page, same revision).
 */
function failure<T>(err: KubeError, retry: State<T>): StepResult<T> {
  if (err instanceof KubeAbortedError) return { events: NO_EVENTS, next: retry, error: err }
  if (isUnavailable(err)) return { events: [{ type: 'unavailable', reason: err.message }], next: { type: 'empty', cause: 'unavailable' }, error: err }
  if (isGone(err)) return { events: NO_EVENTS, next: GONE, error: err }
  return { events: NO_EVENTS, next: retry, error: err }
}

/** A LIST page's events (`init` first on the first page, `initDone` after the last) and the state after it. */
function afterPage<T>(page: ListPage<T>, first: boolean): StepResult<T> {
  const events = pageArray<StreamEvent<T>>()
  if (first) events.push(INIT)
  for (const object of page.items) events.push(new InitApply(object))
  if (page.continueToken) return new PageStep(events, { type: 'listPage', continueToken: page.continueToken }, page.dropped)
  events.push(INIT_DONE)
  return new PageStep(events, { type: 'listed', resourceVersion: page.resourceVersion }, page.dropped)
}

async function startList<T extends KubeObject>(
  state: Extract<State<T>, { type: 'empty' }>,
  ctx: StepContext<T>,
): Promise<StepResult<T>> {
  if (ctx.api.watchList !== 'unsupported') {
    let conn: WatchConnection<T>
    try {
      conn = await ctx.api.watch({ streamingList: true })
    } catch (e) {
      const err = toKubeError(e)
      // docs/kube-api.md: a server without WatchList answers 422 → paginated LIST from now on.
      if (err instanceof KubeApiError && err.status === 422) return fallBack(err.message)
      return failure(err, state)
    }
    return { events: [INIT], next: { type: 'initialEvents', conn, resourceVersion: '' } }
  }
  try {
    return afterPage(await ctx.api.listPage(undefined), true)
  } catch (e) {
    return failure(toKubeError(e), state)
  }
}

async function nextPage<T>(state: Extract<State<T>, { type: 'listPage' }>, ctx: StepContext<T>): Promise<StepResult<T>> {
  try {
    return afterPage(await ctx.api.listPage(state.continueToken), false)
  } catch (e) {
    // A 410 on a continue page restarts the list (failure → empty); other errors retry this page.
    return failure(toKubeError(e), state)
  }
}

/** The server does not do streaming lists: relist with LIST at once, and say so for this server. */
function fallBack<T>(why: string, conn?: WatchConnection<T>): StepResult<T> {
  conn?.close()
  return { events: NO_EVENTS, next: FALLBACK, watchList: { supported: false, why } }
}

async function nextInitialEvent<T>(state: Extract<State<T>, { type: 'initialEvents' }>, ctx: StepContext<T>): Promise<StepResult<T>> {
  const { conn } = state
  let item
  try {
    item = await conn.next()
  } catch (e) {
    const err = toKubeError(e)
    if (err instanceof KubeInitialEventsTimeoutError) return fallBack(err.message)
    return failure(err, AFTER_ERROR)
  }
  // docs/kube-api.md: a server that ignores sendInitialEvents never sends the annotated bookmark; it
  // shows by ending the body, or by sending anything but ADDED before it.
  if (item === null) return fallBack('the body ended without the initial-events-end bookmark')
  switch (item.type) {
    case 'ADDED': {
      const next: State<T> = { type: 'initialEvents', conn, resourceVersion: item.resourceVersion || state.resourceVersion }
      if (item.object === undefined) return { events: NO_EVENTS, next, dropped: 1 }
      return { events: [{ type: 'initApply', object: item.object }], next }
    }
    case 'BOOKMARK': {
      if (!item.initialEventsEnd) return { ...fallBack('a bookmark without the initial-events-end annotation', conn), bookmark: true }
      // The snapshot is complete: the connection ends here and a watch resumes from its revision. The
      // server would go on as a watch, but only until the streaming list's long timeoutSeconds,
      // longer than the silence limit allows a quiet watch to last (docs/behaviour.md §12).
      conn.close()
      const resourceVersion = item.resourceVersion || state.resourceVersion
      return { events: [INIT_DONE], next: { type: 'listed', resourceVersion }, bookmark: true, watchList: SUPPORTED }
    }
    case 'MODIFIED':
    case 'DELETED':
      return fallBack(`a ${item.type} event before the initial-events-end bookmark`, conn)
    case 'ERROR':
      conn.close()
      return failure(item.error, AFTER_ERROR)
  }
}

async function startWatch<T>(state: Extract<State<T>, { type: 'listed' }>, ctx: StepContext<T>): Promise<StepResult<T>> {
  let conn: WatchConnection<T>
  try {
    conn = await ctx.api.watch({ resourceVersion: state.resourceVersion, streamingList: false })
  } catch (e) {
    return failure(toKubeError(e), state)
  }
  return { events: NO_EVENTS, next: { type: 'watching', conn, resourceVersion: state.resourceVersion, openedAt: ctx.now() } }
}

async function nextWatchEvent<T>(state: Extract<State<T>, { type: 'watching' }>, ctx: StepContext<T>): Promise<StepResult<T>> {
  const { conn, resourceVersion, openedAt } = state
  const resume: State<T> = { type: 'listed', resourceVersion }
  let item
  try {
    item = await conn.next()
  } catch (e) {
    return failure(toKubeError(e), resume)
  }
  if (item === null) {
    const ms = ctx.now() - openedAt
    if (conn.lines === 0 && ms < ctx.shortWatchMs) {
      return { events: NO_EVENTS, next: resume, error: new KubeShortWatchError(`${ctx.resource}: watch ended after ${ms} ms without events`) }
    }
    return { events: NO_EVENTS, next: resume }
  }
  switch (item.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED': {
      const next: State<T> = { type: 'watching', conn, resourceVersion: item.resourceVersion || resourceVersion, openedAt }
      if (item.object === undefined) return { events: NO_EVENTS, next, dropped: 1 }
      const type = item.type === 'DELETED' ? 'delete' : 'apply'
      const event: StreamEvent<T> = item.receivedAt === undefined ? { type, object: item.object } : { type, object: item.object, receivedAt: item.receivedAt }
      return { events: [event], next }
    }
    case 'BOOKMARK':
      return { events: NO_EVENTS, next: { type: 'watching', conn, resourceVersion: item.resourceVersion || resourceVersion, openedAt }, bookmark: true }
    case 'ERROR':
      conn.close()
      return failure(item.error, resume)
  }
}
