// The liveness check of a shared HTTP/2 connection to the API server: a PING after a quiet spell,
// the connection declared dead when no answer comes in time (client-go's HTTP/2 health check,
// docs/dead-links.md §2.2, docs/behaviour.md §12). A small unit on an injected clock.
import type { Clock, TimerHandle } from '../util/clock.ts'
import { startWatchdog, type Watchdog } from './watchdog.ts'

/** When to ask and how long to wait; both ms. */
export interface LivenessTimes {
  /** Nothing received from the server for this long → send a PING. client-go: 30 s. */
  readonly quietMs: number
  /** No answer to that PING (and nothing else received) within this long → dead. client-go: 15 s. */
  readonly answerMs: number
}

/** A running check. */
export interface Liveness {
  /** Something arrived from the server (a frame of any stream, a PING answer). */
  kick(): void
  /** Sends a PING now unless one is out (a request of the connection went silent). */
  probe(): void
  /** Stops for good (the connection closed). */
  stop(): void
}

/**
 * Starts the check: `ping(answered)` sends a PING and calls `answered()` when its answer comes;
 * `onDead(silentMs)` is called once, with the time since anything last arrived, when a PING was
 * not answered within `answerMs` and nothing else arrived meanwhile.
 */
export function startLiveness(clock: Clock, times: LivenessTimes, ping: (answered: () => void) => void, onDead: (silentMs: number) => void): Liveness {
  let stopped = false
  let lastHeard = clock.now()
  /** The PING out, if one is: sent at, and its deadline. */
  let out: { readonly timer: TimerHandle; readonly sentAt: number } | undefined
  let dog: Watchdog | undefined
  const heard = (): void => {
    lastHeard = clock.now()
    if (out === undefined) return
    clock.clearTimeout(out.timer)
    out = undefined
    watch()
  }
  const send = (): void => {
    if (stopped || out !== undefined) return
    dog?.stop()
    const sentAt = clock.now()
    const timer = clock.setTimeout(() => {
      if (stopped || out?.sentAt !== sentAt) return
      stopped = true
      onDead(clock.now() - lastHeard)
    }, times.answerMs)
    ;(timer as { unref?: () => void }).unref?.()
    out = { timer, sentAt }
    ping(() => {
      if (!stopped && out?.sentAt === sentAt) heard()
    })
  }
  const watch = (): void => {
    dog = startWatchdog(clock, times.quietMs, send)
  }
  watch()
  return {
    kick() {
      if (stopped) return
      if (out !== undefined) heard()
      else {
        lastHeard = clock.now()
        dog?.kick()
      }
    },
    probe: send,
    stop() {
      stopped = true
      dog?.stop()
      if (out !== undefined) clock.clearTimeout(out.timer)
      out = undefined
    },
  }
}
