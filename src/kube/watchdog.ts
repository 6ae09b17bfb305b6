// An inactivity timer that is cheap to kick on every chunk: one armed timeout, re-armed lazily.

/** Fires `onIdle` once when `kick()` was not called for `ms`; `stop()` disarms it for good. */
export interface Watchdog {
  kick(): void
  stop(): void
}

/**
 * Starts a watchdog. Kicking only records the time; the single timer, when it fires early,
 * re-arms itself for the remaining time, so a busy stream costs no timer churn per chunk.
 */
export function startWatchdog(ms: number, onIdle: () => void): Watchdog {
  let last = performance.now()
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const arm = (delay: number): void => {
    timer = setTimeout(check, Math.max(1, Math.ceil(delay)))
    // A watchdog must never keep a process alive on its own.
    ;(timer as { unref?: () => void }).unref?.()
  }
  const check = (): void => {
    if (stopped) return
    const idle = performance.now() - last
    if (idle >= ms) {
      stopped = true
      onIdle()
    } else {
      arm(ms - idle)
    }
  }
  arm(ms)
  return {
    kick(): void {
      last = performance.now()
    },
    stop(): void {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
    },
  }
}
