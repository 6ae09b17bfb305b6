// `k8s-collector tap`: a reducer-compatible sink that shows what collectors send (src/tap/README.md);
// its options: tap-options.ts.
import { defineCommand } from 'citty'
import { configureLogger, logger } from '../observe/log.ts'
import { formatRecord, isKeepAlive, startTap, type Tap, type TapRecord } from '../tap/index.ts'
import { cittyArgs, resolveOptions, type Values } from './options.ts'
import { processInputs, reportUsageError, untilSignal } from './shared.ts'
import { TAP_OPTIONS } from './tap-options.ts'

export default defineCommand({
  meta: {
    name: 'tap',
    description: 'A reducer-compatible sink: accepts collector connections and shows what they send',
  },
  args: cittyArgs(TAP_OPTIONS),
  async run({ args: parsed, rawArgs }) {
    let config: Values<typeof TAP_OPTIONS>
    try {
      config = resolveOptions(TAP_OPTIONS, processInputs(rawArgs, parsed))
    } catch (err) {
      reportUsageError('tap', err)
      return
    }
    configureLogger({ level: config.logLevel, format: config.logFormat })
    const log = logger.withTag('tap')

    const color = process.stdout.isTTY === true && !process.env.NO_COLOR
    const print = config.print
      ? (record: TapRecord): void => {
          if (config.heartbeats || !isKeepAlive(record)) process.stdout.write(formatRecord(record, { color }) + '\n')
        }
      : undefined

    // Armed before the listening line, so that a SIGTERM right after it still shuts down cleanly.
    const stopping = untilSignal()
    let tap: Tap
    try {
      tap = await startTap({
        listen: config.listen,
        ...(config.http ? { http: config.http } : {}),
        ...(config.out !== undefined ? { out: config.out } : {}),
        silenceTimeoutMs: Math.round(config.silenceTimeoutSecs * 1000),
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

    const signal = await stopping
    log.info(`${signal}: shutting down`)
    await tap.close()
    const totals = tap.state().totals
    log.info(`closed: ${totals.open + totals.closed} connections, ${totals.messages} messages`)
  },
})
