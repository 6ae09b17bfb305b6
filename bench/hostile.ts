// Benchmark (issue 22 "hostile"): one hostile but valid pod through the whole per-pod path — the
// watch line decoded (the byte scanner, and JSON.parse + podMetaOf), matched by a connected core,
// its messages shortened to fit, encoded and compressed by the link's encoder — at 1k, 4k and 16k units of each
// shape (hostile-shapes.ts): CPU per pod, heap the core keeps for it, the ratio 16k / 4k; and the
// latency of ordinary pods while a burst of hostile ones arrives. Targets: 16k ≤ 5× 4k; each pod
// of at most 1.5 MiB under 50 ms of CPU and under 5× its size kept; ordinary latency within 2×.
import { createPodScanner } from '../src/kube/pod-scanner.ts'
import { createFrameEncoder } from '../src/link/encoder.ts'
import { createCounters } from '../src/link/stats.ts'
import { createRateLimitedLog } from '../src/observe/rate-limit.ts'
import { createCollectorCore, type CollectorCore } from '../src/match/index.ts'
import { createModelContext, type ModelContext, type OwnerMeta, type PodMeta } from '../src/model/index.ts'
import { podMetaOf } from '../src/model/convert.ts'
import { pod } from './decode.ts'
import { hex, line, shapes } from './hostile-shapes.ts'
import type { BenchOptions, BenchSection, BenchTarget } from './types.ts'

type Json = Record<string, any>

const API_MAX_BYTES = 1.5 * 1024 * 1024
const TS = 1_700_000_000_000_000_000n
const enc = new TextEncoder()
const dec = new TextDecoder()
const gc = (globalThis as { gc?: () => void }).gc
const cpuUs = (): number => {
  const u = process.cpuUsage()
  return u.user + u.system
}
const heap = (): number => {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

/** A connected core that knows the decode bench pods' ReplicaSet (of a Deployment). */
function connectedCore(model: ModelContext): CollectorCore {
  const core = createCollectorCore({ deleteTtlMs: 60_000, deleteCapacity: 10_000, waitingLimit: 1_000_000 }, model)
  const rs: OwnerMeta = { kind: 'ReplicaSet', uid: 'a1b2c3d4-0000-4000-8000-000000000001', name: 'checkout-7d9f8b6c5', namespace: 'shop', resourceVersion: '1', controller: { kind: 'Deployment', uid: 'd-1', name: 'checkout' } }
  core.owners('ReplicaSet', { type: 'init' }, 0)
  core.owners('ReplicaSet', { type: 'initApply', object: rs }, 0)
  core.owners('ReplicaSet', { type: 'initDone' }, 0)
  core.owners('Job', { type: 'init' }, 0)
  core.owners('Job', { type: 'initDone' }, 0)
  core.pods({ type: 'init' }, 0)
  core.pods({ type: 'initDone' }, 0)
  core.connect()
  return core
}

const quiet = { error() {}, warn() {}, info() {}, debug() {} }

/** A pod's whole path: decoded, matched, its messages fitted, encoded and compressed into LZ4 blocks; returns the bytes made. */
type Path = (line: Uint8Array) => number
function paths(core: CollectorCore, model: ModelContext): Record<'scanner' | 'parse', Path> {
  const scanner = createPodScanner(model)
  const encoder = createFrameEncoder({ counters: createCounters(), log: createRateLimitedLog(quiet) })
  const through = (meta: PodMeta | undefined): number => {
    let bytes = 0
    for (const m of core.pods({ type: 'apply', object: meta! }, 0)) bytes += encoder.encode(m, TS)?.length ?? 0
    return bytes + (encoder.take()?.length ?? 0)
  }
  return {
    scanner: (b) => through(scanner.watchLine(b, 0, b.length).object),
    parse: (b) => through(podMetaOf(model, (JSON.parse(dec.decode(b)) as Json).object)),
  }
}

/** `runs` copies of the line, each a pod of its own (the uid's last 8 hex digits numbered). */
function copies(text: string, runs: number, from: number): Uint8Array[] {
  const uid = /"uid":"(5f1c[^"]*)"/.exec(text)![1]!
  return Array.from({ length: runs }, (_, i) => enc.encode(text.replace(`"uid":"${uid}"`, `"uid":"${uid.slice(0, -8)}${hex(from + i, 8)}"`)))
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

/** CPU ms of a first event (a new pod) and of an update that changes nothing kept, medians; heap kept per pod. */
function measure(text: string, runs: number, path: 'scanner' | 'parse'): { firstMs: number; updateMs: number; kept: number } {
  const model = createModelContext()
  const core = connectedCore(model)
  const run = paths(core, model)[path]
  run(copies(text, 1, 0xffff0000)[0]!) // compiled
  const lines = copies(text, runs, 0)
  const before = heap()
  const first = lines.map((b) => {
    const t0 = cpuUs()
    run(b)
    return cpuUs() - t0
  })
  const kept = (heap() - before) / runs
  const update = lines.map((b) => {
    const t0 = cpuUs()
    run(b)
    return cpuUs() - t0
  })
  return { firstMs: median(first) / 1000, updateMs: median(update) / 1000, kept }
}

