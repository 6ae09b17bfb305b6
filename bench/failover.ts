// `failover` (issue 17): two collectors with --leader-elect (client-go's timing, 15/10/2 s) against
// the replay cluster; SIGKILL of the leader → the reducer stand-in holds every pod again on the
// standby's connection, beside a cold start of a fresh process (spawn → every pod announced).
// Sizes 10k and 150k pods (`--sizes` overrides, `--quick`: 10k).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startLeaseFront, type LeaseFront } from './failover-api.ts'
import { cluster, sizes } from './cluster.ts'
import type { ReplayCluster } from './replay/cluster.ts'
import { CLI, runCollector, V8_FLAGS } from './replay/collector.ts'
import { cpuMs, freePort, median, memMB, round, sizeLabel, sleep } from './replay/proc.ts'
import { startReplayServer, writeKubeconfig, type ReplayServer } from './replay/server.ts'
import { startSink, type SinkMessage } from './replay/sink.ts'
import type { BenchOptions, BenchSection, BenchTarget } from './types.ts'

/** The shipped lease duration (kind/collector.yaml leaves client-go's defaults). */
const LEASE_DURATION_S = 15
const LEASE = { namespace: 'bench', name: 'k8s-collector' }

/** Distinct pods and containers announced per reducer connection, and waits for a complete one. */
function announcements(cluster: ReplayCluster) {
  const byConn = new Map<number, { pods: Set<string>; containers: Set<string> }>()
  let waiter: { accept: (conn: number) => boolean; resolve: (r: { conn: number; at: number }) => void } | undefined
  const onPod = (m: SinkMessage): void => {
    let s = byConn.get(m.connection)
    if (!s) byConn.set(m.connection, (s = { pods: new Set(), containers: new Set() }))
    if (m.type === 'pod_new_with_name') s.pods.add(m.uid)
    else if (m.type === 'pod_container') s.containers.add(`${m.uid} ${m.containerId}`)
    if (waiter?.accept(m.connection) && s.pods.size >= cluster.pods && s.containers.size >= cluster.containers) {
      const w = waiter
      waiter = undefined
      byConn.delete(m.connection) // done counting it
      w.resolve({ conn: m.connection, at: performance.now() })
    }
  }
  /** Resolves when a connection `accept` takes holds every pod and container of the cluster. */
  const complete = (accept: (conn: number) => boolean, timeoutMs: number, what: string): Promise<{ conn: number; at: number }> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: not every pod announced on one connection in ${timeoutMs} ms`)), timeoutMs)
      waiter = { accept, resolve: (r) => (clearTimeout(timer), resolve(r)) }
    })
  return { onPod, complete }
}

interface Replica {
  readonly identity: string
  readonly child: ChildProcess
  readyz(): Promise<string>
  stop(): Promise<void>
}

/** A collector with --leader-elect through the lease front (Node, the shipped V8 flags, default timing). */
async function startReplica(identity: string, kubeconfig: string, sinkPort: number): Promise<Replica> {
  const httpPort = await freePort()
  const args = ['run', '--kubeconfig', kubeconfig, '--intake-host', '127.0.0.1', '--intake-port', String(sinkPort), '--http-listen', `127.0.0.1:${httpPort}`, '--hostname', identity, '--log-level', 'warn']
  const lease = ['--leader-elect', '--lease-namespace', LEASE.namespace, '--lease-name', LEASE.name, '--identity', identity]
  const child = spawn(process.execPath, [...V8_FLAGS, CLI, ...args, ...lease], { stdio: ['ignore', 'inherit', 'inherit'] })
  const reap = (): void => {
    child.kill('SIGKILL')
  }
  process.once('exit', reap)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    identity,
    child,
    readyz: () => fetch(`http://127.0.0.1:${httpPort}/readyz`).then((r) => r.text(), () => ''),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await Promise.race([exited, sleep(6_000)])
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      process.off('exit', reap)
    },
  }
}

interface FailoverFigures {
  /** SIGKILL → every pod on the standby's connection. */
  failoverMs: number
  /** SIGKILL → the standby's Lease write accepted. */
  leaseWaitMs: number
  /** That write → every pod at the reducer: the standby's own work. */
  takeoverMs: number
  /** The standby's CPU from the kill to every pod (utime + stime): its takeover's work, whatever the load. */
  takeoverCpuMs: number
  standbyRssMB: number
}

