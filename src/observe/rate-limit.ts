// Rate-limited logging: the same key is logged at most once per interval, and the next line that
// gets through says how many repeats were suppressed (style.md §7: nothing swallowed silently).
import { systemClock, type Clock } from '../util/clock.ts'

/** The logger methods used (a consola instance, or `logger.withTag('…')`, fits). */
export interface LogSink {
  error(...args: unknown[]): void
  warn(...args: unknown[]): void
  info(...args: unknown[]): void
  debug(...args: unknown[]): void
}

export type LogLevel = keyof LogSink

export interface RateLimitOptions {
  /** Minimum time between two lines with the same key, ms. Default 60,000 (one a minute). */
  readonly intervalMs?: number
  /** Keys remembered at most; the least recently logged are forgotten first. Default 1,000. */
  readonly maxKeys?: number
  /** The clock the interval is measured on. Default: the system clock. */
  readonly clock?: Pick<Clock, 'now'>
}

/** Logs through `sink`, at most once per key and interval. */
export interface RateLimitedLog {
  /**
   * Logs `message` (plus `args`) at `level` unless `key` was logged less than the interval ago, in
   * which case it only counts a suppressed repeat. Returns whether the line was written.
   */
  log(level: LogLevel, key: string, message: string, ...args: unknown[]): boolean
  error(key: string, message: string, ...args: unknown[]): boolean
  warn(key: string, message: string, ...args: unknown[]): boolean
  info(key: string, message: string, ...args: unknown[]): boolean
  debug(key: string, message: string, ...args: unknown[]): boolean
  /** Repeats suppressed so far for `key` since its last written line. */
  suppressed(key: string): number
  /** Forgets `key`, so that its next line is written at once (a new episode: something else happened in between). */
  forget(key: string): void
}

interface KeyState {
  lastAt: number
  suppressed: number
}

/** A rate-limited log writing to `sink` (see {@link RateLimitOptions} for the interval and the clock). */
export function createRateLimitedLog(sink: LogSink, opts: RateLimitOptions = {}): RateLimitedLog {
  const intervalMs = opts.intervalMs ?? 60_000
  const maxKeys = Math.max(1, opts.maxKeys ?? 1_000)
  const clock = opts.clock ?? systemClock
  // Map iteration order = insertion order: re-inserting on every written line keeps the least
  // recently logged key first, which is the one evicted.
  const keys = new Map<string, KeyState>()

  function log(level: LogLevel, key: string, message: string, ...args: unknown[]): boolean {
    const t = clock.now()
    const known = keys.get(key)
    if (known && t - known.lastAt < intervalMs) {
      known.suppressed++
      return false
    }
    const repeats = known?.suppressed ?? 0
    keys.delete(key)
    keys.set(key, { lastAt: t, suppressed: 0 })
    if (keys.size > maxKeys) keys.delete(keys.keys().next().value!)
    sink[level](repeats > 0 ? `${message} (${repeats} repeats suppressed)` : message, ...args)
    return true
  }

  return {
    log,
    error: (key, message, ...args) => log('error', key, message, ...args),
    warn: (key, message, ...args) => log('warn', key, message, ...args),
    info: (key, message, ...args) => log('info', key, message, ...args),
    debug: (key, message, ...args) => log('debug', key, message, ...args),
    suppressed: (key) => keys.get(key)?.suppressed ?? 0,
    forget: (key) => void keys.delete(key),
  }
}
