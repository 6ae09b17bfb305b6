// Exponential backoff with full jitter that resets after a healthy period, for every retry loop
// (docs/kube-api.md step 7; kube-rs's ResetTimerBackoff over an exponential backoff).

/** Backoff tuning; every field has the default of docs/kube-api.md step 7. */
export interface BackoffConfig {
  /** First ceiling, ms. Default 800. */
  readonly initialMs: number
  /** Largest ceiling, ms. Default 30,000. */
  readonly maxMs: number
  /** The ceiling doubles per consecutive failure. Default 2. */
  readonly factor: number
  /**
   * When no failure happened for this long (ms), the next failure starts from `initialMs` again.
   * Default 120,000 (2 minutes without errors).
   */
  readonly resetAfterMs: number
}

export const defaultBackoffConfig: BackoffConfig = { initialMs: 800, maxMs: 30_000, factor: 2, resetAfterMs: 120_000 }

/** A backoff sequence; `next()` is called once per failure. */
export interface Backoff {
  /** The delay before the next retry, ms: uniform in [0, ceiling) ("full jitter"); the ceiling then grows. */
  next(): number
  /** The ceiling the next `next()` draws from, ms (for logs and tests). */
  readonly ceilingMs: number
  /** Starts over from `initialMs` (also happens by itself after `resetAfterMs` without failures). */
  reset(): void
}

/**
 * Creates a backoff. `now` (ms) and `random` ([0, 1)) are injected so tests are deterministic.
 */
export function createBackoff(
  config: Partial<BackoffConfig> = {},
  now: () => number = Date.now,
  random: () => number = Math.random,
): Backoff {
  const c = { ...defaultBackoffConfig, ...config }
  let ceiling = c.initialMs
  let lastFailureAt = Number.NEGATIVE_INFINITY
  return {
    next(): number {
      const t = now()
      if (t - lastFailureAt >= c.resetAfterMs) ceiling = c.initialMs
      lastFailureAt = t
      const delay = Math.floor(random() * ceiling)
      ceiling = Math.min(c.maxMs, ceiling * c.factor)
      return delay
    },
    get ceilingMs(): number {
      return now() - lastFailureAt >= c.resetAfterMs ? c.initialMs : ceiling
    },
    reset(): void {
      ceiling = c.initialMs
      lastFailureAt = Number.NEGATIVE_INFINITY
    },
  }
}
