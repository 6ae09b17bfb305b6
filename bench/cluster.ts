// Cluster-scale sections over the replay server (bench/replay/): `ceiling` (JSON.parse of the same
// bytes), `informer` (@kubernetes/client-node makeInformer), `sync` (the collector process from
// start to the last pod announced at the tap) and `churn` (sustained pod-event rate and
// event-to-tap latency). Sizes: 10k/50k/150k pods (`--quick`: 10k; `--sizes 10k,50k` overrides).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildCluster, type ReplayCluster } from './replay/cluster.ts'
import { runCollector } from './replay/collector.ts'
import { cpuMs, median, memMB, percentile, round, sizeLabel, sleep } from './replay/proc.ts'
import { startReplayServer, writeKubeconfig, type ReplayServer } from './replay/server.ts'
import type { BenchOptions, BenchSection, BenchTarget } from './types.ts'

const here = dirname(fileURLToPath(import.meta.url))
const SETTLE_MS = 3_000

function sizes(opts: BenchOptions): number[] {
  const at = process.argv.indexOf('--sizes')
  if (at >= 0 && process.argv[at + 1]) return process.argv[at + 1]!.split(',').map((s) => Math.round(parseFloat(s) * (/k$/i.test(s) ? 1000 : 1)))
  return opts.quick ? [10_000] : [10_000, 50_000, 150_000]
}

// One rendered cluster at a time (150k pods ≈ 0.8 GB of list bytes); rebuilt identically on demand.
let cached: { pods: number; cluster: ReplayCluster } | undefined
function cluster(pods: number): ReplayCluster {
  if (cached?.pods !== pods) {
    cached = undefined
    ;(globalThis as { gc?: () => void }).gc?.()
    cached = { pods, cluster: buildCluster(pods) }
  }
  return cached.cluster
}

async function withServer<T>(c: ReplayCluster, fn: (s: ReplayServer) => Promise<T>): Promise<T> {
  const s = await startReplayServer(c)
  try {
    return await fn(s)
  } finally {
    await s.close()
  }
}

/** Runs a TS child (via the tsx loader) and resolves with its first stdout line (parsed). */
function child(script: string, args: readonly string[], onLine?: (pid: number) => Promise<void>): { pid: number; line: Promise<Record<string, unknown>>; started: number; kill(): Promise<void> } {
  const started = performance.now()
  const p = spawn(process.execPath, ['--import', 'tsx', join(here, 'replay', script), ...args], { stdio: ['ignore', 'pipe', 'inherit'], cwd: join(here, '..') })
  const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()))
  const reap = (): void => {
    p.kill('SIGKILL')
  }
  process.once('exit', reap)
  const line = new Promise<Record<string, unknown>>((resolve, reject) => {
    let buf = ''
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString()
      const nl = buf.indexOf('\n')
      if (nl >= 0) {
        const parsed = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>
        void (onLine ? onLine(p.pid!) : Promise.resolve()).then(() => resolve(parsed), reject)
      }
    })
    p.once('exit', (code) => reject(new Error(`${script} exited (${code}) before reporting`)))
  })
  return {
    pid: p.pid!,
    line,
    started,
    async kill() {
      p.kill('SIGTERM')
      await Promise.race([exited, sleep(3_000)])
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
      process.off('exit', reap)
    },
  }
}

// ---- ceiling ------------------------------------------------------------------------------------

export interface CeilingFigures {
  listBytes: number
  listCpuMs: number
  listParseOnlyCpuMs: number
  watchEvents: number
  watchCpuMs: number
  watchEventsPerS: number
}
const ceilings = new Map<number, CeilingFigures>()
const WATCH_SAMPLE = 5_000

async function ceilingFor(pods: number, quick: boolean): Promise<CeilingFigures> {
  const have = ceilings.get(pods)
  if (have) return have
  const c = cluster(pods)
  const f = await withServer(c, async (s) => {
    s.setWatchSample(c.newChurn().take(WATCH_SAMPLE).map((e) => e.line))
    const ch = child('ceiling-child.ts', [s.url, quick ? '2' : '3'])
    try {
      const r = (await ch.line) as unknown as Omit<CeilingFigures, 'watchEventsPerS'> & { listItems: number }
      if (r.listItems !== c.pods + c.replicaSets + c.jobs) throw new Error(`ceiling parsed ${r.listItems} items`)
      return { ...r, watchEventsPerS: Math.round(r.watchEvents / (r.watchCpuMs / 1000)) }
    } finally {
      await ch.kill()
    }
  })
  ceilings.set(pods, f)
  return f
}

