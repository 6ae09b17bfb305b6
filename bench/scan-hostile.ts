// Hostile but valid pods through the byte scanner (issue 22): for each shape, one pod's cost at
// 1k, 4k and 16k-fold sizes — time per input byte (flat when linear), heap its meta keeps, heap the
// scanner keeps after it — with a stub model (the scanner alone) and with the model's interner and
// versions (src/model/convert.ts), beside JSON.parse + podMetaOf of the same line.
//   npx tsx --expose-gc bench/scan-hostile.ts [--folds 1000,4000,16000] [--only shape,shape]
import { createModelContext } from '../src/model/context.ts'
import { podMetaOf } from '../src/model/convert.ts'
import { createPodScanner, type ByteScanner } from '../src/kube/pod-scanner.ts'
import type { PodModel } from '../src/kube/pod-layout.ts'
import { newOwnerRef } from '../src/model/records.ts'
import type { PodMeta } from '../src/model/types.ts'
import { hex, line, shapes } from './hostile-shapes.ts'

type Json = Record<string, any>

const STUB: PodModel = { intern: (s) => s, versionOf: () => '', ownerRef: newOwnerRef }
const MODEL_CONTEXT = createModelContext()
const MODEL: PodModel = MODEL_CONTEXT
const gc = (globalThis as { gc?: () => void }).gc
const heap = (): number => {
  gc!()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

const cpuUs = (): number => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/**
 * CPU µs of one call (median of 5 samples of enough calls for 10 ms each; one sample when a call
 * takes over a second), and the heap the meta of one call keeps. CPU time: the machine is shared.
 */
function measure(bytes: Uint8Array, convert: (b: Uint8Array) => PodMeta | undefined): { us: number; kept: number } {
  let t0 = cpuUs()
  let meta = convert(bytes)
  const first = cpuUs() - t0
  if (meta === undefined) throw new Error('no pod')
  void meta
  const reps = Math.max(1, Math.ceil(10_000 / Math.max(first, 1)))
  const samples: number[] = []
  for (let s = 0; s < (first > 1e6 ? 0 : 5); s++) {
    t0 = cpuUs()
    for (let r = 0; r < reps; r++) meta = convert(bytes)
    samples.push((cpuUs() - t0) / reps)
  }
  samples.sort((a, b) => a - b)
  let kept = 0
  if (gc) {
    // Eight metas kept at once (one when slow), so the heap's noise is an eighth of a meta's.
    const before = heap()
    const metas = Array.from({ length: first > 2e5 ? 1 : 8 }, () => convert(bytes))
    kept = (heap() - before) / metas.length
  }
  return { us: samples.length ? samples[samples.length >> 1] : first, kept }
}

/** Heap the scanner itself keeps after reading `bytes` once (its cache), its meta dropped. */
function scannerKeeps(bytes: Uint8Array, model: PodModel): number {
  if (!gc) return 0
  const scanner: ByteScanner<PodMeta> = createPodScanner(model)
  scanner.watchLine(new Uint8Array([123, 125]), 0, 2)
  const before = heap()
  scanner.watchLine(bytes, 0, bytes.length)
  const after = heap()
  void scanner
  return after - before
}

const argv = process.argv.slice(2)
const arg = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined)
const folds = (arg('--folds') ?? '1000,4000,16000').split(',').map(Number)
const only = arg('--only')?.split(',')
const enc = new TextEncoder()
const dec = new TextDecoder()
const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

