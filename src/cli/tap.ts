// `k8s-collector tap`: a reducer-compatible sink that shows what collectors send (src/tap/README.md).
import { defineCommand } from 'citty'
import { ConfigError, parseHostPort } from '../collector/config.ts'
import { rejectUnknownArgs, untilSignal } from './shared.ts'
import { configureLogger, logger, type LogFormat, type LogLevelName } from '../observe/log.ts'
import { formatRecord, isKeepAlive, startTap, TAP_DEFAULTS, type ListenAddress, type Tap, type TapRecord } from '../tap/index.ts'

const LOG_LEVELS: readonly LogLevelName[] = ['silent', 'error', 'warn', 'info', 'debug', 'trace']

const args = {
  listen: { type: 'string', default: '0.0.0.0:8000', valueHint: 'HOST:PORT', description: 'Where collectors connect (the reducer ingest port)' },
  http: { type: 'string', default: '0.0.0.0:8081', valueHint: 'HOST:PORT', description: 'HTTP API: /state, /events, /healthz (`none` or --no-http: off)' },
  out: { type: 'string', valueHint: 'FILE.jsonl', description: 'Also write every record to FILE as JSON lines (truncated at start)' },
  print: { type: 'boolean', description: 'Print one line per message on stdout (default: when stdout is a terminal)' },
  heartbeats: { type: 'boolean', default: false, description: 'Also print heartbeats and healthy collector_health' },
  'silence-timeout': { type: 'string', default: String(TAP_DEFAULTS.silenceTimeoutMs / 1000), valueHint: 'SECONDS', description: 'Close a connection silent for this long (reducer: 30)' },
  'max-events': { type: 'string', default: String(TAP_DEFAULTS.maxEvents), valueHint: 'N', description: 'Records kept in memory for /events' },
  'log-level': { type: 'string', default: 'info', valueHint: 'LEVEL', description: `Log level on stderr: ${LOG_LEVELS.join(', ')}` },
  'log-format': { type: 'string', valueHint: 'pretty|json', description: 'Log format (default: json when stderr is not a terminal)' },
} as const

/** The tap command's inputs, validated. */
interface TapCommandConfig {
  readonly listen: ListenAddress
  readonly http?: ListenAddress
  readonly out?: string
  readonly print: boolean
  readonly heartbeats: boolean
  readonly silenceTimeoutMs: number
  readonly maxEvents: number
  readonly logLevel: LogLevelName
  readonly logFormat: LogFormat
}

function positiveNumber(flag: string, text: string, integer: boolean): number {
  const ok = integer ? /^\d+$/.test(text.trim()) : /^\d+(\.\d+)?$/.test(text.trim())
  const n = Number(text)
  if (!ok || !(n > 0)) throw new ConfigError(`--${flag}=${JSON.stringify(text)} is not a positive ${integer ? 'whole ' : ''}number`)
  return n
}

/** Validates the parsed flags; throws {@link ConfigError} (exit code 2) on bad input. */
function resolveTapConfig(parsed: Record<string, unknown>): TapCommandConfig {
  rejectUnknownArgs(parsed, args)

  const text = (name: keyof typeof args): string | undefined => {
    const v = parsed[name]
    return typeof v === 'string' ? v : undefined
  }
  const httpText = parsed.http === false ? 'none' : (text('http') ?? '0.0.0.0:8081')
  const level = text('log-level') ?? 'info'
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new ConfigError(`--log-level=${JSON.stringify(level)} is not one of ${LOG_LEVELS.join(', ')}`)
  const format = text('log-format') ?? (process.stderr.isTTY ? 'pretty' : 'json')
  if (format !== 'pretty' && format !== 'json') throw new ConfigError(`--log-format=${JSON.stringify(format)} is not pretty or json`)
  const out = text('out')
  if (out === '') throw new ConfigError('--out needs a file name')
  return {
    listen: parseHostPort(text('listen') ?? '', '--listen'),
    ...(httpText === 'none' ? {} : { http: parseHostPort(httpText, '--http') }),
    ...(out !== undefined ? { out } : {}),
    print: typeof parsed.print === 'boolean' ? parsed.print : process.stdout.isTTY === true,
    heartbeats: parsed.heartbeats === true,
    silenceTimeoutMs: Math.round(positiveNumber('silence-timeout', text('silence-timeout') ?? '', false) * 1000),
    maxEvents: positiveNumber('max-events', text('max-events') ?? '', true),
    logLevel: level as LogLevelName,
    logFormat: format,
  }
}

export default defineCommand({
  meta: {
    name: 'tap',
    description: 'A reducer-compatible sink: accepts collector connections and shows what they send',
  },
  args,
  async run({ args: parsed }) {
    let config: TapCommandConfig
    try {
      config = resolveTapConfig(parsed as Record<string, unknown>)
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err
      process.stderr.write(`k8s-collector tap: ${err.message}\n`)
      process.exitCode = 2
      return
    }
    configureLogger({ level: config.logLevel, format: config.logFormat })
    // stdout carries the message lines only (pipe-friendly: `tap --print | grep pod_delete`);
    // every log line goes to stderr.
    logger.options.stdout = process.stderr
    const log = logger.withTag('tap')

    const color = process.stdout.isTTY === true && !process.env.NO_COLOR
    const print = config.print
      ? (record: TapRecord): void => {
          if (config.heartbeats || !isKeepAlive(record)) process.stdout.write(formatRecord(record, { color }) + '\n')
        }
      : undefined

    let tap: Tap
    try {
      tap = await startTap({
        listen: config.listen,
        ...(config.http ? { http: config.http } : {}),
        ...(config.out !== undefined ? { out: config.out } : {}),
        silenceTimeoutMs: config.silenceTimeoutMs,
        maxEvents: config.maxEvents,
        ...(print ? { onRecord: print } : {}),
      })
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      log.error(`cannot start: ${e.code ? `${e.code} ` : ''}${e.message}`)
      process.exitCode = 1
      return
    }
    const http = config.http ? `, HTTP API on http://${config.http.host}:${tap.httpPort} (/state, /events, /healthz)` : ''
    log.info(`listening for collectors on ${config.listen.host}:${tap.tcpPort}${http}${config.out ? `, writing ${config.out}` : ''}`)

    const signal = await untilSignal()
    log.info(`${signal}: shutting down`)
    await tap.close()
    const totals = tap.state().totals
    log.info(`closed: ${totals.open + totals.closed} connections, ${totals.messages} messages`)
  },
})
