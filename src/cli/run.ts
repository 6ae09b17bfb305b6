// `k8s-collector run`: the collector itself (docs/behaviour.md, all of it).
import { hostname } from 'node:os'
import { defineCommand } from 'citty'
import { createCollector } from '../collector/collector.ts'
import { ConfigError, resolveConfig, type CollectorConfig } from '../collector/config.ts'
import { createKubeStreams } from '../collector/streams.ts'
import { createReducerLink } from '../link/index.ts'
import { configureLogger, logger } from '../observe/log.ts'
import { createRegistry } from '../observe/metrics.ts'
import { registerProcessMetrics } from '../observe/process.ts'
import { startMemoryWatch } from '../observe/memory.ts'
import { startHealthServer } from '../observe/http.ts'
import { rejectUnknownArgs, repeatedOption, untilSignal } from './shared.ts'
import { VERSION } from './version.ts'

const args = {
  'intake-host': { type: 'string', valueHint: 'HOST', description: 'Reducer host, IP or DNS name [EBPF_NET_INTAKE_HOST, 127.0.0.1]' },
  'intake-port': { type: 'string', valueHint: 'PORT', description: 'Reducer port [EBPF_NET_INTAKE_PORT, 8000]' },
  'delete-ttl-secs': { type: 'string', valueHint: 'SECONDS', description: 'Deleted ReplicaSets/Jobs stay resolvable this long [K8S_COLLECTOR_DELETE_TTL_SECS, 60]' },
  'delete-capacity': { type: 'string', valueHint: 'N', description: 'Deleted owners kept at most [K8S_COLLECTOR_DELETE_CAPACITY, 10000]' },
  'waiting-limit': { type: 'string', valueHint: 'N', description: 'Waiting pods that force an owner relist + new epoch [K8S_COLLECTOR_WAITING_LIMIT, 10000]' },
  'heartbeat-interval-sec': { type: 'string', valueHint: 'SECONDS', description: 'Heartbeat interval, 1–25 [K8S_COLLECTOR_HEARTBEAT_INTERVAL_SEC, 2]' },
  'priming-timeout-secs': { type: 'string', valueHint: 'SECONDS', description: 'Connect without a stream whose initial list is not in after this long [K8S_COLLECTOR_PRIMING_TIMEOUT_SECS, 60]' },
  hostname: { type: 'string', valueHint: 'NAME', description: 'Hostname sent to the reducer [K8S_COLLECTOR_HOSTNAME, OS hostname]' },
  label: { type: 'string', valueHint: 'KEY=VALUE', description: 'Label sent as set_config_label; repeatable (key ≤ 20, value ≤ 40 characters)' },
  kubeconfig: { type: 'string', valueHint: 'FILE', description: 'Kubeconfig [KUBECONFIG, ~/.kube/config, then in-cluster service account]' },
  'http-listen': { type: 'string', valueHint: 'HOST:PORT', description: 'Health (/healthz, /readyz) and /metrics listener [K8S_COLLECTOR_HTTP_LISTEN, 0.0.0.0:8080]' },
  'log-level': { type: 'string', valueHint: 'LEVEL', description: 'silent, error, warn, info, debug, trace [K8S_COLLECTOR_LOG_LEVEL, info]' },
  'log-format': { type: 'string', valueHint: 'pretty|json', description: 'Log format [K8S_COLLECTOR_LOG_FORMAT, json when stderr is not a terminal]' },
  'print-config': { type: 'boolean', description: 'Print the effective configuration as JSON and exit' },
} as const

/** How long shutdown may take before the process exits anyway (issue: exit 0 within 5 s). */
const SHUTDOWN_LIMIT_MS = 4_500

export default defineCommand({
  meta: { name: 'run', description: 'Watch pods, ReplicaSets and Jobs and stream pod metadata to the reducer' },
  args,
  async run({ args: parsed, rawArgs }) {
    let config: CollectorConfig
    try {
      rejectUnknownArgs(parsed as Record<string, unknown>, args)
      config = resolveConfig({
        flags: parsed as Record<string, string | boolean | undefined>,
        labels: repeatedOption(rawArgs, 'label'),
        env: process.env,
        osHostname: hostname(),
        stderrIsTty: process.stderr.isTTY === true,
      })
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err
      process.stderr.write(`k8s-collector run: ${err.message}\n`)
      process.exitCode = 2
      return
    }
    if (parsed['print-config']) {
      process.stdout.write(JSON.stringify(config, null, 2) + '\n')
      return
    }
    configureLogger({ level: config.logLevel, format: config.logFormat })
    const log = logger.withTag('run')
    const registry = createRegistry()
    registerProcessMetrics(registry)
    const abort = new AbortController()

    let streams
    try {
      streams = createKubeStreams({ kubeconfig: config.kubeconfig, registry, signal: abort.signal })
    } catch (err) {
      log.error(`cannot load the Kubernetes configuration: ${(err as Error).message}`)
      process.exitCode = 1
      return
    }
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
        createLink: (callbacks) =>
          createReducerLink(
            {
              host: config.intakeHost,
              port: config.intakePort,
              hostname: config.hostname,
              labels: config.labels,
              version: config.version,
              heartbeatIntervalMs: config.heartbeatIntervalSecs * 1000,
              onSession: callbacks.onSession,
              onDisconnect: callbacks.onDisconnect,
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

    startMemoryWatch(registry, abort.signal)
    const running = collector.run(abort.signal)
    const outcome = await Promise.race([untilSignal(), running.then(() => 'done' as const)])
    if (outcome !== 'done') log.info(`${outcome}: shutting down`)
    abort.abort()
    const limit = setTimeout(() => {
      log.warn('shutdown took too long; exiting')
      process.exit(0)
    }, SHUTDOWN_LIMIT_MS)
    limit.unref?.()
    await running
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
