// Reconnect delays: exponential backoff with full jitter (docs/behaviour.md §7: 1 s → 30 s).

export interface BackoffPolicy {
  /** Ceiling of the first delay, ms (default 1,000). */
  readonly initialMs: number
  /** Largest ceiling, ms (default 30,000). */
  readonly maxMs: number
}

/**
 * The delay before the next attempt after `failures` consecutive failures (0 for the first):
 * uniform in [0, min(maxMs, initialMs · 2^failures)] ("full jitter", so that many collectors
 * reconnecting to one reducer after its restart spread out). `random` returns [0, 1).
 */
export function backoffDelay(failures: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(Math.max(0, failures), 52))
  return Math.floor(random() * (ceiling + 1))
}

/** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}
