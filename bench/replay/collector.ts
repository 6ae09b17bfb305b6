// Runs the real collector (`node dist/cli.mjs run` or `deno run dist/cli.mjs run`, a separate
// process) against a replay server, with an in-process sink as its reducer (sink.ts): counts
// announcements, times the initial sync, measures the process via /proc and reads its /metrics.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { ReplayCluster } from './cluster.ts'
import { cpuMs, freePort, groupCpuMs, groupMemMB, memMB, sleep } from './proc.ts'
import { writeKubeconfig, type ReplayServer } from './server.ts'
import { startSink, type SinkMessage } from './sink.ts'
import { startCaptureProxy, type CaptureProxy } from './wire.ts'

export const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../dist/cli.mjs')
/** The V8 flags the collector ships with (its shebang, its executables), so the bench runs it as shipped. */
export const V8_FLAGS = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../scripts/v8-flags.json'), 'utf8')) as string[]

/** Deno: what the `deno compile` executable ships (the headline figures); Node: the bundle and the SEA. */
export type CollectorRuntime = 'deno' | 'node'
const RUNTIMES: readonly CollectorRuntime[] = ['deno', 'node']

/**
 * The runtimes the sync section runs the collector on, the shipped one first: both by default,
 * one with `BENCH_COLLECTOR=deno` or `=node`.
 */
export const syncRuntimes: readonly CollectorRuntime[] = (() => {
  const only = process.env.BENCH_COLLECTOR
  if (!only) return RUNTIMES
  if (!RUNTIMES.includes(only as CollectorRuntime)) throw new Error(`BENCH_COLLECTOR=${only}: expected ${RUNTIMES.join(' or ')}`)
  return [only as CollectorRuntime]
})()

/**
 * The runtime of the churn and wire sections: Node, or Deno with `BENCH_COLLECTOR=deno`; they append
 * {@link runtimeSuffix} to their names, so Deno's results go to files of their own.
 */
export const churnRuntime: CollectorRuntime = process.env.BENCH_COLLECTOR === 'deno' ? 'deno' : 'node'
export const runtimeSuffix = churnRuntime === 'deno' ? '-deno' : ''

/**
 * Another collector run beside ours (issue 31): `npm run bench -- --contender NAME=COMMAND`,
 * repeatable. COMMAND runs under `/bin/sh -c` with the environment the upstream collectors read
 * (`KUBECONFIG`, `EBPF_NET_INTAKE_HOST`, `EBPF_NET_INTAKE_PORT`); its figures are named after NAME.
 */
export interface Contender {
  readonly name: string
  readonly command: string
  /**
   * Given as `--contender-api-only NAME=COMMAND`: a collector that does not speak the reducer
   * protocol (the legacy Go k8s-watcher sends gRPC to its relay), measured on the API side only.
   */
  readonly apiOnly?: boolean
}

/** Parses every `--contender NAME=COMMAND` (and `--contender-api-only NAME=COMMAND`) of `argv`; a malformed one is a usage error. */
export function parseContenders(argv: readonly string[]): Contender[] {
  const out: Contender[] = []
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    if (flag !== '--contender' && flag !== '--contender-api-only') continue
    const spec = argv[i + 1] ?? ''
    const eq = spec.indexOf('=')
    const name = spec.slice(0, eq)
    if (eq <= 0 || !/^[a-z][a-z0-9_]*$/.test(name) || !spec.slice(eq + 1).trim()) {
      throw new Error(`${flag} ${JSON.stringify(spec)}: expected NAME=COMMAND, NAME of [a-z0-9_] starting with a letter`)
    }
    if (name === 'deno' || name === 'node' || out.some((c) => c.name === name)) throw new Error(`${flag} ${name}: the name is taken`)
    out.push({ name, command: spec.slice(eq + 1), ...(flag === '--contender-api-only' ? { apiOnly: true } : {}) })
  }
  return out
}

/** The contenders of this run (none unless `--contender` is given); API-only ones are for the real section. */
export const allContenders: readonly Contender[] = parseContenders(process.argv.slice(2))
/** The contenders that speak the reducer protocol (every cluster section runs them). */
export const contenders: readonly Contender[] = allContenders.filter((c) => !c.apiOnly)

