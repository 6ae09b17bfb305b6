// The clock leader election runs on by default: wall-clock milliseconds that never jump.
import { systemClock, type Clock } from '../util/clock.ts'

/**
 * `now()` is the wall clock at process start plus monotonic time since (NTP slews it, nothing steps
 * it), so a wall-clock step cannot shorten or stretch a lease; the timestamps it writes stay within
 * any steps since start of the wall clock. Timers are the system's (already monotonic).
 */
export const monotonicClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: systemClock.setTimeout,
  clearTimeout: systemClock.clearTimeout,
}
