// An unbounded single-consumer queue behind an AsyncIterator: a producer loop pushes, the owner pulls.

/** The producer's side and the consumer's `next()`. */
export interface EventQueue<T> {
  push(value: T): void
  /** No more values: `next()` reports done once the queue is drained. */
  close(): void
  /** The producer failed: `next()` rejects with `error` once the queue is drained. */
  fail(error: unknown): void
  next(): Promise<IteratorResult<T, undefined>>
}

/** Creates an empty queue. */
export function createEventQueue<T>(): EventQueue<T> {
  const items: T[] = []
  let end: { readonly error?: unknown } | undefined
  let waiter: { resolve(r: IteratorResult<T, undefined>): void; reject(err: unknown): void } | undefined
  const settle = (): void => {
    if (!waiter) return
    const w = waiter
    if (items.length > 0) {
      waiter = undefined
      w.resolve({ value: items.shift()!, done: false })
    } else if (end) {
      waiter = undefined
      if ('error' in end) w.reject(end.error)
      else w.resolve({ value: undefined, done: true })
    }
  }
  return {
    push(value) {
      items.push(value)
      settle()
    },
    close() {
      end ??= {}
      settle()
    },
    fail(error) {
      end ??= { error }
      settle()
    },
    next() {
      if (waiter) return Promise.reject(new Error('next() called again before the previous call settled'))
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject }
        settle()
      })
    },
  }
}