/** How the collector is started on `runtime`, for the sections' notes. */
export const collectorCommand = (runtime: CollectorRuntime): string =>
  runtime === 'deno' ? '`deno run --no-code-cache dist/cli.mjs run` (the deno compile executable\'s runtime, flags and permissions)' : '`node dist/cli.mjs run`'

/** The Deno binary of the `deno` dev dependency (what `npm run compile` builds with). */
export const denoBin = (): string => join(dirname(createRequire(import.meta.url).resolve('deno/package.json')), 'deno')

// On Deno, as scripts/compile.mjs builds the executable: the same V8 flags, permissions and no code cache.
function collectorArgv(runtime: CollectorRuntime, nodeArgs: readonly string[]): string[] {
  if (runtime === 'node') return [process.execPath, ...V8_FLAGS, ...nodeArgs, CLI]
  if (nodeArgs.length > 0) throw new Error(`Node flags (${nodeArgs.join(' ')}) do not apply to the collector on Deno`)
  return [
    denoBin(), 'run', '--no-code-cache', `--v8-flags=${V8_FLAGS.join(',')}`,
    '--allow-all', CLI,
  ]
}

export interface CollectorRun {
  readonly pid: number
  /**
   * Resolves when every pod and container of the cluster was announced at the sink on ONE
   * connection (distinct uids / container ids: a reconnect's resync cannot fake a sync).
   */
  synced(timeoutMs: number): Promise<{ wallMs: number; cpuMs: number }>
  /** Pod messages received so far (every connection). */
  readonly counts: { podNew: number; containers: number; deletes: number; messages: number }
  /** Reducer connections the collector opened so far (1 = no reconnect). */
  connections(): number
  /** Called for every pod message at the tap with its uid and arrival time (Date.now()). */
  onPodMessage?: (uid: string, type: string, at: number) => void
  /** The collector's /metrics as name{labels} → value. */
  metrics(): Promise<Map<string, number>>
  mem(): { rssMB: number; peakMB: number }
  cpuMs(): number
  /** Bytes the sink received so far, on the wire and decompressed (every connection). */
  received(): { wire: number; raw: number }
  /** The bytes the collector sent, when started with `capture` (a relay between it and the tap). */
  readonly capture?: CaptureProxy
  stop(): Promise<void>
}

export interface CollectorRunOptions {
  /** Default: {@link churnRuntime}. */
  readonly runtime?: CollectorRuntime
  /** Node flags for the collector, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[]
  /** Relay the reducer connection through a {@link CaptureProxy} that keeps every byte. */
  readonly capture?: boolean
  /** Run this contender instead of ours (CPU and memory of its whole process group; no /metrics). */
  readonly contender?: Contender
}

/** What a collector must announce to be synced (a {@link ReplayCluster} is one). */
export interface SyncTarget {
  readonly pods: number
  readonly containers: number
}

/**
 * Another API server than the replay server (the real control plane): the collector's kubeconfig,
 * and what else a contender's environment gets (e.g. the in-cluster variables).
 */
export interface RealApi {
  readonly kubeconfig: string
  readonly contenderEnv?: Readonly<Record<string, string>>
}

