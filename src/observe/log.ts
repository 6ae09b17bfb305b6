// The process-wide consola logger; each component takes its own tag with `logger.withTag()`.
import { createConsola, type ConsolaInstance, type LogObject } from 'consola'

/** The one logger of the process; `configureLogger` sets its level and format at start-up. Every
 * line goes to stderr, whatever its level: stdout belongs to what the commands print. */
export const logger: ConsolaInstance = createConsola({ level: 3, stdout: process.stderr, stderr: process.stderr })

export type LogFormat = 'pretty' | 'json'

/** The `--log-level` values, quietest first (the CLI's help and validation use this list). */
export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const
export type LogLevelName = (typeof LOG_LEVELS)[number]

const levels: Record<LogLevelName, number> = { silent: -999, error: 0, warn: 1, info: 3, debug: 4, trace: 5 }

/** Where log lines go; a terminal gets colours in the pretty format (unless NO_COLOR). */
export interface LogSinkStream {
  write(line: string): unknown
  readonly isTTY?: boolean
}

/**
 * Applies `--log-level` / `--log-format` to the shared logger. One line per entry on `stream`
 * (stderr by default): json is one object per line, pretty is `12:00:00.000 WARN [tag] message`.
 */
export function configureLogger(opts: { level: LogLevelName; format: LogFormat; stream?: LogSinkStream }): void {
  const stream = opts.stream ?? process.stderr
  logger.level = levels[opts.level]
  const line = opts.format === 'json' ? jsonLine : prettyLine(stream.isTTY === true && !process.env.NO_COLOR)
  logger.setReporters([{ log: (entry) => void stream.write(line(entry) + '\n') }])
}

const message = (entry: LogObject): string =>
  entry.args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ')

function jsonLine(entry: LogObject): string {
  return JSON.stringify({ time: entry.date.toISOString(), level: entry.type, component: entry.tag || undefined, msg: message(entry) })
}

/** SGR colour per consola level number (0 error/fatal, 1 warn, 4+ debug/trace). */
const LEVEL_COLOR: Record<number, number> = { 0: 31, 1: 33, 2: 0, 3: 36, 4: 90, 5: 90 }

function prettyLine(color: boolean): (entry: LogObject) => string {
  const paint = (code: number | undefined, s: string): string => (color && code ? `\x1b[${code}m${s}\x1b[0m` : s)
  return (entry) => {
    const time = entry.date.toISOString().slice(11, 23)
    const level = paint(LEVEL_COLOR[entry.level], entry.type.toUpperCase().padEnd(5))
    return `${paint(90, time)} ${level} ${entry.tag ? `[${entry.tag}] ` : ''}${message(entry)}`
  }
}
