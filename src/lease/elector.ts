// Runs leader election for one Lease: drives the state machine (machine.ts) on a Clock — attempts
// every retry period, the renew deadline, backoff on refusals, release on cancel — and reports it
// as an AsyncIterable of events (docs/high-availability.md).
import { createBackoff, defaultBackoffConfig, type BackoffConfig } from '../util/backoff.ts'
import { sleep, type Clock, type TimerHandle } from '../util/clock.ts'
import { KubeApiError, type KubeError } from '../kube/errors.ts'
import { monotonicClock } from './clock.ts'
import { defaultElectionTiming, JITTER_FACTOR, LeaseConfigError, validateElectionTiming, type ElectionTiming } from './config.ts'
import { createEventQueue } from './event-queue.ts'
import type { ElectionEvent } from './events.ts'
import type { LeaseApi } from './lease-api.ts'
import { expire, step, stop, type ElectorState, type StepResult } from './machine.ts'

/** How to run an election; timing fields default to client-go's (config.ts). */
export interface ElectionOptions extends Partial<ElectionTiming> {
  /** This replica's holderIdentity; unique per process (config.ts `defaultIdentity()`). */
  readonly identity: string
  /** Cancels the election: a leader reports `lost` (reason `stopped`), releases the Lease, and the iteration ends. */
  readonly signal: AbortSignal
  /** Default {@link monotonicClock}. */
  readonly clock?: Clock
  /** [0, 1) for jitter and backoff. Default Math.random. */
  readonly random?: () => number
  /** Backoff while the API refuses (401, 403, 404 namespace): added to the retry period. Default src/util/backoff.ts. */
  readonly backoff?: Partial<BackoffConfig>
}

/**
 * Runs leader election on `api`'s Lease for as long as the result is iterated and `signal` is not
 * aborted. Starts as standby. Consume the events promptly: act as leader from `elected` until
 * `lost`, at once. Leaving the loop early (break) cancels like `signal`; the iteration ends once the
 * Lease is released (or the release gave up after the renew deadline).
 * Throws {@link LeaseConfigError} at once when the timing or identity is invalid.
 */
export function runElection(api: LeaseApi, opts: ElectionOptions): AsyncIterable<ElectionEvent> {
  const timing: ElectionTiming = {
    leaseDurationMs: opts.leaseDurationMs ?? defaultElectionTiming.leaseDurationMs,
    renewDeadlineMs: opts.renewDeadlineMs ?? defaultElectionTiming.renewDeadlineMs,
    retryPeriodMs: opts.retryPeriodMs ?? defaultElectionTiming.retryPeriodMs,
  }
  const problem = validateElectionTiming(timing) ?? (opts.identity === '' ? 'the identity must not be empty' : undefined)
  if (problem) throw new LeaseConfigError(problem)
  let started = false
  return {
    [Symbol.asyncIterator]() {
      if (started) throw new Error('an election is iterated once')
      started = true
      const cancel = new AbortController()
      const onAbort = (): void => cancel.abort()
      if (opts.signal.aborted) cancel.abort()
      else opts.signal.addEventListener('abort', onAbort, { once: true })
      const queue = createEventQueue<ElectionEvent>()
      const finished = drive(api, timing, opts, cancel.signal, queue.push)
        .then(() => queue.close(), (err: unknown) => queue.fail(err))
        .finally(() => opts.signal.removeEventListener('abort', onAbort))
      return {
        next: () => queue.next(),
        async return() {
          cancel.abort()
          await finished
          return { value: undefined, done: true }
        },
      }
    },
  }
}

async function drive(api: LeaseApi, t: ElectionTiming, opts: ElectionOptions, signal: AbortSignal, emit: (ev: ElectionEvent) => void): Promise<void> {
  const clock = opts.clock ?? monotonicClock
  const random = opts.random ?? Math.random
  const backoffConfig = { ...defaultBackoffConfig, ...opts.backoff }
  const backoff = createBackoff(backoffConfig, () => clock.now(), random)
  let state: ElectorState = { type: 'standby', seen: undefined }
  let consecutive = 0
  let releaseBy = Number.POSITIVE_INFINITY
  const apply = (r: StepResult): ElectorState => {
    for (const ev of r.events) emit(ev)
    return r.next
  }
  // Past this instant (local clock) the current state may not continue: a leader's renew deadline, the release's time limit.
  const deadlineOf = (s: ElectorState): number =>
    s.type === 'leader' ? s.renewedAt + t.renewDeadlineMs : s.type === 'releasing' ? releaseBy : Number.POSITIVE_INFINITY

  while (state.type !== 'stopped') {
    if (signal.aborted && (state.type === 'standby' || state.type === 'leader')) {
      state = apply(stop(state, opts.identity))
      releaseBy = clock.now() + t.renewDeadlineMs
      continue
    }
    if (clock.now() >= deadlineOf(state)) {
      // A leader drops at once; a release not confirmed in time is left to expire by itself.
      state = state.type === 'leader' ? apply(expire(state)) : { type: 'stopped' }
      continue
    }
    const attempt = new AbortController()
    const ctx = { api, identity: opts.identity, leaseDurationSeconds: t.leaseDurationMs / 1000, now: () => clock.now(), signal: attempt.signal }
    const result = await beforeDeadline(step(state, ctx), deadlineOf(state), clock)
    if (result === undefined) {
      attempt.abort() // its outcome no longer matters: the deadline is handled at the top
      continue
    }
    state = apply(result)
    if (result.failure) {
      consecutive++
      emit({ type: 'error', ...result.failure, consecutive })
    } else {
      consecutive = 0
      backoff.reset()
    }
    const wait = Math.min(waitAfter(state, result.failure?.error), deadlineOf(state) - clock.now())
    // A release keeps going after the cancel that started it.
    if (wait > 0) await sleep(clock, wait, state.type === 'releasing' ? undefined : signal)
  }

  function waitAfter(next: ElectorState, failure: KubeError | undefined): number {
    switch (next.type) {
      case 'leader':
        return t.retryPeriodMs
      case 'releasing':
        return failure ? t.retryPeriodMs : 0
      case 'stopped':
        return 0
      case 'standby': {
        // Jitter within [1, 1.2) retry periods keeps standbys apart and a released Lease taken within 1.2 of them.
        const jittered = Math.round(t.retryPeriodMs * (1 + (JITTER_FACTOR - 1) * random()))
        if (failure === undefined) {
          // Try again the moment a foreign holder's lease expires rather than up to a retry period later.
          const r = next.seen?.record
          const expiresIn = r && r.holderIdentity !== '' && r.holderIdentity !== opts.identity ? next.seen!.at + r.leaseDurationSeconds * 1000 - clock.now() : 0
          return expiresIn > 0 ? Math.min(jittered, expiresIn) : jittered
        }
        if (!(failure instanceof KubeApiError)) return jittered
        if (failure.status === 401 || failure.status === 403 || failure.status === 404) return jittered + backoff.next()
        return Math.max(jittered, Math.min(failure.retryAfterMs ?? 0, backoffConfig.maxMs))
      }
      default:
        return next satisfies never
    }
  }
}

/** `work`'s result, or undefined when `deadline` (local clock) comes first. */
async function beforeDeadline<T>(work: Promise<T>, deadline: number, clock: Clock): Promise<T | undefined> {
  if (deadline === Number.POSITIVE_INFINITY) return work
  let timer: TimerHandle | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = clock.setTimeout(() => resolve(undefined), Math.max(0, deadline - clock.now()))
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clock.clearTimeout(timer)
  }
}
