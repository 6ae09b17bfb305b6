// A token bucket on an injected clock: `capacity` writes at once, then one per refill interval, so
// any window of T ms allows at most capacity + T / refillEveryMs writes.

export interface TokenBucketConfig {
  /** Tokens when full (the burst). */
  readonly capacity: number
  /** One token comes back every this many ms. */
  readonly refillEveryMs: number
}

/** A bucket that starts full. */
export interface TokenBucket {
  /** Takes a token if one is there; false otherwise (nothing taken). */
  take(): boolean
  /** How long until a token is there, ms (0 when one is). */
  waitMs(): number
}

/** Creates a full bucket; `now` is the clock in ms. */
export function createTokenBucket(config: TokenBucketConfig, now: () => number): TokenBucket {
  // Whole tokens only, and `since` the instant the next one started to accrue: no float drift.
  let tokens = config.capacity
  let since = now()
  const refill = (): number => {
    const t = now()
    const earned = Math.floor((t - since) / config.refillEveryMs)
    tokens = Math.min(config.capacity, tokens + earned)
    since = tokens === config.capacity ? t : since + earned * config.refillEveryMs
    return t
  }
  return {
    take() {
      refill()
      if (tokens < 1) return false
      tokens -= 1
      return true
    },
    waitMs() {
      const t = refill()
      return tokens >= 1 ? 0 : since + config.refillEveryMs - t
    },
  }
}
