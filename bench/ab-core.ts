// Same-process A/B of the core (convert + match + encode) against another checkout of this repo:
// both cores hold the same 150k-pod cluster and are fed the same churn, chunk by chunk, the order
// alternated, so load and heap state hit both alike. Usage (from the repo root, so that tsx runs
// these files as ES modules, as the bench does):
//   tsx --expose-gc bench/ab-core.ts <other checkout> [pods] [events]
// Prints convert and match + encode ms per phase and the ratio this ÷ other (bench/README.md, issue 19).
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { makeOwners, ownerObject, podObject, type ClusterShape } from './workload.ts'

type Json = Record<string, unknown>
interface Side {
  readonly name: string
  pods(ev: Json, now: number): unknown[]
  convert(obj: unknown): unknown
  write(msgs: unknown[]): void
  convertMs: number
  matchMs: number
}

const [otherDir, podsArg, eventsArg] = process.argv.slice(2)
if (!otherDir) throw new Error('usage: tsx --expose-gc bench/ab-core.ts <other checkout> [pods] [events]')
const shape: ClusterShape = { pods: Number(podsArg ?? 150_000), seed: 3 }
const events = Number(eventsArg ?? 300_000)
const CHUNK = 32 // events per parse, as bench/match.ts
const config = { deleteTtlMs: 60_000, deleteCapacity: 10_000, waitingLimit: 1_000_000 }
const gc = (globalThis as { gc?: () => void }).gc
const enc = new TextEncoder()
const dec = new TextDecoder()
const json = (v: unknown): Uint8Array => enc.encode(JSON.stringify(v))
const parse = (b: Uint8Array): unknown => JSON.parse(dec.decode(b))

const owners = makeOwners(shape)
const podJson = Array.from({ length: shape.pods }, (_, i) => json(podObject(shape, owners, i, 1000 + i)))
// A third of the pods change images in the churn (as bench/match.ts).
const updatedJson = podJson.map((b, i) => (i % 3 === 0 ? json(podObject(shape, owners, i, 9_000_000 + i, 1)) : b))
const ownerJson = owners.map((o, i) => json(ownerObject(o, 500 + i)))

/** A listed, connected core of the checkout at `dir`; older checkouts (module-level caches, `connect(now)`) too. */
async function side(name: string, dir: string): Promise<Side> {
  const load = (p: string) => import(pathToFileURL(path.resolve(dir, p)).href)
  const [model, match, ingest] = await Promise.all([load('src/model/index.ts'), load('src/match/index.ts'), load('src/ingest/index.ts')])
  const ctx = model.createModelContext?.()
  const podMeta = (o: unknown, listed = false): unknown => (ctx ? model.podMetaOf(ctx, o, listed) : model.podMetaOf(o, listed))
  const ownerMeta = (kind: string, o: unknown): unknown => (ctx ? model.ownerMetaOf(ctx, kind, o) : model.ownerMetaOf(kind, o))
  const core = ctx ? match.createCollectorCore(config, ctx) : match.createCollectorCore(config)
  const writer = ingest.createMessageWriter()
  const write = (msgs: unknown[]): void => {
    for (const m of msgs) writer.write(m, 1n)
    if (writer.length > 60_000) writer.take()
  }
  core.owners('ReplicaSet', { type: 'init' }, 0)
  for (const b of ownerJson) core.owners('ReplicaSet', { type: 'initApply', object: ownerMeta('ReplicaSet', parse(b)) }, 0)
  core.owners('ReplicaSet', { type: 'initDone' }, 0)
  core.owners('Job', { type: 'init' }, 0)
  core.owners('Job', { type: 'initDone' }, 0)
  core.pods({ type: 'init' }, 0)
  for (const b of podJson) core.pods({ type: 'initApply', object: podMeta(parse(b), true) }, 0)
  core.pods({ type: 'initDone' }, 0)
  write(core.connect(0))
  writer.take()
  return { name, pods: (ev, now) => core.pods(ev, now), convert: (o) => podMeta(o), write, convertMs: 0, matchMs: 0 }
}

/** One churn on both cores: `steady` flips which pods carry the changed images; `repeat` sends every pod as listed. */
function churn(sides: Side[], label: string, steady: boolean, repeat = false): void {
  for (const s of sides) s.convertMs = s.matchMs = 0
  gc?.()
  for (let k0 = 0, c = 0; k0 < events; k0 += CHUNK, c++) {
    for (const s of c % 2 === 0 ? sides : [...sides].reverse()) {
      const objects: unknown[] = []
      for (let k = k0; k < k0 + CHUNK && k < events; k++) {
        const i = (k * 7919) % shape.pods
        const original = repeat || (k % 10 === 9 ? !steady : steady)
        objects.push(parse(original ? podJson[i]! : updatedJson[i]!))
      }
      const t0 = performance.now()
      const metas = objects.map((o) => s.convert(o))
      const t1 = performance.now()
      for (let j = 0; j < metas.length; j++) s.write(s.pods({ type: (k0 + j) % 50 === 49 ? 'delete' : 'apply', object: metas[j] }, k0 + j))
      s.convertMs += t1 - t0
      s.matchMs += performance.now() - t1
    }
  }
  const [other, self] = sides as [Side, Side]
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(3)}×`
  console.log(
    `${label.padEnd(7)} convert ${other.convertMs.toFixed(0)} → ${self.convertMs.toFixed(0)} ms (${ratio(self.convertMs, other.convertMs)})` +
      `  match + encode ${other.matchMs.toFixed(0)} → ${self.matchMs.toFixed(0)} ms (${ratio(self.matchMs, other.matchMs)})`,
  )
}

const sides = [await side('other', otherDir), await side('this', '.')]
console.log(`${shape.pods} pods, ${events} events a phase; other = ${otherDir}, this = ${process.cwd()}; ms other → this (this ÷ other)`)
churn(sides, 'churn', false) // each pod's first events after the LIST (it is described then)
churn(sides, 'steady', true) // images change back on that third
churn(sides, 'repeat', true, true) // nothing kept changes: the settled pods' path
churn(sides, 'churn', false)
churn(sides, 'steady', true)
churn(sides, 'repeat', true, true)