export async function benchCeiling(opts: BenchOptions): Promise<BenchSection> {
  const figures: Record<string, number | string> = {}
  for (const pods of sizes(opts)) {
    const f = await ceilingFor(pods, opts.quick)
    const c = cluster(pods)
    const k = sizeLabel(pods)
    figures[`${k}_list_MB`] = round(f.listBytes / 1e6)
    figures[`${k}_pod_json_bytes_avg`] = c.podJsonBytesAvg
    figures[`${k}_list_decode_parse_cpu_ms`] = round(f.listCpuMs)
    figures[`${k}_list_parse_only_cpu_ms`] = round(f.listParseOnlyCpuMs)
    figures[`${k}_list_MBps`] = round(f.listBytes / 1e6 / (f.listCpuMs / 1000))
    figures[`${k}_watch_events_per_s`] = f.watchEventsPerS
  }
  return {
    name: 'ceiling',
    figures,
    notes: [
      'child process; best pass of a tight loop; list = the paginated LIST bodies (limit=500) of pods + replicasets + jobs the collector reads',
      'decode_parse = Buffer→string + JSON.parse (the ratio base); parse_only = JSON.parse of already decoded strings',
      `watch = ${WATCH_SAMPLE.toLocaleString('en-US')} churn watch lines (~5 KB pods), each decoded + JSON.parsed`,
    ],
  }
}

// ---- informer -----------------------------------------------------------------------------------

export interface InformerFigures {
  wallMs: number
  cpuMs: number
  peakMB: number
  rssMB: number
  runs: number
}
const informers = new Map<number, InformerFigures>()