/**
 * Ordinary pods arriving every `gapMs` (their arrival times virtual, their handling measured):
 * each waits for whatever was handled before it; returns the latencies (ms). `burst`: hostile
 * lines that arrive at once after the first tenth of the ordinary ones.
 */
function latencies(ordinary: Uint8Array[], burst: Uint8Array[], gapMs: number): number[] {
  const model = createModelContext()
  const run = paths(connectedCore(model), model).scanner
  const out: number[] = []
  let clock = 0 // ms: when the handler is free
  for (let i = 0; i < ordinary.length; i++) {
    const arrival = i * gapMs
    if (i === ordinary.length / 10) {
      for (const b of burst) {
        const t0 = cpuUs()
        run(b)
        clock = Math.max(clock, arrival) + (cpuUs() - t0) / 1000
      }
    }
    const t0 = cpuUs()
    run(ordinary[i]!)
    clock = Math.max(clock, arrival) + (cpuUs() - t0) / 1000
    out.push(clock - arrival)
  }
  return out
}

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!
const round = (x: number, d = 3): number => Number(x.toFixed(d))

export async function benchHostile(opts: BenchOptions): Promise<BenchSection> {
  const folds = opts.quick ? [1_000, 4_000] : [1_000, 4_000, 16_000]
  const figures: Record<string, number | string> = {}
  const targets: BenchTarget[] = []
  const notes: string[] = []
  if (!gc) notes.push('no --expose-gc: heap figures are 0')
  for (const shape of shapes) {
    const key = shape.name.replace(/[^a-zA-Z0-9]+/g, '_').replace(/^_|_$/g, '')
    const cpu: Record<string, number[]> = { scanner: [], parse: [] }
    for (const k of folds) {
      const text = shape.line(k)
      const size = enc.encode(text).length
      const runs = size > 1 << 20 ? 3 : size > 1 << 18 ? 5 : 9
      figures[`${key}_${k}_KiB`] = round(size / 1024, 1)
      for (const path of ['scanner', 'parse'] as const) {
        const m = measure(text, runs, path)
        cpu[path]!.push(m.firstMs)
        figures[`${key}_${k}_${path}_ms`] = round(m.firstMs)
        figures[`${key}_${k}_${path}_update_ms`] = round(m.updateMs)
        if (path === 'scanner') figures[`${key}_${k}_kept_x_size`] = round(m.kept / size, 2)
        if (size <= API_MAX_BYTES) {
          targets.push({ name: `${shape.name} ×${k} (${path}): CPU a pod`, value: round(Math.max(m.firstMs, m.updateMs)), limit: 50, op: '<=', unit: 'ms' })
          if (path === 'scanner' && gc) targets.push({ name: `${shape.name} ×${k}: heap kept ÷ its size`, value: round(m.kept / size, 2), limit: 5, op: '<=', unit: '×' })
        }
      }
    }
    if (folds.length >= 3) {
      for (const path of ['scanner', 'parse'] as const) {
        const ratio = round(cpu[path]![2]! / cpu[path]![1]!, 2)
        figures[`${key}_${path}_16k_over_4k`] = ratio
        targets.push({ name: `${shape.name} (${path}): CPU 16k ÷ 4k`, value: ratio, limit: 5, op: '<=', unit: '×' })
      }
    }
  }

  // Issue 22's burst: 50 pods of 1,000 distinct images among ordinary pods arriving every 2 ms.
  const ordinaryCount = opts.quick ? 1_000 : 5_000
  const ordinary = Array.from({ length: ordinaryCount }, (_, i) => enc.encode(JSON.stringify({ type: 'ADDED', object: pod(i) })))
  const distinct = shapes.find((s) => s.name.startsWith('many containerStatuses (distinct'))!
  const burst = copies(distinct.line(1_000), 50, 0x40000000)
  latencies(ordinary.slice(0, 500), [], 2) // compiled
  const quiet = latencies(ordinary, [], 2)
  const hostile = latencies(ordinary, burst, 2)
  figures.burst_MiB = round(burst.reduce((n, b) => n + b.length, 0) / (1 << 20), 1)
  figures.ordinary_latency_quiet_p50_ms = round(pct(quiet, 0.5))
  figures.ordinary_latency_quiet_p99_ms = round(pct(quiet, 0.99))
  figures.ordinary_latency_burst_p50_ms = round(pct(hostile, 0.5))
  figures.ordinary_latency_burst_p99_ms = round(pct(hostile, 0.99))
  figures.ordinary_latency_burst_max_ms = round(Math.max(...hostile))
  const ratio = round(pct(hostile, 0.99) / Math.max(pct(quiet, 0.99), 1e-3), 2)
  targets.push({ name: 'ordinary pods during the burst: p99 latency ÷ quiet', value: ratio, limit: 2, op: '<=', unit: '×' })
  notes.push('CPU: medians of the first event of each of several pods of the shape (a new pod: decoded, announced, every message fitted and encoded); update: the same pods again (nothing kept changed)')
  notes.push('latency: in process, the arrival of ordinary pods every 2 ms virtual, their handling measured in CPU time; the burst arrives after the first tenth (no network, no watch delivery)')
  return { name: 'hostile', figures, targets, notes }
}
