// The process-wide consola logger; each component takes its own tag with `logger.withTag()`.
import { createConsola, type ConsolaInstance } from 'consola'

/** The one logger of the process; `configureLogger` sets its level and format at start-up. */
export const logger: ConsolaInstance = createConsola({ level: 3 })

export type LogFormat = 'pretty' | 'json'

/** The `--log-level` values, quietest first (the CLI's help and validation use this list). */
export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const
export type LogLevelName = (typeof LOG_LEVELS)[number]

const levels: Record<LogLevelName, number> = { silent: -999, error: 0, warn: 1, info: 3, debug: 4, trace: 5 }

/** Applies `--log-level` / `--log-format` to the shared logger (json: one object per line on stderr). */
export function configureLogger(opts: { level: LogLevelName; format: LogFormat }): void {
  logger.level = levels[opts.level]
  if (opts.format === 'json') {
    logger.setReporters([
      {
        log(entry) {
          const line = {
            time: entry.date.toISOString(),
            level: entry.type,
            component: entry.tag || undefined,
            msg: entry.args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' '),
          }
          process.stderr.write(JSON.stringify(line) + '\n')
        },
      },
    ])
  }
}
