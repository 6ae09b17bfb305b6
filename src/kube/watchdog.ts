// An inactivity timer that is cheap to kick on every chunk: one armed timeout, re-armed lazily,
// on an injected clock (the silence rule of every request, docs/behaviour.md §12, and the
// initial-events timeout; tested on fake time).
import type { Clock, TimerHandle } from '../util/clock.ts'

/** Fires `onIdle` once when `kick()` was not called for `ms`; `stop()` disarms it for good. */
export interface Watchdog {
  kick(): void
  stop(): void
}

/**
 * Starts a watchdog on `clock`. Kicking only records the time; the single timer, when it fires
 * early, re-arms itself for the remaining time, so a busy stream costs no timer churn per chunk.
 * `onIdle` gets the time since the last kick (at least `ms`; more when the timer ran late).
 */
export function startWatchdog(clock: Clock, ms: number, onIdle: (idleMs: number) => void): Watchdog {
  let last = clock.now()
  let stopped = false
  let timer: TimerHandle | undefined
  const arm = (delay: number): void => {
    timer = clock.setTimeout(check, Math.max(1, Math.ceil(delay)))
    // A watchdog must never keep a process alive on its own (the system clock's handles are Node timers).
    ;(timer as { unref?: () => void }).unref?.()
  }
  const check = (): void => {
    if (stopped) return
    const idle = clock.now() - last
    if (idle >= ms) {
      stopped = true
      onIdle(idle)
    } else {
      arm(ms - idle)
    }
  }
  arm(ms)
  return {
    kick(): void {
      last = clock.now()
    },
    stop(): void {
      stopped = true
      clock.clearTimeout(timer)
    },
  }
}