async function failoverOnce(c: ReplayCluster, front: LeaseFront, run: number): Promise<FailoverFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-bench-failover-'))
  const kubeconfig = join(dir, 'kubeconfig')
  writeKubeconfig(kubeconfig, front.url)
  const seen = announcements(c)
  const sink = await startSink(seen.onPod, (err) => console.error(`failover sink: ${err.message}`))
  const replicas = [await startReplica(`a-${run}`, kubeconfig, sink.port), await startReplica(`b-${run}`, kubeconfig, sink.port)]
  try {
    const synced = await seen.complete(() => true, 90_000 + c.pods * 2, 'the leader')
    const leader = replicas.find((r) => r.identity === front.holder(LEASE.namespace, LEASE.name))
    if (!leader) throw new Error(`the Lease names ${front.holder(LEASE.namespace, LEASE.name)}, neither replica`)
    const standby = replicas.find((r) => r !== leader)!
    const until = performance.now() + 60_000 + c.pods
    while ((await standby.readyz()) !== 'ok: standby\n') {
      if (performance.now() > until) throw new Error(`${standby.identity} not primed as standby`)
      await sleep(100)
    }
    await sleep(1_000)
    const standbyRssMB = memMB(standby.child.pid!).rssMB
    const cpuBefore = cpuMs(standby.child.pid!)
    const killedAt = performance.now()
    leader.child.kill('SIGKILL')
    const done = await seen.complete((conn) => conn > synced.conn, (LEASE_DURATION_S + 60) * 1000 + c.pods, 'the standby')
    const takeoverCpuMs = cpuMs(standby.child.pid!) - cpuBefore
    const taken = front.heldSince(standby.identity)
    if (taken === undefined) throw new Error(`${standby.identity} completed a connection without holding the Lease`)
    return { failoverMs: done.at - killedAt, leaseWaitMs: taken - killedAt, takeoverMs: done.at - taken, takeoverCpuMs, standbyRssMB }
  } finally {
    for (const r of replicas) await r.stop()
    await sink.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** spawn → every pod announced, a fresh process without leader election (as the sync section). */
async function coldStart(c: ReplayCluster, s: ReplayServer): Promise<{ wallMs: number; cpuMs: number }> {
  const run = await runCollector(c, s)
  try {
    return await run.synced(60_000 + c.pods * 2)
  } finally {
    await run.stop()
  }
}

export async function benchFailover(opts: BenchOptions): Promise<BenchSection> {
  const figures: Record<string, number | string> = {}
  const targets: BenchTarget[] = []
  const list = sizes(opts, [10_000, 150_000])
  for (const pods of list) {
    const c = cluster(pods)
    const runs = opts.quick || pods > 50_000 ? 1 : 3
    const samples: FailoverFigures[] = []
    const colds: Array<{ wallMs: number; cpuMs: number }> = []
    const s = await startReplayServer(c)
    const front = await startLeaseFront(s.url)
    try {
      for (let r = 0; r < runs; r++) {
        colds.push(await coldStart(c, s))
        samples.push(await failoverOnce(c, front, r))
      }
    } finally {
      await front.close()
      await s.close()
    }
    const med = (pick: (f: FailoverFigures) => number): number => median(samples.map(pick))
    const k = sizeLabel(pods)
    const cold = median(colds.map((x) => x.wallMs))
    const coldCpu = median(colds.map((x) => x.cpuMs))
    const takeoverCpu = med((f) => f.takeoverCpuMs)
    const failover = med((f) => f.failoverMs)
    const takeover = med((f) => f.takeoverMs)
    figures[`${k}_failover_ms`] = Math.round(failover)
    figures[`${k}_lease_wait_ms`] = Math.round(med((f) => f.leaseWaitMs))
    figures[`${k}_takeover_ms`] = Math.round(takeover)
    figures[`${k}_cold_start_ms`] = Math.round(cold)
    figures[`${k}_cold_vs_takeover_x`] = round(cold / takeover, 2)
    figures[`${k}_cold_vs_failover_x`] = round(cold / failover, 2)
    figures[`${k}_takeover_cpu_ms`] = Math.round(takeoverCpu)
    figures[`${k}_cold_start_cpu_ms`] = Math.round(coldCpu)
    figures[`${k}_cold_vs_takeover_cpu_x`] = round(coldCpu / takeoverCpu, 2)
    figures[`${k}_standby_rss_MB`] = med((f) => f.standbyRssMB)
    figures[`${k}_runs`] = runs
    if (pods === list[list.length - 1]) {
      targets.push(
        { name: `${k} failover (SIGKILL → every pod again)`, value: round(failover / 1000, 2), limit: LEASE_DURATION_S + 5, op: '<=', unit: 's' },
        { name: `${k} cold start / takeover`, value: round(cold / takeover, 2), limit: 3, op: '>=', unit: '×' },
      )
    }
  }
  return {
    name: 'failover',
    figures,
    targets,
    notes: [
      `two \`node dist/cli.mjs run --leader-elect\` processes (lease ${LEASE_DURATION_S}/10/2 s, the defaults) through an in-memory Lease API in front of the replay server; reducer = the sink (bench/replay/sink.ts)`,
      'failover = SIGKILL of the leader → every pod and container announced on the standby\'s connection; lease_wait = SIGKILL → the standby\'s Lease write accepted (the lease duration counted from when the standby saw the last renewal: within a retry period of it either way); takeover = that write → every pod (connect + snapshot from the primed stores)',
      'cold_start = spawn of a fresh collector without leader election → every pod announced (as the sync section); the cold-start target compares it with the takeover, the part a warm standby saves (in a cluster a replacement pod also waits for node-failure detection and eviction before it even starts)',
      'takeover_cpu = the standby\'s CPU (utime + stime) from the kill to every pod, cold_start_cpu = the cold start\'s from spawn (Node start-up included): the work either does, which a loaded machine stretches in wall time but does not change',
      'standby_rss = the primed standby\'s RSS just before the kill; median of runs (1 run above 50k pods); each run also cold-starts once',
    ],
  }
}
