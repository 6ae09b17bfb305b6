// Retry-After: a failure whose server said when to come back is not retried sooner than that, and
// never later than a cap, so a bogus header cannot stall a stream (docs/kube-api.md step 7).
import type { Backoff } from './backoff.ts'

/** The delay before a retry, ms, given the server's `Retry-After` in ms (undefined when it sent none). */
export type RetryDelay = (retryAfterMs: number | undefined) => number

/**
 * Delays from `backoff`, each raised to the server's `Retry-After` (capped at `maxRetryAfterMs`)
 * when that is longer. The backoff advances on every failure, with or without the header.
 */
export function withRetryAfter(backoff: Backoff, maxRetryAfterMs: number): RetryDelay {
  return (retryAfterMs) => {
    const delay = backoff.next()
    return retryAfterMs === undefined ? delay : Math.max(delay, Math.min(retryAfterMs, maxRetryAfterMs))
  }
}
