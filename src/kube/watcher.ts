// The watcher state machine (kube-rs watcher.rs style): one tagged-union State, one exhaustive
// `step` that performs one request or reads one line and returns events, the next state and
// possibly an error value (docs/kube-api.md "Recovery algorithm", docs/behaviour.md §1, §3, §8).
import type { StreamEvent } from '../model/types.ts'
import type { WatchListSupport } from './client.ts'
import {
  KubeAbortedError,
  KubeApiError,
  KubeDecodeError,
  KubeInitialEventsTimeoutError,
  KubeShortWatchError,
  isGone,
  isUnavailable,
  toKubeError,
  type KubeError,
} from './errors.ts'
import type { ListPage } from './list.ts'
import type { RelistCause, WatchStats } from './stats.ts'
import type { WatchConnection } from './watch.ts'

/** Where the watcher is. Each variant carries only its own data. */
export type State<T> =
  /** About to (re)list; nothing of the new list has been yielded yet. */
  | { readonly type: 'empty'; readonly cause: RelistCause }
  /** Paginated LIST in progress: `init` and earlier pages were yielded. */
  | { readonly type: 'listPage'; readonly continueToken: string }
  /** Streaming list in progress: `init` was yielded, initial ADDED events arrive on `conn`. */
  | { readonly type: 'initialEvents'; readonly conn: WatchConnection<T>; readonly resourceVersion: string }
  /** A snapshot is complete or a watch ended: (re)watch from `resourceVersion`. */
  | { readonly type: 'listed'; readonly resourceVersion: string }
  /** A watch is open. */
  | { readonly type: 'watching'; readonly conn: WatchConnection<T>; readonly resourceVersion: string; readonly openedAt: number }

/** The requests a step may make; the real ones are HTTP, tests may script them. */
export interface WatchApi<T> {
  /** One LIST page (first page when `continueToken` is undefined). */
  listPage(continueToken: string | undefined): Promise<ListPage<T>>
  /** Opens a watch from `resourceVersion`, or a streaming list. */
  watch(req: { readonly resourceVersion?: string; readonly streamingList: boolean }): Promise<WatchConnection<T>>
}

/** Everything `step` needs besides the state. */
export interface StepContext<T> {
  readonly api: WatchApi<T>
  /** Per-server memory of streaming-list support (the KubeClient). */
  readonly support: { watchList: WatchListSupport }
  /** Monotonic-enough milliseconds (injected for tests). */
  readonly now: () => number
  /** A watch ending cleanly sooner than this (ms) without any line is an error (docs/kube-api.md step 3). */
  readonly shortWatchMs: number
  readonly stats: WatchStats
  readonly log: { warn(...args: unknown[]): void; error(...args: unknown[]): void; info(...args: unknown[]): void }
}

/** One step's outcome: events to yield, the next state, and an error to back off on. */
export interface StepResult<T> {
  readonly events: readonly StreamEvent<T>[]
  readonly next: State<T>
  readonly error?: KubeError
}

const NO_EVENTS: readonly never[] = []
const INIT = { type: 'init' } as const
const INIT_DONE = { type: 'initDone' } as const

