// The soak's figures: what a run observed (SoakRecord) reduced to the numbers issue 18 asks for —
// faults by kind, checkpoints, time to converge by fault kind, memory, CPU, reconnects, epochs,
// relists, crashes, log lines — and the verdict.
import { auditAlarms } from './alarms.ts'
import { addInto, byLabel } from './prom.ts'
import type { CollectorLife } from './replica.ts'
import type { CheckpointOutcome } from './checkpoint.ts'

export interface SoakRecord {
  readonly options: { minutes: number; seed: number; pods: number; runtime: string; replicas: number }
  readonly startedAt: number
  endedAt: number
  /** From the start to the collectors' launch: simulator, workload, tap, proxies. */
  setupMs: number
  /** `endedAt`: when the fault was over by itself or cut short by the storm's end (then healed). */
  readonly injected: Array<{ cycle: number; kind: string; side: string; at: number; endedAt?: number; params: object }>
  /** Cycle 0 is the initial sync; `kinds` the faults injected in the cycle's storm. */
  readonly checkpoints: Array<CheckpointOutcome & { cycle: number; kinds: string[]; healedAt: number }>
  readonly churn: Record<string, number>
  readonly replicas: Array<{ name: string; lives: CollectorLife[]; logLines: Record<string, number>; silentTeardowns: Array<{ at: number; side: 'reducer' | 'api'; msg: string }> }>
  readonly crashes: Array<{ replica: string; at: number; code: number | null; signal: string | null; logTail: string }>
  readonly shutdown: Array<{ replica: string; code: number | null; signal: string | null }>
  /** A fault or churn action that could not be carried out (a harness problem, reported). */
  readonly faultErrors: string[]
}

export interface Distribution {
  readonly n: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}

/** Nearest-rank percentiles of `values`, in seconds with one decimal. */
export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0
  const s = (ms: number) => Math.round(ms / 100) / 10
  return { n: sorted.length, p50: s(at(0.5)), p99: s(at(0.99)), max: s(sorted.at(-1) ?? 0) }
}

/**
 * Memory growth per hour: the least-squares slope of RSS over time within each process, pooled
 * over processes (each keeps its own level), from the samples after its first passed checkpoint.
 */
export function pooledSlopePerHour(series: ReadonlyArray<ReadonlyArray<{ at: number; mb: number }>>): number | null {
  let num = 0
  let den = 0
  for (const s of series) {
    if (s.length < 3) continue
    const mt = s.reduce((n, p) => n + p.at, 0) / s.length
    const my = s.reduce((n, p) => n + p.mb, 0) / s.length
    for (const p of s) {
      num += (p.at - mt) * (p.mb - my)
      den += (p.at - mt) ** 2
    }
  }
  return den > 0 ? Math.round((num / den) * 3_600_000 * 10) / 10 : null
}

const round1 = (x: number) => Math.round(x * 10) / 10

