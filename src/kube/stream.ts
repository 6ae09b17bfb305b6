// Stream assembly: drives the watcher state machine with real requests, backoff and stats, and
// exposes each collection as an AsyncIterable of StreamEvents (docs/behaviour.md §1, §8).
import { createModelContext, type ModelContext } from '../model/context.ts'
import type { OwnerMeta, PodMeta, StreamEvent } from '../model/types.ts'
import { logger } from '../observe/log.ts'
import { createBackoff, type BackoffConfig } from '../util/backoff.ts'
import type { KubeClient } from './client.ts'
import { errorLabel, KubeAbortedError } from './errors.ts'
import { fetchListPage } from './list.ts'
import { jobsResource, podsResource, replicaSetsResource, type ResourceSpec } from './resources.ts'
import { createWatchStats, type WatchPhase, type WatchStats } from './stats.ts'
import { openWatch } from './watch.ts'
import { step, type State, type StepContext, type StepResult, type WatchApi } from './watcher.ts'

/** Tuning of one watch stream; every field is optional and documented with its default. */
export interface WatchOptions {
  /** Ends the stream: the open request's socket is destroyed and the iterable returns. */
  readonly signal?: AbortSignal
  /** LIST page size. Default 500 (docs/kube-api.md). */
  readonly pageSize?: number
  /** `timeoutSeconds` of each watch, drawn uniformly from [min, max). Default [300, 600) (client-go). */
  readonly watchTimeoutSecs?: readonly [number, number]
  /** Client-side idle timeout of a watch, ms. Default: its timeoutSeconds + 30 s (docs/kube-api.md step 6). */
  readonly idleTimeoutMs?: number
  /** Idle timeout of a LIST request, ms. Default 60,000. */
  readonly listIdleTimeoutMs?: number
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
  /** Clock, ms. Default `Date.now`. */
  readonly now?: () => number
  /** Sleep that resolves early when `signal` aborts. Default: a timer. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** Uniform [0, 1). Default `Math.random`. */
  readonly random?: () => number
  /** The caches the converters intern through (the collector's, shared with its core). Default: a fresh set for this stream. */
  readonly model?: ModelContext
}

/** A watch stream: iterate it once; `stats` is live. */
export interface WatchStream<T> extends AsyncIterable<StreamEvent<T>> {
  readonly stats: WatchStats
}

/** A timer-based sleep that resolves (never rejects) at the deadline or on abort. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = (): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

const phaseOf: Record<State<unknown>['type'], WatchPhase> = {
  empty: 'listing',
  listPage: 'listing',
  initialEvents: 'initialEvents',
  listed: 'watching',
  watching: 'watching',
}

/**
 * Watches `spec`'s collection across all namespaces: `init`, `initApply`…, `initDone`, then
 * `apply`/`delete`, relisting (a new `init`…`initDone`) after 410 Gone, and `unavailable` once
 * when the server answers 403/404 (docs/behaviour.md §3). Errors never end the stream; they are
 * counted in `stats`, logged, and retried with backoff. Aborting `opts.signal` or breaking out
 * of the loop closes the connection and ends the iterable.
 */
export function watchResource<T extends { readonly resourceVersion: string }>(
  client: KubeClient,
  spec: ResourceSpec<T>,
  opts: WatchOptions = {},
): WatchStream<T> {
  const stats = createWatchStats(spec.name)
  const now = opts.now ?? Date.now
  const random = opts.random ?? Math.random
  const [minSecs, maxSecs] = opts.watchTimeoutSecs ?? [300, 600]
  const signal = opts.signal
  const api: WatchApi<T> = {
    listPage: (continueToken) =>
      fetchListPage(client, spec, { limit: opts.pageSize ?? 500, continueToken, signal, idleTimeoutMs: opts.listIdleTimeoutMs ?? 60_000 }),
    watch: ({ resourceVersion, streamingList }) => {
      const timeoutSeconds = Math.floor(minSecs + random() * (maxSecs - minSecs))
      return openWatch(client, spec, {
        resourceVersion,
        streamingList,
        timeoutSeconds,
        idleTimeoutMs: opts.idleTimeoutMs ?? timeoutSeconds * 1000 + 30_000,
        initialEventsTimeoutMs: opts.initialEventsTimeoutMs ?? 20_000,
        signal,
      })
    },
  }
  const log = logger.withTag(`kube:${spec.name}`)
  const ctx: StepContext<T> = { api, support: client, now, shortWatchMs: opts.shortWatchMs ?? 1000, stats, log }
  const backoff = createBackoff(opts.backoff, now, random)
  const pause = opts.sleep ?? sleep
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? 300_000
  let lastLogged = { label: '', atMs: Number.NEGATIVE_INFINITY }

  async function* run(): AsyncGenerator<StreamEvent<T>, void, undefined> {
    let state: State<T> = { type: 'empty', cause: 'initial' }
    try {
      while (!signal?.aborted) {
        stats.phase = phaseOf[state.type]
        const r: StepResult<T> = await step(state, ctx)
        if (state.type === 'watching' && r.next.type === 'listed' && !(r.error instanceof KubeAbortedError)) stats.watchRestarts++
        state = r.next
        for (const ev of r.events) {
          stats.events[ev.type]++
          yield ev
        }
        const err = r.error
        if (!err) continue
        if (err instanceof KubeAbortedError || signal?.aborted) break
        const label = errorLabel(err)
        stats.errors[label] = (stats.errors[label] ?? 0) + 1
        stats.lastError = { label, message: err.message, atMs: now() }
        const retryAfter = 'retryAfterMs' in err && err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs, maxRetryAfterMs) : 0
        const delay = Math.max(backoff.next(), retryAfter)
        // Rate-limited: a new kind of failure, or one a minute after the last logged one.
        const at = now()
        if (label !== lastLogged.label || at - lastLogged.atMs >= 60_000) {
          log.warn(`${err.message}; retrying in ${delay} ms (${state.type === 'empty' ? `relist: ${state.cause}` : `from resourceVersion ${stats.resourceVersion || '-'}`})`)
          lastLogged = { label, atMs: at }
        }
        stats.phase = 'backoff'
        await pause(delay, signal)
      }
    } finally {
      if (state.type === 'watching' || state.type === 'initialEvents') state.conn.close()
      stats.phase = 'stopped'
    }
  }

  const stream = run()
  return Object.assign(stream, { stats })
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
