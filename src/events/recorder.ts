// The event recorder: `record()` notes what happened and returns at once; one loop writes the Events
// to the API server within the token bucket, retrying and dropping by the rules of docs/events.md,
// until its signal aborts, then drains what is pending for a moment.
import type { KubeWriteClient } from '../kube/client.ts'
import { KubeApiError, KubeDecodeError, KubeIdleTimeoutError, KubeTransportError } from '../kube/errors.ts'
import { requestJson } from '../kube/request.ts'
import { logger } from '../observe/log.ts'
import type { CounterChild, Registry } from '../observe/metrics.ts'
import { createRateLimitedLog } from '../observe/rate-limit.ts'
import { createBackoff } from '../util/backoff.ts'
import { sleep, systemClock, type Clock } from '../util/clock.ts'
import { createEventBook, type Tracked, type Write } from './book.ts'
import { defaultEventLimits, type EventLimits } from './config.ts'
import { eventsOf, podRef, type EventReason, type Occurrence } from './reasons.ts'
import { createTokenBucket } from './token-bucket.ts'
import type { PodIdentity } from './types.ts'
import { createBody, eventName, eventsPath, seriesPatch, type EventsApi } from './wire.ts'

/** What the collector (and leader election) reports through. */
export interface EventReporter {
  /** Notes `o`; never blocks, never throws, never waits for the API server. */
  record(o: Occurrence): void
}

/** A reporter that writes Events. */
export interface EventRecorder extends EventReporter {
  /**
   * Writes what is recorded until `signal` aborts, then for at most `drainMs` what is still pending.
   * Resolves when done; never rejects. Run once.
   */
  run(signal: AbortSignal): Promise<void>
}

/** Why an Event (or a series update) was not written: the `cause` label of k8s_collector_events_dropped_total. */
export type DropCause = 'queue_full' | 'failed' | 'rejected' | 'forbidden' | 'disabled' | 'shutdown'

const DROP_CAUSES: readonly DropCause[] = ['queue_full', 'failed', 'rejected', 'forbidden', 'disabled', 'shutdown']
const REASONS: readonly (EventReason | 'LeaderElection')[] = [
  'ReducerUnreachable', 'ReducerConnected', 'ResourceUnavailable', 'ResourceAvailable', 'Resync', 'LeaderElected', 'LeadershipLost', 'LeaderElection',
]

export interface EventRecorderOptions {
  /** The collector's own Pod: what the Events are about, and the reportingInstance. */
  readonly self: PodIdentity
  readonly limits?: Partial<EventLimits>
}

export interface EventRecorderDeps {
  /** Writes go through its TLS and credentials. */
  readonly client: Pick<KubeWriteClient, 'send'>
  /** Where k8s_collector_events_{emitted,dropped}_total go. */
  readonly registry: Registry
  /** Default the system's. */
  readonly clock?: Clock
  /** [0, 1) for the retry jitter. Default Math.random. */
  readonly random?: () => number
}

/** Writing, through one API group, or off for good after a 403. */
type RecorderState = { readonly phase: 'on'; readonly api: EventsApi } | { readonly phase: 'off' }

/** What to do after a failed attempt. */
type Verdict = 'fallback' | 'recreate' | 'written' | 'forbidden' | 'retry' | 'reject'