/** Starts the tap and the collector (the clock starts at spawn). */
export async function runCollector(cluster: SyncTarget, server: ReplayServer | RealApi, opts: CollectorRunOptions = {}): Promise<CollectorRun> {
  if (!existsSync(CLI)) throw new Error(`${CLI} missing: run \`npm run build\` first`)
  const dir = mkdtempSync(join(tmpdir(), 'k8s-bench-'))
  const real = 'kubeconfig' in server ? server : undefined
  const kubeconfig = real?.kubeconfig ?? join(dir, 'kubeconfig')
  if (!real) writeKubeconfig(kubeconfig, (server as ReplayServer).url)
  const counts = { podNew: 0, containers: 0, deletes: 0, messages: 0 }
  let done: (() => void) | undefined
  let doneAt = 0
  let doneCpu = 0
  let child: ChildProcess | undefined
  // eslint-disable-next-line prefer-const
  let run: CollectorRun
  // Distinct announcements of the newest connection.
  let connection = 0
  let pods = new Set<string>()
  let containers = new Set<string>()
  let syncing = true
  const check = (): void => {
    if (done && pods.size >= cluster.pods && containers.size >= cluster.containers) {
      syncing = false
      pods = new Set()
      containers = new Set()
      doneAt = performance.now()
      doneCpu = cpuOf(child!.pid!)
      const d = done
      done = undefined
      d()
    }
  }
  let sinkError: Error | undefined
  const onPod = (m: SinkMessage): void => {
    counts.messages++
    if (m.connection !== connection && syncing) {
      pods = new Set()
      containers = new Set()
    }
    connection = m.connection
    if (m.type === 'pod_new_with_name') {
      counts.podNew++
      if (syncing) pods.add(m.uid)
    } else if (m.type === 'pod_container') {
      counts.containers++
      if (syncing) containers.add(`${m.uid} ${m.containerId}`)
    } else counts.deletes++
    run.onPodMessage?.(m.uid, m.type, Date.now())
    if (done) check()
  }
  const sink = await startSink(onPod, (err) => (sinkError = err))
  const capture = opts.capture ? await startCaptureProxy(sink.port) : undefined
  const httpPort = await freePort()
  const intakePort = String(capture?.port ?? sink.port)
  const contender = opts.contender
  const t0 = performance.now()
  if (contender) {
    // Its own process group, so that CPU and memory count whatever the command starts, and a
    // signal reaches all of it.
    child = spawn('/bin/sh', ['-c', contender.command], {
      stdio: ['ignore', 'ignore', 'inherit'], cwd: dir, detached: true,
      env: { ...process.env, KUBECONFIG: kubeconfig, EBPF_NET_INTAKE_HOST: '127.0.0.1', EBPF_NET_INTAKE_PORT: intakePort, K8S_COLLECTOR_HOSTNAME: 'bench', RUST_LOG: process.env.RUST_LOG ?? 'warn', ...real?.contenderEnv },
    })
  } else {
    const [command, ...prefix] = collectorArgv(opts.runtime ?? churnRuntime, opts.nodeArgs ?? [])
    // The replay server keeps a watch open until the bench ends it (no history to resume from, so it
    // ignores timeoutSeconds): the longest silence limit keeps idle watches open through a bench run.
    // Against a real server the collector runs with its shipped defaults.
    child = spawn(
      command!,
      [
        ...prefix, 'run', '--kubeconfig', kubeconfig, '--intake-host', '127.0.0.1', '--intake-port', intakePort,
        '--http-listen', `127.0.0.1:${httpPort}`, '--hostname', 'bench', '--log-level', 'warn', ...(real ? [] : ['--api-silence-limit-secs', '600']),
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], cwd: dir },
    )
  }
  const pid = child.pid!
  const cpuOf = contender ? groupCpuMs : cpuMs
  const memOf = contender ? groupMemMB : memMB
  const signal = (sig: NodeJS.Signals): void => {
    try {
      if (contender) process.kill(-pid, sig)
      else child!.kill(sig)
    } catch {
      // already gone
    }
  }
  // Never leave a collector behind when the benchmark dies.
  const reap = (): void => signal('SIGKILL')
  process.once('exit', reap)
  const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()))

  run = {
    pid,
    counts,
    synced(timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `collector did not announce all pods on one connection in ${timeoutMs} ms (${pods.size}/${cluster.pods} pods, ${containers.size}/${cluster.containers} containers on connection ${connection} of ${sink.connections}${sinkError ? `; sink: ${sinkError.message}` : ''})`,
              ),
            ),
          timeoutMs,
        )
        done = () => {
          clearTimeout(timer)
          resolve({ wallMs: doneAt - t0, cpuMs: doneCpu })
        }
        check()
      })
    },
    async metrics() {
      if (contender) return new Map()
      const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`)
      const out = new Map<string, number>()
      for (const line of (await res.text()).split('\n')) {
        if (!line || line.startsWith('#')) continue
        const at = line.lastIndexOf(' ')
        out.set(line.slice(0, at), Number(line.slice(at + 1)))
      }
      return out
    },
    connections: () => sink.connections,
    received: () => ({ wire: sink.wireBytes, raw: sink.rawBytes }),
    mem: () => memOf(pid),
    cpuMs: () => cpuOf(pid),
    ...(capture ? { capture } : {}),
    async stop() {
      signal('SIGTERM')
      await Promise.race([exited, sleep(6_000)])
      if (child!.exitCode === null && child!.signalCode === null) signal('SIGKILL')
      process.off('exit', reap)
      await capture?.close()
      await sink.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return run
}