async function informerFor(pods: number, quick: boolean): Promise<InformerFigures> {
  const have = informers.get(pods)
  if (have) return have
  const c = cluster(pods)
  const runs = quick || pods > 50_000 ? 1 : 3
  const samples: InformerFigures[] = []
  const dir = mkdtempSync(join(tmpdir(), 'k8s-bench-inf-'))
  try {
    await withServer(c, async (s) => {
      const kc = join(dir, 'kubeconfig')
      writeKubeconfig(kc, s.url)
      for (let run = 0; run < runs; run++) {
        let at = { wallMs: 0, cpuMs: 0 }
        const ch = child('informer-child.ts', [kc, String(c.pods), String(c.replicaSets), String(c.jobs)], async (pid) => {
          at = { wallMs: performance.now() - ch.started, cpuMs: cpuMs(pid) }
        })
        try {
          await ch.line
          await sleep(SETTLE_MS)
          samples.push({ ...at, ...memMB(ch.pid), runs })
        } finally {
          await ch.kill()
        }
      }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const f: InformerFigures = {
    wallMs: median(samples.map((x) => x.wallMs)),
    cpuMs: median(samples.map((x) => x.cpuMs)),
    peakMB: median(samples.map((x) => x.peakMB)),
    rssMB: median(samples.map((x) => x.rssMB)),
    runs,
  }
  informers.set(pods, f)
  return f
}

export async function benchInformer(opts: BenchOptions): Promise<BenchSection> {
  const figures: Record<string, number | string> = {}
  for (const pods of sizes(opts)) {
    const f = await informerFor(pods, opts.quick)
    const k = sizeLabel(pods)
    figures[`${k}_sync_wall_ms`] = Math.round(f.wallMs)
    figures[`${k}_sync_cpu_ms`] = Math.round(f.cpuMs)
    figures[`${k}_peak_rss_MB`] = f.peakMB
    figures[`${k}_steady_rss_MB`] = f.rssMB
    figures[`${k}_runs`] = f.runs
  }
  return {
    name: 'informer',
    figures,
    notes: [
      '@kubernetes/client-node makeInformer for pods, replicasets, jobs (typed list calls, no pagination, as a user writes it); child process run with the tsx loader',
      `sync = process start → every listed object added; steady RSS ${SETTLE_MS / 1000} s after sync; median of runs (1 run above 50k pods)`,
    ],
  }
}

// ---- sync ---------------------------------------------------------------------------------------

interface SyncFigures {
  wallMs: number
  cpuMs: number
  peakMB: number
  rssMB: number
  rawPerPod: number
  lz4PerPod: number
}

async function syncOnce(c: ReplayCluster, s: ReplayServer): Promise<SyncFigures> {
  const run = await runCollector(c, s)
  try {
    const t = await run.synced(60_000 + c.pods * 2)
    const m = await run.metrics()
    await sleep(SETTLE_MS)
    const mem = run.mem()
    return {
      ...t,
      ...mem,
      rawPerPod: (m.get('k8s_collector_link_raw_bytes_sent_total') ?? NaN) / c.pods,
      lz4PerPod: (m.get('k8s_collector_link_wire_bytes_sent_total') ?? NaN) / c.pods,
    }
  } finally {
    await run.stop()
  }
}

export async function benchSync(opts: BenchOptions): Promise<BenchSection> {
  const figures: Record<string, number | string> = {}
  const targets: BenchTarget[] = []
  const list = sizes(opts)
  const runs = opts.quick ? 1 : 3
  for (const pods of list) {
    const c = cluster(pods)
    const samples: SyncFigures[] = []
    await withServer(c, async (s) => {
      for (let r = 0; r < runs; r++) samples.push(await syncOnce(c, s))
    })
    const med = (pick: (f: SyncFigures) => number): number => median(samples.map(pick))
    const f: SyncFigures = { wallMs: med((x) => x.wallMs), cpuMs: med((x) => x.cpuMs), peakMB: med((x) => x.peakMB), rssMB: med((x) => x.rssMB), rawPerPod: med((x) => x.rawPerPod), lz4PerPod: med((x) => x.lz4PerPod) }
    const ceiling = await ceilingFor(pods, opts.quick)
    const informer = await informerFor(pods, opts.quick)
    const k = sizeLabel(pods)
    figures[`${k}_pods`] = c.pods
    figures[`${k}_containers`] = c.containers
    figures[`${k}_replicasets`] = c.replicaSets
    figures[`${k}_jobs`] = c.jobs
    figures[`${k}_wall_ms`] = Math.round(f.wallMs)
    figures[`${k}_cpu_ms`] = Math.round(f.cpuMs)
    figures[`${k}_peak_rss_MB`] = f.peakMB
    figures[`${k}_steady_rss_MB`] = f.rssMB
    figures[`${k}_bytes_per_pod_raw`] = round(f.rawPerPod)
    figures[`${k}_bytes_per_pod_lz4`] = round(f.lz4PerPod)
    const cpuX = round(f.cpuMs / ceiling.listCpuMs, 2)
    const rssX = round(f.rssMB / informer.rssMB, 3)
    figures[`${k}_cpu_vs_ceiling_x`] = cpuX
    figures[`${k}_cpu_vs_informer_x`] = round(f.cpuMs / informer.cpuMs, 3)
    figures[`${k}_wall_vs_informer_x`] = round(f.wallMs / informer.wallMs, 3)
    figures[`${k}_steady_rss_vs_informer_x`] = rssX
    if (pods === list[list.length - 1]) {
      targets.push(
        { name: `${k} sync CPU vs JSON.parse ceiling`, value: cpuX, limit: 1.5, op: '<=', unit: '×' },
        { name: `${k} steady RSS`, value: f.rssMB, limit: 400, op: '<=', unit: 'MB' },
        { name: `${k} steady RSS vs informer`, value: rssX, limit: 0.25, op: '<=', unit: '×' },
        { name: `${k} wire bytes per pod after LZ4 (snapshot)`, value: round(f.lz4PerPod), limit: 120, op: '<=', unit: 'B' },
      )
    }
  }
  return {
    name: 'sync',
    figures,
    targets,
    notes: [
      'collector = `node dist/cli.mjs run` (separate process) against the replay server (http, 422 to streaming lists → LIST limit=500), in-process tap as reducer',
      `wall/CPU = process spawn → last pod_new_with_name/pod_container at the tap (CPU = utime+stime from /proc, includes Node start-up); RSS from /proc VmHWM/VmRSS ${SETTLE_MS / 1000} s after sync`,
      `median of ${runs} run(s); bytes/pod = link raw/wire bytes sent (k8s_collector_link_*_bytes_sent_total) / pods`,
      'targets are checked at the largest size of the run (issue 7: 150k pods)',
    ],
  }
}

// ---- churn --------------------------------------------------------------------------------------

export async function benchChurn(opts: BenchOptions): Promise<BenchSection> {
  const list = sizes(opts)
  const pods = list[list.length - 1]!
  const c = cluster(pods)
  const k = sizeLabel(pods)
  const figures: Record<string, number | string> = {}
  const targets: BenchTarget[] = []
  const latencyRate = 1_000
  const latencySecs = opts.quick ? 5 : 15
  const stepSecs = opts.quick ? 2 : 4
  const rates = opts.quick ? [2_500, 5_000, 10_000] : [2_500, 5_000, 10_000, 20_000, 40_000]
  const ceiling = await ceilingFor(pods, opts.quick)

  await withServer(c, async (s) => {
    const run = await runCollector(c, s)
    try {
      await run.synced(60_000 + c.pods * 2)
      await s.waitPodWatchers(1, 30_000)
      await sleep(1_000)
      const churn = c.newChurn()
      const lastSent = new Map<string, number>()
      let latencies: number[] = []
      run.onPodMessage = (uid, _type, at) => {
        const t = lastSent.get(uid)
        if (t !== undefined) latencies.push(at - t)
      }
      const onSent = (uid: string, at: number): void => {
        lastSent.set(uid, at)
      }
      /** Waits until the tap has seen no pod message for `quietMs` (or `maxMs` passed). */
      const quiesce = async (quietMs: number, maxMs: number): Promise<number> => {
        const start = Date.now()
        let n = run.counts.messages
        let since = Date.now()
        while (Date.now() - start < maxMs) {
          await sleep(50)
          if (run.counts.messages !== n) {
            n = run.counts.messages
            since = Date.now()
          } else if (Date.now() - since >= quietMs) break
        }
        return since
      }
      const bytes = async (): Promise<{ raw: number; wire: number }> => {
        const m = await run.metrics()
        return { raw: m.get('k8s_collector_link_raw_bytes_sent_total') ?? NaN, wire: m.get('k8s_collector_link_wire_bytes_sent_total') ?? NaN }
      }

      // 1. Latency and wire cost at 1,000 events/s.
      const events = churn.take(latencyRate * latencySecs)
      const b0 = await bytes()
      const new0 = run.counts.podNew
      const cpu0 = run.cpuMs()
      const t0 = Date.now()
      await s.stream(events, latencyRate, onSent)
      const lastMsg = await quiesce(1_000, 10_000)
      const cpu1 = run.cpuMs()
      const b1 = await bytes()
      const announced = run.counts.podNew - new0
      figures[`${k}_latency_events`] = events.length
      figures[`${k}_latency_messages`] = latencies.length
      figures[`${k}_latency_p50_ms`] = percentile(latencies, 50)
      figures[`${k}_latency_p99_ms`] = percentile(latencies, 99)
      figures[`${k}_latency_max_ms`] = percentile(latencies, 100)
      figures[`${k}_cpu_pct_at_1000_per_s`] = round(((cpu1 - cpu0) / (lastMsg - t0)) * 100)
      figures[`${k}_churn_pods_announced`] = announced
      figures[`${k}_churn_bytes_per_pod_raw`] = round((b1.raw - b0.raw) / announced)
      figures[`${k}_churn_bytes_per_pod_lz4`] = round((b1.wire - b0.wire) / announced)
      targets.push({ name: `p99 event-to-tap latency at ${latencyRate.toLocaleString('en-US')} events/s (${k} pods)`, value: percentile(latencies, 99), limit: 150, op: '<=', unit: 'ms' })

      // 2. Step the rate up while the collector keeps up (sent at the rate, p99 lag ≤ 1 s).
      let sustained = 0
      for (const rate of rates) {
        const evs = churn.take(rate * stepSecs)
        latencies = []
        const c0 = run.cpuMs()
        const start = Date.now()
        const sent = await s.stream(evs, rate, onSent)
        const last = await quiesce(1_000, 30_000)
        const cpu = run.cpuMs() - c0
        const p99 = percentile(latencies, 99)
        const kept = sent.sentPerS >= rate * 0.95 && p99 <= 1_000
        figures[`${k}_rate_${rate}_sent_per_s`] = Math.round(sent.sentPerS)
        figures[`${k}_rate_${rate}_p99_ms`] = p99
        figures[`${k}_rate_${rate}_cpu_pct`] = round((cpu / (last - start)) * 100)
        figures[`${k}_rate_${rate}_kept_up`] = kept ? 'yes' : 'no'
        if (!kept) break
        sustained = rate
      }
      figures[`${k}_sustained_events_per_s`] = sustained
      figures[`${k}_json_parse_ceiling_events_per_s`] = ceiling.watchEventsPerS
      targets.push({ name: `sustained pod events/s (${k} pods)`, value: sustained, limit: 5_000, op: '>=', unit: 'events/s' })
      figures[`${k}_replaced_pods`] = churn.replaced
    } finally {
      await run.stop()
    }
  })
  return {
    name: 'churn',
    figures,
    targets,
    notes: [
      `${k}-pod cluster synced first; churn = rollouts (Deployment switches ReplicaSet), 9 pod watch events per replaced pod, in waves of 500 pods`,
      'latency = Date.now() at the tap (message decoded) − Date.now() when the replay server wrote the latest watch event of that pod; pod_new_with_name, pod_container and pod_delete all counted',
      `rate steps of ${stepSecs} s: kept up = sent at ≥ 95 % of the rate (no socket back-pressure) and p99 latency ≤ 1 s; the collector is one Node process (one core)`,
      'churn bytes/pod = link raw/wire bytes during the latency phase / pods announced in it (the new pods; pod_delete of the old ones included)',
    ],
  }
}
