// Retrying a stream of attempts (kube-rs StreamBackoff): after an item that reports a failure, the
// source is pulled again only once that failure's delay has passed on the clock.
import { sleep, type Clock } from './clock.ts'

/** When and how long a retried stream waits. */
export interface RetryPolicy<T> {
  /** The delay (ms) to wait after `item` before the next one; undefined when `item` is no failure. */
  delayAfter(item: T): number | undefined
  readonly clock: Clock
  /** Cuts a wait short; ending the stream is then up to the source. */
  readonly signal?: AbortSignal
}

/** An item of a retried stream; a failed one carries the delay waited before the next item. */
export type Retried<T> = T & { readonly retryInMs?: number }

/**
 * Passes `source`'s items on; after each failure (as `policy.delayAfter` tells) it waits the delay
 * before pulling the source again. The failed item is passed on first, with `retryInMs` set, so
 * the consumer (a log) sees it before the wait.
 */
export async function* retryAfterFailures<T extends object>(source: AsyncIterable<T>, policy: RetryPolicy<T>): AsyncGenerator<Retried<T>, void, undefined> {
  for await (const item of source) {
    const delay = policy.delayAfter(item)
    if (delay === undefined) {
      yield item
      continue
    }
    yield { ...item, retryInMs: delay }
    await sleep(policy.clock, delay, policy.signal)
  }
}