console.log(`scanner under hostile pods — Node ${process.version}${gc ? '' : ' (no --expose-gc: heap figures are 0)'}`)
console.log('ns/B = CPU time per input byte (median); growth = ns/B at the largest fold ÷ at the smallest (≈1 linear, ≈16 quadratic over 1k→16k);')
console.log('keeps/B = heap retained by the meta per input byte; scanner keeps = heap bytes the scanner (its cache) retains after the pod; — = left out (a call of the fold before took > 1 s)')
// Warm-up: every path compiled before the first figure.
{
  const b = enc.encode(line(() => {}))
  const warm = [createPodScanner(STUB), createPodScanner(MODEL)]
  for (let i = 0; i < 2000; i++) {
    for (const s of warm) s.watchLine(b, 0, b.length)
    podMetaOf(MODEL_CONTEXT, (JSON.parse(dec.decode(b)) as Json).object)
  }
}
for (const shape of shapes) {
  if (only && !only.some((o) => shape.name.startsWith(o))) continue
  console.log(`\n${shape.name}`)
  console.log(`  ${'fold'.padStart(6)} ${'KB'.padStart(8)} | ${'stub ns/B'.padStart(9)} ${'keeps/B'.padStart(7)} ${'scanner keeps'.padStart(13)} | ${'model ns/B'.padStart(10)} | ${'JSON.parse ns/B'.padStart(15)}`)
  const rows: number[][] = []
  let slow = [false, false, false] // a call took over a second: larger folds of that column are left out
  for (const k of folds) {
    const text = shape.line(k)
    JSON.parse(text) // valid, or the shape is wrong
    const bytes = enc.encode(text)
    const stubScanner = createPodScanner(STUB)
    const modelScanner = createPodScanner(MODEL)
    const converters = [
      (b: Uint8Array) => stubScanner.watchLine(b, 0, b.length).object,
      (b: Uint8Array) => modelScanner.watchLine(b, 0, b.length).object,
      (b: Uint8Array) => podMetaOf(MODEL_CONTEXT, (JSON.parse(dec.decode(b)) as Json).object),
    ]
    const n = bytes.length
    const results = converters.map((convert, c) => (slow[c] ? undefined : measure(bytes, convert)))
    slow = results.map((r) => r === undefined || r.us > 1e6)
    // The model and JSON.parse + podMetaOf share the model's code (versionOf): both left out together.
    slow[1] = slow[2] = slow[1] || slow[2]
    rows.push(results.map((r) => (r ? (r.us * 1000) / n : NaN)))
    const [stub, model, parsed] = rows[rows.length - 1]
    const keeps = scannerKeeps(bytes, STUB)
    const col = (v: number, w: number): string => (Number.isNaN(v) ? '—' : fmt(v, 2)).padStart(w)
    console.log(
      `  ${fmt(k).padStart(6)} ${fmt(n / 1024).padStart(8)} | ${col(stub, 9)} ${(results[0] ? fmt(results[0].kept / n, 2) : '—').padStart(7)} ${fmt(keeps).padStart(13)} | ${col(model, 10)} | ${col(parsed, 15)}`,
    )
  }
  const growth = (c: number): string => {
    const last = rows.findLastIndex((r) => !Number.isNaN(r[c]))
    return last <= 0 ? '—' : `${fmt(rows[last][c] / rows[0][c], 1)}× (to ${fmt(folds[last])})`
  }
  console.log(`  growth from ${fmt(folds[0])}: stub ${growth(0)}, model ${growth(1)}, JSON.parse ${growth(2)}`)
}

// The string cache flooded: pods with distinct images of one length, one after another through
// one scanner; what its cache keeps is counted in ArrayBuffer bytes (its keys are byte copies).
if (gc && !only) {
  console.log('\nstring cache after 4,096 pods with distinct images of n bytes (stub model): ArrayBuffer bytes it keeps')
  for (const n of [64, 256, 257, 4096, 65536]) {
    const scanner = createPodScanner(STUB)
    const base = enc.encode(line((p) => (p.status.containerStatuses[0].image = '@'.repeat(n))))
    const at = base.indexOf(64)
    gc()
    const before = process.memoryUsage().arrayBuffers
    for (let i = 0; i < 4096; i++) {
      base.set(enc.encode(hex(i, 8)), at) // a distinct image, same length
      scanner.watchLine(base, 0, base.length)
    }
    gc()
    console.log(`  n = ${fmt(n).padStart(6)}: ${fmt(process.memoryUsage().arrayBuffers - before).padStart(13)} bytes`)
  }
}
