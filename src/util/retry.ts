// Retrying a stream of attempts (kube-rs StreamBackoff): after an item that reports a failure, the
// source is pulled again only once that failure's delay has passed on the clock. Written as a plain
// iterator (no async generator per item), as it wraps a stream of one item per watch line.
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
 * the consumer (a log) sees it before the wait. Closing it closes `source`.
 */
export function retryAfterFailures<T extends object>(source: AsyncIterable<T>, policy: RetryPolicy<T>): AsyncIterableIterator<Retried<T>> {
  const it = source[Symbol.asyncIterator]()
  let wait: number | undefined
  const passOn = (r: IteratorResult<T>): IteratorResult<Retried<T>> => {
    if (r.done) return r
    wait = policy.delayAfter(r.value)
    return wait === undefined ? r : { done: false, value: { ...r.value, retryInMs: wait } }
  }
  return {
    [Symbol.asyncIterator]() {
      return this
    },
    next() {
      if (wait === undefined) return it.next().then(passOn)
      const ms = wait
      wait = undefined
      return sleep(policy.clock, ms, policy.signal).then(() => it.next().then(passOn))
    },
    async return(value?: unknown) {
      wait = undefined
      return (await it.return?.(value)) ?? { done: true, value: undefined }
    },
  }
}
