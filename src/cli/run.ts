// `k8s-collector run`: the collector itself (docs/behaviour.md, all of it); its options: run-options.ts.
import { defineCommand } from 'citty'
import { createCollector } from '../collector/collector.ts'
import { createKubeStreams } from '../collector/streams.ts'
import { startEvents } from '../events/index.ts'
import { createReducerLink } from '../link/index.ts'
import { configureLogger, logger } from '../observe/log.ts'
import { createRegistry } from '../observe/metrics.ts'
import { registerProcessMetrics } from '../observe/process.ts'
import { startHealthServer } from '../observe/http.ts'
import { describeKubeconfig } from './kubeconfig-source.ts'
import { cittyArgs } from './options.ts'
import { printableConfig, resolveRunConfig, RUN_OPTIONS, type CollectorConfig } from './run-options.ts'
import { processInputs, reportUsageError, untilSignal } from './shared.ts'
import { VERSION } from './version.ts'

/** How long shutdown may take before the process exits anyway (issue: exit 0 within 5 s). */
const SHUTDOWN_LIMIT_MS = 4_500

export default defineCommand({
  meta: { name: 'run', description: 'Watch pods, ReplicaSets and Jobs and stream pod metadata to the reducer' },
  args: cittyArgs(RUN_OPTIONS),
  async run({ args: parsed, rawArgs }) {
    let config: CollectorConfig
    let printConfig: boolean
    try {
      ;({ config, printConfig } = resolveRunConfig(processInputs(rawArgs, parsed)))
    } catch (err) {
      reportUsageError('run', err)
      return
    }
    if (printConfig) {
      process.stdout.write(JSON.stringify(printableConfig(config), null, 2) + '\n')
      return
    }
    configureLogger({ level: config.logLevel, format: config.logFormat })
    const log = logger.withTag('run')
    const registry = createRegistry()
    registerProcessMetrics(registry)
    const abort = new AbortController()

    let streams
    try {
      streams = createKubeStreams({ kubeconfig: config.kubeconfig, registry, signal: abort.signal, silenceLimitMs: config.apiSilenceLimitSecs * 1000 })
    } catch (err) {
      log.error(`cannot load the Kubernetes configuration: ${(err as Error).message}`)
      process.exitCode = 1
      return
    }
    // Kubernetes Events about this pod (docs/events.md): POD_NAME, POD_NAMESPACE, POD_UID, K8S_COLLECTOR_EVENTS.
    const events = startEvents({ env: process.env, kubeconfig: config.kubeconfig, registry, signal: abort.signal })
    const collector = createCollector(
      {
        deleteTtlSecs: config.deleteTtlSecs,
        deleteCapacity: config.deleteCapacity,
        waitingLimit: config.waitingLimit,
        primingTimeoutSecs: config.primingTimeoutSecs,
      },
      {
        streams,
        registry,
        events: events.reporter,
        link: createReducerLink(
          {
            host: config.intakeHost,
            port: config.intakePort,
            hostname: config.hostname,
            labels: config.labels,
            version: config.version,
            heartbeatIntervalMs: config.heartbeatIntervalSecs * 1000,
            peerSilentMs: config.reducerSilenceLimitSecs * 1000,
          },
          { registry },
        ),
      },
    )

    let health
    try {
      health = await startHealthServer({ ...config.httpListen, ready: () => collector.readiness(), metrics: registry })
    } catch (err) {
      log.error((err as Error).message)
      process.exitCode = 1
      return
    }
    const { major, minor, patch } = config.version
    log.info(
      `k8s-collector ${VERSION} (wire ${major}.${minor}.${patch}) as ${config.hostname} → reducer ${config.intakeHost}:${config.intakePort}; ` +
        `health and metrics on http://${config.httpListen.host}:${health.port}`,
    )
    // The runtime and its flags (scripts/v8-flags.json: the shebang and the executables apply them).
    log.info(`runtime: ${runtimeName()}${process.execArgv.length ? ` with ${process.execArgv.join(' ')}` : ''}`)
    log.info(`kubeconfig: ${describeKubeconfig(config.kubeconfigSource)}`)

    const running = collector.run(abort.signal)
    const outcome = await Promise.race([untilSignal(), running.then(() => 'done' as const)])
    if (outcome !== 'done') log.info(`${outcome}: shutting down`)
    abort.abort()
    const limit = setTimeout(() => {
      log.warn('shutdown took too long; exiting')
      process.exit(0)
    }, SHUTDOWN_LIMIT_MS)
    limit.unref?.()
    await Promise.all([running, events.done])
    await health.close()
    clearTimeout(limit)
    log.info('stopped')
  },
})

/** `deno 2.x` or `node v22.x`, for the startup log. */
function runtimeName(): string {
  const deno = (globalThis as { Deno?: { version?: { deno?: string } } }).Deno
  return deno?.version?.deno ? `deno ${deno.version.deno}` : `node ${process.version}`
}
