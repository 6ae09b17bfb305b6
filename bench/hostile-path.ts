// One pod's whole per-pod path for the hostile section (issue 22): the watch line decoded (the
// byte scanner, or JSON.parse + podMetaOf), matched by a connected core, its messages fitted and
// encoded; and the CPU a first event and an update of a pod of one shape cost, each timed pod
// starting from a collected heap.
import { createPodScanner } from '../src/kube/pod-scanner.ts'
import { createFrameEncoder } from '../src/link/encoder.ts'
import { createCounters } from '../src/link/stats.ts'
import { expandMessages, type IngestMessage } from '../src/ingest/index.ts'
import { createRateLimitedLog } from '../src/observe/rate-limit.ts'
import { createCollectorCore, type CollectorCore } from '../src/match/index.ts'
import { createModelContext, type ModelContext, type OwnerMeta, type PodMeta } from '../src/model/index.ts'
import { podMetaOf } from '../src/model/convert.ts'
import { hex } from './hostile-shapes.ts'

type Json = Record<string, any>

export type DecodePath = 'scanner' | 'parse'

const TS = 1_700_000_000_000_000_000n
const enc = new TextEncoder()
const dec = new TextDecoder()
const gc = (globalThis as { gc?: () => void }).gc

/** Process CPU time, µs (every thread: the GC's helpers count). */
export const cpuUs = (): number => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/** Heap in use after two full collections. */
const heap = (): number => {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

/**
 * A collected heap with no collector work left over: a full collection, then a pause in which its
 * concurrent sweeping ends (measured: without it, that sweeping landed in the next timed pod and
 * tripled the figure of a 145 KiB one).
 */
export async function settled(): Promise<void> {
  gc?.()
  await new Promise((resolve) => setTimeout(resolve, 20))
}

/** A connected core that knows the decode bench pods' ReplicaSet (of a Deployment). */
export function connectedCore(model: ModelContext): CollectorCore {
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

/** A watch line decoded by one path and matched: the messages the core sends for it. */
type Handler = (line: Uint8Array) => IngestMessage[]

/** The decode paths into `core`, sharing `model`. */
export function handlers(core: CollectorCore, model: ModelContext): Record<DecodePath, Handler> {
  const scanner = createPodScanner(model)
  const apply = (meta: PodMeta | undefined): IngestMessage[] => expandMessages(core.pods({ type: 'apply', object: meta! }, 0))
  return {
    scanner: (b) => apply(scanner.watchLine(b, 0, b.length).object),
    parse: (b) => apply(podMetaOf(model, (JSON.parse(dec.decode(b)) as Json).object)),
  }
}

/** `runs` copies of the line, each a pod of its own (the uid's last 8 hex digits numbered from `from`). */
export function copies(text: string, runs: number, from: number): Uint8Array[] {
  const uid = /"uid":"(5f1c[^"]*)"/.exec(text)![1]!
  return Array.from({ length: runs }, (_, i) => enc.encode(text.replace(`"uid":"${uid}"`, `"uid":"${uid.slice(0, -8)}${hex(from + i, 8)}"`)))
}

/** The middle value (the upper one of an even count). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

/** Untimed pods of a shape run through a path before the timed ones: every function it reaches optimised. */
const WARM_UP = 3

/** How a shape is timed: `runs` pods, each from a settled heap when `settleEach` (else the first only: a quick run). */
export interface Sampling {
  readonly runs: number
  readonly settleEach: boolean
}

/** CPU µs of `work` on each input, each started from a settled heap as `sampling` says. */
async function timed<T>(inputs: readonly T[], work: (input: T) => void, sampling: Sampling): Promise<number[]> {
  const out: number[] = []
  for (const b of inputs) {
    if (sampling.settleEach || out.length === 0) await settled()
    const t0 = cpuUs()
    work(b)
    out.push(cpuUs() - t0)
  }
  return out
}

export interface PodCpu {
  /** Median CPU ms of a first event (a new pod: decoded, announced, every message fitted and encoded). */
  readonly firstMs: number
  /** Median CPU ms of the same pods again (nothing kept changed). */
  readonly updateMs: number
}

/** One fold of a shape: its line and how many pods of it are timed. */
export interface Fold {
  readonly text: string
  readonly sampling: Sampling
}

/** A core and encoder on a fresh model, and `run`: one line through `path`, its messages encoded. */
function pipeline(path: DecodePath): (b: Uint8Array) => void {
  const model = createModelContext()
  const handle = handlers(connectedCore(model), model)[path]
  const encoder = createFrameEncoder({ counters: createCounters(), log: createRateLimitedLog(quiet) })
  return (b) => {
    for (const m of handle(b)) encoder.encode(m, TS)
    encoder.take()
  }
}

/**
 * The CPU a pod of each fold's line costs through `path`, first event and update: medians of the
 * pods each `sampling` says. The folds' pods go through one core interleaved, round by round, the
 * order alternated, so every fold meets the same heap and the same compiled code (run one after
 * the other, a fold's median moved with its predecessors' history: bench/README.md, issue 22).
 */
export async function podCpu(folds: readonly Fold[], path: DecodePath): Promise<PodCpu[]> {
  const run = pipeline(path)
  for (const [f, fold] of folds.entries()) for (const b of copies(fold.text, WARM_UP, 0xffff0000 + f * 0x100)) run(b)
  const lines = folds.map((fold, f) => copies(fold.text, fold.sampling.runs, f * 0x1000000))
  const first = await interleaved(lines, run, folds)
  const update = await interleaved(lines, run, folds)
  return folds.map((_, f) => ({ firstMs: median(first[f]!) / 1000, updateMs: median(update[f]!) / 1000 }))
}

/**
 * Heap bytes the core keeps for a pod of the fold's line: its timed count of pods through a core of
 * their own, the heap after ÷ before. Measured apart from the CPU: reusable buffers (the encoder's)
 * take the size of the last pod, so between pods of other sizes a pod's own delta is off.
 */
export function keptPerPod(fold: Fold, path: DecodePath): number {
  const run = pipeline(path)
  for (const b of copies(fold.text, WARM_UP, 0xffff0000)) run(b)
  const lines = copies(fold.text, fold.sampling.runs, 0)
  const before = heap()
  for (const b of lines) run(b)
  return (heap() - before) / lines.length
}

/** CPU µs of `work` on each fold's inputs, round by round (fold order alternated), each from a settled heap as the fold's sampling says. */
async function interleaved(inputs: readonly Uint8Array[][], work: (b: Uint8Array) => void, folds: readonly Fold[]): Promise<number[][]> {
  const cpu = inputs.map((): number[] => [])
  const rounds = Math.max(...inputs.map((i) => i.length))
  for (let r = 0; r < rounds; r++) {
    const order = inputs.map((_, f) => f)
    if (r % 2) order.reverse()
    for (const f of order) {
      const b = inputs[f]![r]
      if (b === undefined) continue
      if (folds[f]!.sampling.settleEach || r === 0) await settled()
      const t0 = cpuUs()
      work(b)
      cpu[f]!.push(cpuUs() - t0)
    }
  }
  return cpu
}

/** Median CPU ms of the engine's `JSON.parse` alone (the text decoded before) of copies of the line. */
export async function jsonParseMs(text: string, sampling: Sampling): Promise<number> {
  const texts = (from: number, n: number): string[] => copies(text, n, from).map((b) => dec.decode(b))
  const parse = (t: string): void => void JSON.parse(t)
  for (const t of texts(0xffff0000, WARM_UP)) parse(t)
  return median(await timed(texts(0, sampling.runs), parse, sampling)) / 1000
}
