// A fake Clock (src/util/clock.ts) for tests: time moves only when the test advances it, and the
// timers that fall due run in order, with the promise jobs they start settled in between.
import type { Clock, TimerHandle } from '../../src/util/clock.ts'

interface Pending {
  readonly id: number
  readonly at: number
  readonly fn: () => void
}

export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, running every timer due on the way (and what they schedule). */
  advance(ms: number): Promise<void>
  /** Settles pending promise jobs and I/O callbacks without moving time. */
  settle(): Promise<void>
  /** Timers not yet run. */
  readonly pending: number
}

/** Lets promise jobs and already-due I/O callbacks run (a macrotask turn of the real event loop). */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** A fake clock starting at `startMs` (wall-clock ms). */
export function createFakeClock(startMs = 1_700_000_000_000): FakeClock {
  let now = startMs
  let nextId = 1
  const timers = new Map<number, Pending>()

  async function settle(): Promise<void> {
    for (let i = 0; i < 3; i++) await turn()
  }

  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++
      timers.set(id, { id, at: now + Math.max(0, ms), fn })
      return { __timer: id } as TimerHandle
    },
    clearTimeout(timer) {
      if (timer) timers.delete(timer.__timer as number)
    },
    async advance(ms) {
      const until = now + ms
      await settle()
      for (;;) {
        let due: Pending | undefined
        for (const t of timers.values()) if (t.at <= until && (!due || t.at < due.at || (t.at === due.at && t.id < due.id))) due = t
        if (!due) break
        timers.delete(due.id)
        now = Math.max(now, due.at)
        due.fn()
        await settle()
      }
      now = until
      await settle()
    },
    settle,
    get pending() {
      return timers.size
    },
  }
}