export function computeFigures(r: SoakRecord) {
  const cycles = r.checkpoints.filter((c) => c.cycle > 0)
  const faultsByKind: Record<string, number> = {}
  for (const f of r.injected) faultsByKind[f.kind] = (faultsByKind[f.kind] ?? 0) + 1
  const convergeByKind: Record<string, number[]> = {}
  for (const c of cycles) if (c.passed) for (const k of new Set(c.kinds)) (convergeByKind[k] ??= []).push(c.ms)
  const sync = r.checkpoints.find((c) => c.cycle === 0)

  const lives = r.replicas.flatMap((x) => x.lives)
  const passes = r.checkpoints.filter((c) => c.passed).map((c) => c.healedAt + c.ms)
  const settled = lives.map((l) => {
    const from = passes.find((t) => t >= l.startedAt)
    return from === undefined ? [] : l.rss.filter((s) => s.at >= from)
  })
  const allRss = lives.flatMap((l) => l.rss)
  const firstSettled = settled.find((s) => s.length > 0)?.[0]
  const cpuMs = lives.reduce((n, l) => n + l.cpuMs, 0)
  const wallMs = lives.reduce((n, l) => n + ((l.endedAt ?? r.endedAt) - l.startedAt), 0)

  const sum = (name: string, label = '') => lives.reduce((acc, l) => addInto(acc, byLabel(l.metrics, name, label)), {} as Record<string, number>)
  const one = (name: string) => sum(name)[''] ?? 0
  const logLines: Record<string, number> = {}
  for (const x of r.replicas) addInto(logLines, x.logLines)
  const lines = Object.values(logLines).reduce((n, v) => n + v, 0)
  const minutes = (r.endedAt - r.startedAt - r.setupMs) / 60_000

  const crashes = r.crashes.length
  const badShutdowns = r.shutdown.filter((s) => s.code !== 0)
  const failed = r.checkpoints.filter((c) => !c.passed)
  const alarms = auditAlarms(r)
  return {
    date: new Date(r.startedAt).toISOString(),
    options: r.options,
    durationMinutes: round1(minutes),
    setupSeconds: round1(r.setupMs / 1000),
    cycles: cycles.length,
    faults: { total: r.injected.length, byKind: faultsByKind },
    checkpoints: {
      total: r.checkpoints.length,
      passed: r.checkpoints.length - failed.length,
      failed: failed.length,
      failures: failed.map((c) => ({ cycle: c.cycle, after: c.kinds, failure: c.failure?.slice(0, 2_000) })),
    },
    convergeSeconds: {
      initialSync: sync ? round1(sync.ms / 1000) : null,
      all: distribution(cycles.filter((c) => c.passed).map((c) => c.ms)),
      byKind: Object.fromEntries(Object.entries(convergeByKind).sort().map(([k, v]) => [k, distribution(v)])),
    },
    rssMb: {
      start: firstSettled ? round1(firstSettled.mb) : null,
      max: allRss.length ? round1(Math.max(...allRss.map((s) => s.mb))) : null,
      end: allRss.length ? round1(lives.at(-1)!.rss.at(-1)?.mb ?? 0) : null,
      slopePerHour: pooledSlopePerHour(settled),
    },
    cpu: { seconds: round1(cpuMs / 1000), meanCores: wallMs > 0 ? Math.round((cpuMs / wallMs) * 1000) / 1000 : null },
    processes: { started: lives.length, killed: lives.filter((l) => l.ending === 'killed').length, crashes, shutdown: r.shutdown },
    link: {
      connects: one('k8s_collector_link_connects_total'),
      reconnects: one('k8s_collector_link_reconnects_total'),
      disconnectsByCause: sum('k8s_collector_link_disconnects_total', 'cause'),
      connectErrorsByCause: sum('k8s_collector_link_connect_errors_total', 'cause'),
    },
    epochs: lives.reduce((n, l) => n + (byLabel(l.metrics, 'k8s_collector_epoch')[''] ?? 0), 0),
    watch: {
      relistsByCause: sum('k8s_collector_watch_relists_total', 'cause'),
      apiErrorsByStatus: sum('k8s_collector_watch_api_errors_total', 'status'),
      disconnectsByCause: sum('k8s_collector_watch_disconnects_total', 'cause'),
      restarts: one('k8s_collector_watch_restarts_total'),
      forcedRelists: one('k8s_collector_forced_relists_total'),
    },
    logs: { lines, perMinute: minutes > 0 ? round1(lines / minutes) : null, byLevel: logLines },
    deadLinks: alarms,
    churn: r.churn,
    harnessErrors: r.faultErrors,
    verdict: {
      passed: failed.length === 0 && crashes === 0 && badShutdowns.length === 0 && alarms.falseAlarms.length === 0,
      why: [
        ...failed.map((c) => `checkpoint ${c.cycle} failed`),
        ...r.crashes.map((c) => `${c.replica} crashed (${c.code ?? c.signal})`),
        ...badShutdowns.map((s) => `${s.replica} exited ${s.code ?? s.signal} on SIGTERM`),
        ...alarms.falseAlarms.map((f) => `${f.replica}: ${f.side} link torn down as silent with no silencing fault: ${f.msg}`),
      ],
    },
  }
}

export type ChaosFigures = ReturnType<typeof computeFigures>
