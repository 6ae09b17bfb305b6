// Stream assembly: the watcher over real requests, wrapped in stats, backoff with Retry-After,
// and the log, exposed as an AsyncIterable of StreamEvents (docs/behaviour.md §1, §8, §12).
import { createModelContext, type ModelContext } from '../model/context.ts'
import type { OwnerMeta, PodMeta, StreamEvent } from '../model/types.ts'
import { logger } from '../observe/log.ts'
import { createRateLimitedLog } from '../observe/rate-limit.ts'
import { createBackoff, type BackoffConfig } from '../util/backoff.ts'
import { systemClock, type Clock } from '../util/clock.ts'
import { withRetryAfter } from '../util/retry-after.ts'
import { retryAfterFailures } from '../util/retry.ts'
import type { KubeClient } from './client.ts'
import { isGone, KubeApiError } from './errors.ts'
import { fetchListPage } from './list.ts'
import { jobsResource, podsResource, replicaSetsResource, type KubeObject, type ResourceSpec } from './resources.ts'
import { countSteps, createWatchStats, type WatchStats } from './stats.ts'
import { openWatch } from './watch.ts'
import { logSteps } from './watch-log.ts'
import { runWatcher, type State, type StepContext, type StepResult, type WatchApi } from './watcher.ts'

/** Tuning of one watch stream; every field is optional and documented with its default. */
export interface WatchOptions {
  /** Ends the stream: the open request's socket is destroyed and the iterable returns. */
  readonly signal?: AbortSignal
  /** LIST page size. Default 500 (docs/kube-api.md). */
  readonly pageSize?: number
  /**
   * The silence limit, ms: a LIST, watch or streaming-list request that gets nothing from the API
   * server for this long is torn down as dead (cause `peer_silent`) and retried through a new
   * connection (docs/behaviour.md §12). Default 30,000.
   */
  readonly silenceLimitMs?: number
  /**
   * `timeoutSeconds` of each watch over HTTP/1.1, drawn uniformly from [min, max). Default: ½ to ⅔
   * of the silence limit ([15, 20) s), so that a live server always ends a quiet watch before the limit.
   */
  readonly watchTimeoutSecs?: readonly [number, number]
  /**
   * `timeoutSeconds` of each watch over HTTP/2, whose shared connection is checked by PING, drawn
   * uniformly from [min, max). Default [300, 600) s, client-go's (docs/kube-api.md step 6).
   */
  readonly pingedWatchTimeoutSecs?: readonly [number, number]
  /**
   * Streaming list: no initial event and no end bookmark for this long (ms) → the server is taken
   * not to support streaming lists; fall back to LIST. Default 20,000.
   */
  readonly initialEventsTimeoutMs?: number
  /** A watch ending cleanly sooner than this (ms) without a line counts as an error. Default 1,000. */
  readonly shortWatchMs?: number
  /** Backoff between failures. Default 0.8 s doubling to 30 s, full jitter, reset after 2 min. */
  readonly backoff?: Partial<BackoffConfig>
  /** Upper bound on an honoured `Retry-After`, ms. Default 300,000. */
  readonly maxRetryAfterMs?: number
  /** The clock of every timeout, backoff and log interval. Default: the system clock. */
  readonly clock?: Clock
  /** Uniform [0, 1) (backoff jitter, watch timeouts). Default `Math.random`. */
  readonly random?: () => number
  /** The caches the converters intern through (the collector's, shared with its core). Default: a fresh set for this stream. */
  readonly model?: ModelContext
}

/** A watch stream: iterate it once; `stats` is live. */
export interface WatchStream<T> extends AsyncIterable<StreamEvent<T>> {
  readonly stats: WatchStats
}

const INITIAL: State<never> = { type: 'empty', cause: 'initial' }
const SILENCE_LIMIT_MS = 30_000
/**
 * A streaming list's `timeoutSeconds`: long enough for the snapshot of a big cluster, which the
 * server would cut at its timeout. The collector closes it at the end bookmark (watcher.ts).
 */
const STREAMING_LIST_TIMEOUT_SECS = 600
/**
 * Watches over a PING-checked HTTP/2 connection: client-go's reflector asks for a timeoutSeconds
 * drawn from [minWatchTimeout, 2 × minWatchTimeout), minWatchTimeout being 5 minutes.
 */
const PINGED_WATCH_TIMEOUT_SECS: readonly [number, number] = [300, 600]

/** The default [min, max) of a watch's `timeoutSeconds`: ½ to ⅔ of the silence limit, whole seconds. */
function watchTimeoutRange(silenceLimitMs: number): readonly [number, number] {
  const min = Math.max(1, Math.floor(silenceLimitMs / 2000))
  return [min, Math.max(min + 1, Math.floor(silenceLimitMs / 1500))]
}

/**
 * Watches `spec`'s collection across all namespaces: `init`, `initApply`…, `initDone`, then
 * `apply`/`delete`, relisting (a new `init`…`initDone`) after 410 Gone, and `unavailable` once
 * when the server answers 403/404 (docs/behaviour.md §3). Errors never end the stream; they are
 * counted in `stats`, logged, and retried with backoff. Aborting `opts.signal` or breaking out
 * of the loop closes the connection and ends the iterable.
 */
