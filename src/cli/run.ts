// `k8s-collector run`: the collector itself (docs/behaviour.md, all of it); its options: run-options.ts.
import { defineCommand } from 'citty'
import { createCollector } from '../collector/collector.ts'
import { createLeadership, type Leadership } from '../collector/leadership.ts'
import { createKubeStreams } from '../collector/streams.ts'
import { startEvents, type EventReporter } from '../events/index.ts'
import { createKubeClient, type KubeWriteClient } from '../kube/index.ts'
import { createLeaseApi, monotonicClock, runElection } from '../lease/index.ts'
import { createReducerLink } from '../link/index.ts'
import { createModelContext } from '../model/index.ts'
import { configureLogger, logger } from '../observe/log.ts'
import { createRegistry, type Registry } from '../observe/metrics.ts'
import { registerBuildInfo, registerProcessMetrics, runtimeInfo } from '../observe/process.ts'
import { startMemoryWatch } from '../observe/memory.ts'
import { startHealthServer } from '../observe/http.ts'
import { describeKubeconfig } from './kubeconfig-source.ts'
import { cittyArgs } from './options.ts'
import { printableConfig, resolveRunConfig, RUN_OPTIONS, type CollectorConfig, type LeaderElectionConfig } from './run-options.ts'
import { processInputs, reportUsageError, untilSignal } from './shared.ts'
import { VERSION } from './version.ts'

/** How long shutdown may take before the process exits anyway (issue: exit 0 within 5 s). */
const SHUTDOWN_LIMIT_MS = 4_500
/** The link's default bound on a clean close (src/link/config.ts closeTimeoutMs). */
const CLOSE_TIMEOUT_MS = 2_000

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
    // Armed before anything is logged or started, so that an early SIGTERM still shuts down cleanly.
    const stopping = untilSignal()
    const registry = createRegistry()
    registerProcessMetrics(registry)
    registerBuildInfo(registry, { version: VERSION })
    const abort = new AbortController()
    const model = createModelContext() // the collector's caches: its streams' converters and its core share them

    let client: KubeWriteClient
    try {
      client = createKubeClient({ ...(config.kubeconfig ? { kubeconfigPath: config.kubeconfig } : {}), silenceLimitMs: config.apiSilenceLimitSecs * 1000, compression: config.apiCompression, encoding: config.apiEncoding, streamingList: config.apiList === 'pages' ? 'never' : 'auto' })
    } catch (err) {
      log.error(`cannot load the Kubernetes configuration: ${(err as Error).message}`)
      process.exitCode = 1
      return
    }
    const streams = createKubeStreams({ client, registry, signal: abort.signal, silenceLimitMs: config.apiSilenceLimitSecs * 1000, model, pageSize: config.apiPageSize })
    // Kubernetes Events about this pod (docs/events.md): POD_NAME, POD_NAMESPACE, POD_UID, K8S_COLLECTOR_EVENTS.
    // They stop after the collector, so that what its shutdown reports (LeadershipLost) is written too.
    const eventsStop = new AbortController()
    const events = startEvents({ env: process.env, kubeconfig: config.kubeconfig, registry, signal: eventsStop.signal })
    const election = config.leaderElection
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
        model,
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
            ...(election ? { closeTimeoutMs: leaderCloseTimeoutMs(election) } : {}),
          },
          { registry },
        ),
        ...(election ? { leadership: leadershipOf(election, client, registry, events.reporter) } : {}),
      },
    )

    let health
    try {
      health = await startHealthServer({ ...config.httpListen, ready: () => collector.readiness(), metrics: registry })
    } catch (err) {
      log.error((err as Error).message)
      process.exitCode = 1
      eventsStop.abort()
      return
    }
    const { major, minor, patch } = config.version
    log.info(
      `k8s-collector ${VERSION} (wire ${major}.${minor}.${patch}) as ${config.hostname} → reducer ${config.intakeHost}:${config.intakePort}; ` +
        `health and metrics on http://${config.httpListen.host}:${health.port}`,
    )
    // The runtime and its flags (scripts/v8-flags.json: the shebang and the executables apply them).
    log.info(`runtime: ${runtimeLine()}${process.execArgv.length ? ` with ${process.execArgv.join(' ')}` : ''}`)
    log.info(`kubeconfig: ${describeKubeconfig(config.kubeconfigSource)}`)
    if (election) {
      const { namespace, name, identity, leaseDurationSecs, renewDeadlineSecs, retryPeriodSecs } = election
      log.info(`leader election on lease ${namespace}/${name} as ${identity} (duration ${leaseDurationSecs} s, renew deadline ${renewDeadlineSecs} s, retry ${retryPeriodSecs} s)`)
    }

    startMemoryWatch(registry, abort.signal)
    const running = collector.run(abort.signal)
    const outcome = await Promise.race([stopping, running.then(() => 'done' as const)])
    if (outcome !== 'done') log.info(`${outcome}: shutting down`)
    abort.abort()
    const limit = setTimeout(() => {
      log.warn('shutdown took too long; exiting')
      process.exit(0)
    }, SHUTDOWN_LIMIT_MS)
    limit.unref?.()
    await running
    eventsStop.abort()
    await events.done
    await health.close()
    clearTimeout(limit)
    log.info('stopped')
  },
})

/**
 * A leader closes its reducer connection cleanly (flush, end of frame, FIN) but within half the
 * margin between its renew deadline and the moment a standby may take the Lease, then destroys it:
 * the close is over well before another replica can connect (docs/behaviour.md §11).
 */
function leaderCloseTimeoutMs(e: LeaderElectionConfig): number {
  return Math.min(CLOSE_TIMEOUT_MS, ((e.leaseDurationSecs - e.renewDeadlineSecs) * 1000) / 2)
}

/** Leader election on the configured Lease, through the collector's API client, on the monotonic clock. */
function leadershipOf(e: LeaderElectionConfig, client: KubeWriteClient, registry: Registry, events: EventReporter): Leadership {
  const lease = { namespace: e.namespace, name: e.name }
  const api = createLeaseApi(client, lease, { clock: monotonicClock })
  const timing = { leaseDurationMs: e.leaseDurationSecs * 1000, renewDeadlineMs: e.renewDeadlineSecs * 1000, retryPeriodMs: e.retryPeriodSecs * 1000 }
  return createLeadership({ lease, identity: e.identity, registry, events, elect: (signal) => runElection(api, { ...timing, identity: e.identity, signal, clock: monotonicClock }) })
}

/** `deno 2.x` or `node v22.x`, for the startup log. */
function runtimeLine(): string {
  const { name, version } = runtimeInfo()
  return name === 'deno' ? `deno ${version}` : `node v${version}`
}
