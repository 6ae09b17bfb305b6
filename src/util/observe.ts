// Watching a stream go by: an adapter that calls hooks as items are asked for, arrive and end,
// for wrappers that only look (stats, logs). It adds no async generator, so no promise of its own,
// per item: on a stream of one item per watch line that matters.

/** What an observer is told; every hook is synchronous. */
export interface Observer<T> {
  /** The next item is being asked for. */
  pull?(): void
  /** An item, before it is passed on. */
  item(item: T): void
  /** The stream ended, failed or was closed early (told once). */
  end?(): void
}

/** Passes `source`'s items on unchanged, telling `observer` about each step; closing it closes `source`. */
export function observe<T>(source: AsyncIterable<T>, observer: Observer<T>): AsyncIterableIterator<T> {
  const it = source[Symbol.asyncIterator]()
  let ended = false
  const end = (): void => {
    if (ended) return
    ended = true
    observer.end?.()
  }
  return {
    [Symbol.asyncIterator]() {
      return this
    },
    next() {
      observer.pull?.()
      return it.next().then(
        (r) => {
          if (r.done) end()
          else observer.item(r.value)
          return r
        },
        (err: unknown) => {
          end()
          throw err
        },
      )
    },
    async return(value?: unknown) {
      end()
      return (await it.return?.(value)) ?? { done: true, value: undefined }
    },
  }
}
