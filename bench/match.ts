// Benchmark of the pure core: convert + match (+ encode) for a cluster snapshot and steady churn,
// and heap bytes per retained pod.
import { createMessageWriter, type PodMessage } from '../src/ingest/index.ts'
import { createCollectorCore } from '../src/match/index.ts'
import { ownerMetaOf, podMetaOf } from '../src/model/index.ts'
import type { BenchOptions, BenchSection } from './types.ts'
import { makeOwners, ownerObject, podObject, type ClusterShape } from './workload.ts'

const gc = (globalThis as { gc?: () => void }).gc

function heapUsed(): number {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

export async function benchMatch(opts: BenchOptions): Promise<BenchSection> {
  const shape: ClusterShape = { pods: opts.quick ? 20_000 : 150_000, seed: 3 }
  const owners = makeOwners(shape)
  // Pre-built JSON objects, as JSON.parse would hand them over (parsing is the decode section's).
  // JSON round trip: flat strings exactly like the API's bytes give (generated ones are ropes).
  const parsed = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T
  const podObjects = Array.from({ length: shape.pods }, (_, i) => parsed(podObject(shape, owners, i, 1000 + i)))
  const ownerObjects = owners.map((o, i) => parsed(ownerObject(o, 500 + i)))
  const config = { deleteTtlMs: 60_000, deleteCapacity: 10_000, waitingLimit: 1_000_000 }

  // Snapshot: owners listed, pods listed, first connection announces everything, encoded.
  // Best of three runs (the first one also pays for JIT warm-up).
  const writer = createMessageWriter()
  let core = createCollectorCore(config)
  let initial: PodMessage[] = []
  let t0 = 0
  let t1 = Infinity
  let t2 = Infinity
  for (let run = 0; run < 3; run++) {
    const start = performance.now()
    const c = createCollectorCore(config)
    c.owners('ReplicaSet', { type: 'init' }, 0)
    for (const o of ownerObjects) c.owners('ReplicaSet', { type: 'initApply', object: ownerMetaOf('ReplicaSet', o)! }, 0)
    c.owners('ReplicaSet', { type: 'initDone' }, 0)
    c.owners('Job', { type: 'init' }, 0)
    c.owners('Job', { type: 'initDone' }, 0)
    c.pods({ type: 'init' }, 0)
    for (const p of podObjects) c.pods({ type: 'initApply', object: podMetaOf(p)! }, 0)
    c.pods({ type: 'initDone' }, 0)
    const listed = performance.now()
    const msgs = c.connect(0)
    for (const m of msgs) {
      writer.write(m, 1n)
      if (writer.length > 60_000) writer.take()
    }
    writer.take()
    const announced = performance.now()
    if (listed - start < t1 - t0) {
      t0 = start
      t1 = listed
      t2 = listed + (announced - listed)
    }
    core = c
    initial = msgs
  }
  const snapshotEvents = shape.pods + owners.length
  const stats = core.stats()

  // Churn: status updates (image change on a third of them), deletes and re-adds, connected.
  const churnEvents = opts.quick ? 50_000 : 300_000
  const updated = podObjects.map((_, i) => (i % 3 === 0 ? parsed(podObject(shape, owners, i, 9_000_000 + i, 1)) : podObjects[i]!))
  const t3 = performance.now()
  let sent = 0
  for (let k = 0; k < churnEvents; k++) {
    const i = (k * 7919) % shape.pods
    const obj = k % 10 === 9 ? podObjects[i]! : updated[i]!
    const type = k % 50 === 49 ? 'delete' : 'apply'
    for (const m of core.pods({ type, object: podMetaOf(obj)! }, k)) {
      writer.write(m, 1n)
      sent++
    }
    if (writer.length > 60_000) writer.take()
  }
  const t4 = performance.now()

  // The same churn again with the metas converted beforehand: match + encode alone, so the split
  // between converting (reading the parsed objects) and the core shows.
  const metas = Array.from({ length: churnEvents }, (_, k) => {
    const i = (k * 7919) % shape.pods
    return podMetaOf(k % 10 === 9 ? podObjects[i]! : updated[i]!)!
  })
  const t5 = performance.now()
  for (let k = 0; k < churnEvents; k++) {
    for (const m of core.pods({ type: k % 50 === 49 ? 'delete' : 'apply', object: metas[k]! }, k)) writer.write(m, 1n)
    if (writer.length > 60_000) writer.take()
  }
  const t6 = performance.now()
  metas.length = 0

  // Heap per retained pod: a fresh core holding the cluster, connected (announcement state included).
  podObjects.length = 0
  updated.length = 0
  const before = heapUsed()
  const retained = createCollectorCore(config)
  for (const kind of ['ReplicaSet', 'Job'] as const) {
    retained.owners(kind, { type: 'init' }, 0)
    if (kind === 'ReplicaSet') for (const o of ownerObjects) retained.owners(kind, { type: 'initApply', object: ownerMetaOf(kind, o)! }, 0)
    retained.owners(kind, { type: 'initDone' }, 0)
  }
  retained.pods({ type: 'init' }, 0)
  for (let i = 0; i < shape.pods; i++) {
    retained.pods({ type: 'initApply', object: podMetaOf(parsed(podObject({ ...shape, managedFields: false }, owners, i, 1000 + i)))! }, 0)
  }
  retained.pods({ type: 'initDone' }, 0)
  retained.connect(0)
  const after = heapUsed()
  const perPod = gc ? Math.round((after - before) / shape.pods) : NaN

  const snapshotRate = Math.round(snapshotEvents / ((t1 - t0) / 1000))
  const churnRate = Math.round(churnEvents / ((t4 - t3) / 1000))
  const churnCoreRate = Math.round(churnEvents / ((t6 - t5) / 1000))
  return {
    name: 'match',
    figures: {
      pods: shape.pods,
      replicasets: owners.length,
      snapshot_convert_match_events_per_s: snapshotRate,
      snapshot_connect_announce_encode_ms: +(t2 - t1).toFixed(1),
      snapshot_messages: initial.length,
      churn_events: churnEvents,
      churn_convert_match_encode_events_per_s: churnRate,
      churn_messages_sent: sent,
      churn_match_encode_only_events_per_s: churnCoreRate,
      heap_bytes_per_retained_pod: gc ? perPod : 'n/a (run with --expose-gc)',
      announced: stats.podsAnnounced,
      containers_per_pod_avg: 2,
    },
    targets: [
      { name: 'pod events/s through the core (snapshot)', value: snapshotRate, limit: 200_000, op: '>=', unit: 'events/s' },
      { name: 'pod events/s through the core (churn, incl. encode)', value: churnRate, limit: 200_000, op: '>=', unit: 'events/s' },
      ...(gc ? [{ name: 'heap per retained pod', value: perPod, limit: 1536, op: '<=' as const, unit: 'bytes' }] : []),
    ],
    notes: ['pods have 1–3 containers (avg 2); heap includes stores, indexes, interned strings and announcement state'],
  }
}