/** Creates a recorder; nothing is written before `run()`. */
export function createEventRecorder(opts: EventRecorderOptions, deps: EventRecorderDeps): EventRecorder {
  const limits: EventLimits = { ...defaultEventLimits, ...opts.limits }
  const clock = deps.clock ?? systemClock
  const log = logger.withTag('events')
  const limited = createRateLimitedLog(log, { intervalMs: 60_000, clock })
  const self = podRef(opts.self)
  let seq = 0
  const book = createEventBook(limits, (spec, now) => eventName(spec.regarding.name, now, seq++))
  const bucket = createTokenBucket({ capacity: limits.burst, refillEveryMs: limits.refillEveryMs }, clock.now)
  let state: RecorderState = { phase: 'on', api: 'events.k8s.io/v1' }
  let wake: (() => void) | undefined
  let started = false

  const emitted = deps.registry.counter({
    name: 'k8s_collector_events_emitted_total',
    help:
      'Kubernetes Event writes that succeeded (a create, or a patch of an Event series), by reason, the Event reason as Kubernetes ' +
      'spells it (ReducerUnreachable, ReducerConnected, ResourceUnavailable, ResourceAvailable, Resync, LeaderElected, LeadershipLost, ' +
      'LeaderElection; docs/events.md).',
    labelNames: ['reason'],
  })
  const droppedCounter = deps.registry.counter({
    name: 'k8s_collector_events_dropped_total',
    help:
      'Kubernetes Events or series updates not written, by cause: queue_full (more than the queue holds, the oldest dropped), ' +
      'failed (retries exhausted), rejected (a 4xx other than 403), forbidden (the 403 that turned events off), ' +
      'disabled (recorded while events are off), shutdown (still pending at exit) (docs/events.md).',
    labelNames: ['cause'],
  })
  const dropped = new Map<DropCause, CounterChild>(DROP_CAUSES.map((c) => [c, droppedCounter.labels(c)]))
  for (const r of REASONS) emitted.labels(r)
  const drop = (cause: DropCause, n = 1): void => dropped.get(cause)!.inc(n)
  const dropAll = (list: readonly Tracked[]): void => {
    if (list.length > 0) drop('queue_full', list.length)
  }

  function turnOff(err: KubeApiError): void {
    state = { phase: 'off' }
    log.error(
      `the API server refused to write events (${err.message}): events are off until the collector restarts. ` +
        `Grant this pod's service account create and patch on events (API groups "events.k8s.io" and "") in namespace ${self.namespace}: ` +
        `the Role k8s-collector-events in kind/collector.yaml.`,
    )
    drop('disabled', book.clear())
  }

  function verdict(err: unknown, create: boolean, api: EventsApi): Verdict {
    if (err instanceof KubeApiError) {
      if (err.status === 404) return !create ? 'recreate' : api === 'events.k8s.io/v1' ? 'fallback' : 'reject'
      if (err.status === 403) return 'forbidden'
      // The name is ours: AlreadyExists after a retry means an earlier attempt went through.
      if (err.status === 409) return create && err.reason === 'AlreadyExists' ? 'written' : 'retry'
      return err.status === 429 || err.status >= 500 ? 'retry' : 'reject'
    }
    if (err instanceof KubeTransportError || err instanceof KubeIdleTimeoutError) return 'retry'
    // A 2xx whose body could not be read: the server took the write.
    if (err instanceof KubeDecodeError) return 'written'
    return 'reject'
  }

  async function attempt(api: EventsApi, create: boolean, w: Write, timeoutMs: number, signal: AbortSignal): Promise<void> {
    const e = w.entry
    const path = eventsPath(api, e.spec.regarding.namespace)
    if (create) {
      const body = createBody(api, { spec: e.spec, name: e.name, firstAt: e.firstAt, count: w.count, lastAt: w.lastAt }, self.name)
      await requestJson(deps.client, { method: 'POST', path, body, timeoutMs, clock, signal })
    } else {
      const body = seriesPatch(api, w.count, w.lastAt)
      await requestJson(deps.client, { method: 'PATCH', path: `${path}/${encodeURIComponent(e.name)}`, body, contentType: 'application/merge-patch+json', timeoutMs, clock, signal })
    }
  }

  /** One write with its retries; `final`: the drain, one attempt and no waiting. Aborted by `signal`, it stays pending. */
  async function write(w: Write, signal: AbortSignal, final: boolean): Promise<void> {
    const deadline = clock.now() + limits.giveUpAfterMs
    const backoff = createBackoff({ initialMs: limits.retryBackoffMs, maxMs: limits.giveUpAfterMs, factor: 2, resetAfterMs: Infinity }, clock.now, deps.random)
    const what = `${w.entry.spec.reason} event ${w.entry.name}`
    let create = w.create
    let retries = 0
    const end = (outcome: 'written' | DropCause): void => {
      if (outcome === 'written') emitted.labels(w.entry.spec.reason).inc()
      else drop(outcome)
      dropAll(book.done(w, outcome === 'written' ? 'written' : 'dropped', clock.now()))
    }
    const defer = (): void => dropAll(book.defer(w, clock.now()))
    for (;;) {
      if (state.phase === 'off') return end('disabled')
      const wait = bucket.waitMs()
      if (wait > 0) {
        if (final) return end('shutdown')
        if (clock.now() + wait > deadline) return end('failed')
        await sleep(clock, wait, signal)
        if (signal.aborted) return defer()
        continue
      }
      if (!bucket.take()) continue
      const api = state.api
      try {
        await attempt(api, create, w, Math.min(limits.requestTimeoutMs, Math.max(1, deadline - clock.now())), signal)
        log.debug(`${create ? 'created' : 'updated'} ${what} (${api}, count ${w.count})`)
        return end('written')
      } catch (err) {
        if (signal.aborted) return final ? end('shutdown') : defer()
        const message = err instanceof Error ? err.message : String(err)
        switch (verdict(err, create, api)) {
          case 'fallback':
            state = { phase: 'on', api: 'v1' }
            log.info(`events.k8s.io/v1 is not served (${message}): writing core/v1 events`)
            continue
          case 'recreate':
            create = true // the object is gone (expired): create it again, with its series
            continue
          case 'written':
            return end('written')
          case 'forbidden':
            turnOff(err as KubeApiError)
            return end('forbidden')
          case 'reject':
            limited.warn(`rejected:${w.entry.spec.reason}`, `the API server rejected ${what}; dropped: ${message}`)
            return end('rejected')
          case 'retry': {
            const delay = Math.max(backoff.next(), err instanceof KubeApiError ? (err.retryAfterMs ?? 0) : 0)
            if (final || retries >= limits.maxRetries || clock.now() + delay > deadline) {
              limited.warn(`failed:${w.entry.spec.reason}`, `cannot write ${what} after ${retries + 1} attempts; dropped: ${message}`)
              return end(final ? 'shutdown' : 'failed')
            }
            retries++
            await sleep(clock, delay, signal)
            if (signal.aborted) return defer()
            continue
          }
        }
      }
    }
  }

  /** Until nothing is due (final) or `signal` aborts: writes what is due, or waits for it. */
  async function loop(signal: AbortSignal, final: boolean): Promise<void> {
    while (!signal.aborted && state.phase === 'on') {
      const w = book.next(clock.now(), final)
      if (w) {
        await write(w, signal, final)
        continue
      }
      if (final) return
      await idle(book.nextDueAt(), signal)
    }
  }

  /** Until `dueAt` (ms on the clock; never when undefined), a `record()` or the abort. */
  function idle(dueAt: number | undefined, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clock.clearTimeout(timer)
        signal.removeEventListener('abort', done)
        wake = undefined
        resolve()
      }
      const timer = dueAt === undefined ? undefined : clock.setTimeout(done, Math.max(0, dueAt - clock.now()))
      wake = done
      signal.addEventListener('abort', done, { once: true })
    })
  }

  return {
    record(o) {
      try {
        const specs = eventsOf(o, self)
        if (state.phase === 'off') return drop('disabled', specs.length)
        for (const spec of specs) dropAll(book.observe(spec, clock.now()))
        wake?.()
      } catch (err) {
        limited.error('record', `recording a ${o.reason} event failed:`, err)
      }
    },
    async run(signal) {
      if (started) throw new Error('EventRecorder.run(): run once')
      started = true
      await loop(signal, false)
      if (state.phase === 'off' || book.pending === 0) return
      const drain = new AbortController()
      const timer = clock.setTimeout(() => drain.abort(), limits.drainMs)
      try {
        await loop(drain.signal, true)
      } finally {
        clock.clearTimeout(timer)
      }
      drop('shutdown', book.clear())
    },
  }
}
