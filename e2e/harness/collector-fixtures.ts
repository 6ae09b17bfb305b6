// Test support for the collector's suites (imported by *.test.ts files alone): hand-fed watch streams.
import type { CollectorStream } from '../../src/collector/collector.ts'
import type { StreamHealth } from '../../src/collector/watch-health.ts'
import type { StreamEvent } from '../../src/model/index.ts'

/** A hand-fed stream: `push` events, count `relist` requests, set what `health()` says. */
export function scripted<T>(): CollectorStream<T> & { push(ev: StreamEvent<T>): void; end(): void; relists: number; contact: StreamHealth } {
  const queue: StreamEvent<T>[] = []
  let wake: (() => void) | undefined
  let ended = false
  const s = {
    relists: 0,
    contact: { lastContactMs: undefined, reachable: true } as StreamHealth,
    health: () => s.contact,
    push(ev: StreamEvent<T>) {
      queue.push(ev)
      wake?.()
    },
    end() {
      ended = true
      wake?.()
    },
    relist() {
      s.relists++
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift()!
        if (ended) return
        await new Promise<void>((r) => (wake = r))
      }
    },
  }
  return s
}
