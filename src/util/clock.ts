// Time as a parameter: the wall clock and timers that every time-driven part takes, so that tests
// run it on fake time (e2e/harness/fake-clock.ts) instead of waiting on the real one.

/** An opaque handle of a pending timer. */
export type TimerHandle = { readonly __timer: unknown }

/** The clock and timers a component uses. */
export interface Clock {
  /** Wall clock, ms since the Unix epoch. */
  now(): number
  /** Calls `fn` once, `ms` from now. */
  setTimeout(fn: () => void, ms: number): TimerHandle
  /** Cancels a pending timer (no-op for `undefined` or one that already ran). */
  clearTimeout(timer: TimerHandle | undefined): void
}

/** The process's own clock and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms) as unknown as TimerHandle,
  clearTimeout: (timer) => clearTimeout(timer as unknown as ReturnType<typeof setTimeout>),
}

/** Resolves after `ms` on `clock`, or as soon as `signal` aborts; never rejects. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clock.clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = clock.setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