/** Advances the watcher by one request or one watch line. Never throws: failures are values. */
export async function step<T extends { readonly resourceVersion: string }>(state: State<T>, ctx: StepContext<T>): Promise<StepResult<T>> {
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
 * The common failure rule: 403/404 → `unavailable` (once) and relist; 410 → relist; anything
 * else → stay in `retry` (same page, same revision). Every case backs off.
 */
function failure<T>(err: KubeError, retry: State<T>, ctx: StepContext<T>): StepResult<T> {
  if (err instanceof KubeAbortedError) return { events: NO_EVENTS, next: retry, error: err }
  if (isUnavailable(err)) {
    const events: StreamEvent<T>[] = []
    if (ctx.stats.availability !== 'unavailable') {
      ctx.stats.availability = 'unavailable'
      events.push({ type: 'unavailable', reason: err.message })
    }
    return { events, next: { type: 'empty', cause: 'unavailable' }, error: err }
  }
  if (isGone(err)) return { events: NO_EVENTS, next: { type: 'empty', cause: 'gone' }, error: err }
  return { events: NO_EVENTS, next: retry, error: err }
}

function pageEvents<T>(page: ListPage<T>, ctx: StepContext<T>, first: boolean): StreamEvent<T>[] {
  const events: StreamEvent<T>[] = first ? [INIT] : []
  for (const object of page.items) events.push({ type: 'initApply', object })
  ctx.stats.droppedNoUid += page.dropped
  return events
}

function completeList<T>(events: StreamEvent<T>[], resourceVersion: string, ctx: StepContext<T>): void {
  events.push(INIT_DONE)
  ctx.stats.availability = 'available'
  ctx.stats.resourceVersion = resourceVersion
}

async function startList<T extends { readonly resourceVersion: string }>(
  state: Extract<State<T>, { type: 'empty' }>,
  ctx: StepContext<T>,
): Promise<StepResult<T>> {
  if (ctx.support.watchList !== 'unsupported') {
    let conn: WatchConnection<T>
    try {
      conn = await ctx.api.watch({ streamingList: true })
    } catch (e) {
      const err = toKubeError(e)
      // docs/kube-api.md: a server without WatchList answers 422 → paginated LIST from now on.
      if (err instanceof KubeApiError && err.status === 422) return fallBack(ctx, err.message)
      return failure(err, state, ctx)
    }
    ctx.stats.relists[state.cause]++
    ctx.stats.watchesOpened++
    ctx.stats.listMode = 'streaming'
    return { events: [INIT], next: { type: 'initialEvents', conn, resourceVersion: '' } }
  }
  let page: ListPage<T>
  try {
    page = await ctx.api.listPage(undefined)
  } catch (e) {
    return failure(toKubeError(e), state, ctx)
  }
  ctx.stats.relists[state.cause]++
  ctx.stats.listMode = 'paginated'
  return afterPage(page, pageEvents(page, ctx, true), ctx)
}

function afterPage<T>(page: ListPage<T>, events: StreamEvent<T>[], ctx: StepContext<T>): StepResult<T> {
  if (page.continueToken) return { events, next: { type: 'listPage', continueToken: page.continueToken } }
  completeList(events, page.resourceVersion, ctx)
  return { events, next: { type: 'listed', resourceVersion: page.resourceVersion } }
}

async function nextPage<T>(state: Extract<State<T>, { type: 'listPage' }>, ctx: StepContext<T>): Promise<StepResult<T>> {
  let page: ListPage<T>
  try {
    page = await ctx.api.listPage(state.continueToken)
  } catch (e) {
    // A 410 on a continue page restarts the list (failure → empty); other errors retry this page.
    return failure(toKubeError(e), state, ctx)
  }
  return afterPage(page, pageEvents(page, ctx, false), ctx)
}

/** The server does not do streaming lists: remember it for this server and relist with LIST at once. */
function fallBack<T>(ctx: StepContext<T>, why: string, conn?: WatchConnection<T>): StepResult<T> {
  conn?.close()
  ctx.support.watchList = 'unsupported'
  ctx.log.info(`streaming lists not supported by this server (${why}); using paginated LIST`)
  return { events: NO_EVENTS, next: { type: 'empty', cause: 'fallback' } }
}

async function nextInitialEvent<T>(state: Extract<State<T>, { type: 'initialEvents' }>, ctx: StepContext<T>): Promise<StepResult<T>> {
  const { conn } = state
  let item
  try {
    item = await conn.next()
  } catch (e) {
    const err = toKubeError(e)
    if (err instanceof KubeInitialEventsTimeoutError) return fallBack(ctx, err.message)
    if (err instanceof KubeDecodeError) noteMalformed(err, ctx, 'restarting the list')
    return failure(err, { type: 'empty', cause: 'error' }, ctx)
  }
  // docs/kube-api.md: a server that ignores sendInitialEvents never sends the annotated bookmark; it
  // shows by ending the body, or by sending anything but ADDED before it.
  if (item === null) return fallBack(ctx, 'the body ended without the initial-events-end bookmark')
  switch (item.type) {
    case 'ADDED': {
      const rv = item.resourceVersion || state.resourceVersion
      if (item.object === undefined) {
        ctx.stats.droppedNoUid++
        return { events: NO_EVENTS, next: { type: 'initialEvents', conn, resourceVersion: rv } }
      }
      return { events: [{ type: 'initApply', object: item.object }], next: { type: 'initialEvents', conn, resourceVersion: rv } }
    }
    case 'BOOKMARK': {
      ctx.stats.events.bookmark++
      if (!item.initialEventsEnd) return fallBack(ctx, 'a bookmark without the initial-events-end annotation', conn)
      ctx.support.watchList = 'supported'
      const events: StreamEvent<T>[] = []
      const rv = item.resourceVersion || state.resourceVersion
      completeList(events, rv, ctx)
      // The streaming list goes on as an ordinary watch on the same connection.
      return { events, next: { type: 'watching', conn, resourceVersion: rv, openedAt: ctx.now() } }
    }
    case 'MODIFIED':
    case 'DELETED':
      return fallBack(ctx, `a ${item.type} event before the initial-events-end bookmark`, conn)
    case 'ERROR':
      conn.close()
      return failure(item.error, { type: 'empty', cause: 'error' }, ctx)
  }
}

async function startWatch<T>(state: Extract<State<T>, { type: 'listed' }>, ctx: StepContext<T>): Promise<StepResult<T>> {
  let conn: WatchConnection<T>
  try {
    conn = await ctx.api.watch({ resourceVersion: state.resourceVersion, streamingList: false })
  } catch (e) {
    return failure(toKubeError(e), state, ctx)
  }
  ctx.stats.watchesOpened++
  return { events: NO_EVENTS, next: { type: 'watching', conn, resourceVersion: state.resourceVersion, openedAt: ctx.now() } }
}

function noteMalformed<T>(err: KubeDecodeError, ctx: StepContext<T>, then: string): void {
  ctx.stats.malformedLines++
  ctx.log.error(`${err.message}; ending the watch, ${then}`)
}

async function nextWatchEvent<T>(state: Extract<State<T>, { type: 'watching' }>, ctx: StepContext<T>): Promise<StepResult<T>> {
  const { conn, resourceVersion } = state
  const resume: State<T> = { type: 'listed', resourceVersion }
  let item
  try {
    item = await conn.next()
  } catch (e) {
    const err = toKubeError(e)
    if (err instanceof KubeDecodeError) noteMalformed(err, ctx, `resuming from resourceVersion ${resourceVersion}`)
    return failure(err, resume, ctx)
  }
  if (item === null) {
    if (conn.lines === 0 && ctx.now() - state.openedAt < ctx.shortWatchMs) {
      return { events: NO_EVENTS, next: resume, error: new KubeShortWatchError(`${ctx.stats.resource}: watch ended after ${ctx.now() - state.openedAt} ms without events`) }
    }
    return { events: NO_EVENTS, next: resume }
  }
  switch (item.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED': {
      const rv = item.resourceVersion || resourceVersion
      ctx.stats.resourceVersion = rv
      const next: State<T> = { type: 'watching', conn, resourceVersion: rv, openedAt: state.openedAt }
      if (item.object === undefined) {
        ctx.stats.droppedNoUid++
        return { events: NO_EVENTS, next }
      }
      return { events: [{ type: item.type === 'DELETED' ? 'delete' : 'apply', object: item.object }], next }
    }
    case 'BOOKMARK': {
      const rv = item.resourceVersion || resourceVersion
      ctx.stats.events.bookmark++
      ctx.stats.resourceVersion = rv
      return { events: NO_EVENTS, next: { type: 'watching', conn, resourceVersion: rv, openedAt: state.openedAt } }
    }
    case 'ERROR':
      conn.close()
      return failure(item.error, resume, ctx)
  }
}
