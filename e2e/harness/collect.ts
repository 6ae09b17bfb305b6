// Test support: consumes a watch stream in the background and lets a test wait for events.
import type { StreamEvent } from '../../src/model/types.ts'

export interface Collected<T> {
  readonly events: StreamEvent<T>[]
  /** Resolves when the stream ended (returns the error if it threw). */
  readonly done: Promise<unknown>
  /** Resolves once `pred(events)` holds (checked per event and every 10 ms); rejects after `timeoutMs` with the events seen. */
  until(pred: (events: StreamEvent<T>[]) => boolean, timeoutMs?: number): Promise<void>
  /** Events after the `n`-th of `type` (1-based), e.g. everything after the second init. */
  after(type: StreamEvent<T>['type'], n?: number): StreamEvent<T>[]
}

export function collect<T>(stream: AsyncIterable<StreamEvent<T>>): Collected<T> {
  const events: StreamEvent<T>[] = []
  const waiters = new Set<() => void>()
  const wake = (): void => {
    for (const w of waiters) w()
  }
  let ended = false
  const done = (async () => {
    try {
      for await (const ev of stream) {
        events.push(ev)
        wake()
      }
      return undefined
    } catch (err) {
      return err
    } finally {
      ended = true
      wake()
    }
  })()
  return {
    events,
    done,
    until(pred, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const stop = (): void => {
          waiters.delete(check)
          clearTimeout(timer)
          clearInterval(poll)
        }
        const check = (): void => {
          if (pred(events)) {
            stop()
            resolve()
          } else if (ended) {
            stop()
            reject(new Error(`stream ended before the condition held; events: ${summary(events)}`))
          }
        }
        const timer = setTimeout(() => {
          stop()
          reject(new Error(`condition not met in ${timeoutMs} ms; events: ${summary(events)}`))
        }, timeoutMs)
        // Conditions on stats change without an event; poll them too.
        const poll = setInterval(check, 10)
        waiters.add(check)
        check()
      })
    },
    after(type, n = 1) {
      let seen = 0
      for (let i = 0; i < events.length; i++) {
        if (events[i].type === type && ++seen === n) return events.slice(i + 1)
      }
      return []
    },
  }
}

/** `init, initApply(a), initDone, apply(b) …` for failure messages. */
export function summary<T>(events: StreamEvent<T>[]): string {
  return events
    .map((e) => ('object' in e ? `${e.type}(${(e.object as { name?: string }).name})` : e.type))
    .join(', ')
}

/** Counts events of one type. */
export const count = <T>(events: StreamEvent<T>[], type: StreamEvent<T>['type']): number => events.filter((e) => e.type === type).length