export function watchResource<T extends KubeObject>(
  client: KubeClient,
  spec: ResourceSpec<T>,
  opts: WatchOptions = {},
): WatchStream<T> {
  const stats = createWatchStats(spec.name)
  const clock = opts.clock ?? systemClock
  const random = opts.random ?? Math.random
  const signal = opts.signal
  const ctx: StepContext<T> = { api: httpApi(client, spec, opts, clock, random, stats), now: () => clock.now(), shortWatchMs: opts.shortWatchMs ?? 1000, resource: spec.name }
  const backoff = createBackoff(opts.backoff, () => clock.now(), random)
  const delay = withRetryAfter(backoff, opts.maxRetryAfterMs ?? 300_000)
  let lastFailureGone = false
  const counted = countSteps(runWatcher(ctx, INITIAL, signal), stats, INITIAL, clock)
  const retried = retryAfterFailures(counted, {
    delayAfter: (r) => {
      if (r.error === undefined) return undefined
      // A 410 is a live server's answer (only the revision is too old): relist from the first step
      // of the backoff, not from where an outage before it left the backoff; 410s in a row grow it.
      const gone = isGone(r.error)
      if (gone && !lastFailureGone) backoff.reset()
      lastFailureGone = gone
      return delay(r.error instanceof KubeApiError ? r.error.retryAfterMs : undefined)
    },
    clock,
    signal,
  })
  const logged = logSteps(retried, createRateLimitedLog(logger.withTag(`kube:${spec.name}`), { clock }))
  return Object.assign(eventsOf(logged), { stats })
}

/** The watcher's requests as HTTP requests to `client`. */
function httpApi<T extends KubeObject>(
  client: KubeClient,
  spec: ResourceSpec<T>,
  opts: WatchOptions,
  clock: Clock,
  random: () => number,
  stats: WatchStats,
): WatchApi<T> {
  const silenceLimitMs = opts.silenceLimitMs ?? SILENCE_LIMIT_MS
  const short = opts.watchTimeoutSecs ?? watchTimeoutRange(silenceLimitMs)
  const long = opts.pingedWatchTimeoutSecs ?? PINGED_WATCH_TIMEOUT_SECS
  const signal = opts.signal
  return {
    get watchList() {
      return client.watchList
    },
    rememberWatchList(support) {
      client.watchList = support
    },
    // Once a list is through (the stream counted its initDone), the consumer holds its objects: a relist's items mostly die with their page.
    listPage: (continueToken) =>
      fetchListPage(client, spec, { limit: opts.pageSize ?? 500, continueToken, signal, idleTimeoutMs: silenceLimitMs, clock, relist: stats.events.initDone > 0 }),
    watch: ({ resourceVersion, streamingList }) => {
      // Over HTTP/2 the connection's PING finds a dead server, so a watch may stay quiet until its
      // timeoutSeconds; the silence limit then only guards a live server that forgot to end it.
      const pinged = !streamingList && client.protocol === 'h2'
      const [minSecs, maxSecs] = pinged ? long : short
      const timeoutSeconds = streamingList ? STREAMING_LIST_TIMEOUT_SECS : Math.floor(minSecs + random() * (maxSecs - minSecs))
      return openWatch(client, spec, {
        resourceVersion,
        streamingList,
        timeoutSeconds,
        idleTimeoutMs: pinged ? timeoutSeconds * 1000 + silenceLimitMs : silenceLimitMs,
        initialEventsTimeoutMs: opts.initialEventsTimeoutMs ?? 20_000,
        signal,
        clock,
        largeLines: { stats },
      })
    },
  }
}

/** The steps' events, in order (a plain iterator: most steps carry one event, some none, a LIST page 500). */
function eventsOf<T>(steps: AsyncIterableIterator<StepResult<T>>): AsyncIterableIterator<StreamEvent<T>> {
  let events: readonly StreamEvent<T>[] = []
  let at = 0
  const pull = async (): Promise<IteratorResult<StreamEvent<T>>> => {
    for (;;) {
      const r = await steps.next()
      if (r.done) return r
      if (r.value.events.length === 0) continue
      events = r.value.events
      at = 1
      return { done: false, value: events[0] }
    }
  }
  return {
    [Symbol.asyncIterator]() {
      return this
    },
    next() {
      return at < events.length ? Promise.resolve({ done: false, value: events[at++] }) : pull()
    },
    async return() {
      await steps.return?.()
      return { done: true, value: undefined }
    },
  }
}

/** Pods across all namespaces, full objects converted to {@link PodMeta} (docs/behaviour.md §1, §2). */
export function watchPods(client: KubeClient, opts?: WatchOptions): WatchStream<PodMeta> {
  return watchResource(client, podsResource(opts?.model ?? createModelContext()), opts)
}

/** ReplicaSets across all namespaces, metadata only, as {@link OwnerMeta} of kind ReplicaSet. */
export function watchReplicaSets(client: KubeClient, opts?: WatchOptions): WatchStream<OwnerMeta> {
  return watchResource(client, replicaSetsResource(opts?.model ?? createModelContext()), opts)
}

/** Jobs across all namespaces, metadata only, as {@link OwnerMeta} of kind Job. */
export function watchJobs(client: KubeClient, opts?: WatchOptions): WatchStream<OwnerMeta> {
  return watchResource(client, jobsResource(opts?.model ?? createModelContext()), opts)
}
