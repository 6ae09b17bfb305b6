// Benchmark of the pure core: convert + match (+ encode) for a cluster snapshot and steady churn,
// and heap bytes per retained pod.
//
// The cluster is held as the JSON bytes the API server sends, and each chunk of events is parsed
// (untimed) right before the timed part converts, matches and encodes it: that is how the core is
// fed, one freshly decoded event after another. Objects parsed all in advance instead sit cold in a
// heap of several GB and are read in scattered order, which no caller does; that measured the
// memory system, not the core (see bench/README.md).
import { createMessageWriter, expandMessages } from '../src/ingest/index.ts'
import { createCollectorCore, type CollectorCore, type CoreStats } from '../src/match/index.ts'
import { createModelContext, ownerMetaOf, podMetaOf, type PodMeta } from '../src/model/index.ts'
import type { BenchOptions, BenchSection } from './types.ts'
import { makeOwners, ownerObject, podObject, type ClusterShape } from './workload.ts'

const gc = (globalThis as { gc?: () => void }).gc

function heapUsed(): number {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

/** Events per parse: ~170 KB of pod JSON, a few socket reads' worth. */
const CHUNK = 32

export async function benchMatch(opts: BenchOptions): Promise<BenchSection> {
  const shape: ClusterShape = { pods: opts.quick ? 20_000 : 150_000, seed: 3 }
  const owners = makeOwners(shape)
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  const json = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v))
  const parse = (bytes: Uint8Array): unknown => JSON.parse(decoder.decode(bytes))
  const podJson = Array.from({ length: shape.pods }, (_, i) => json(podObject(shape, owners, i, 1000 + i)))
  // A third of the pods change images in the churn.
  const updatedJson = podJson.map((bytes, i) => (i % 3 === 0 ? json(podObject(shape, owners, i, 9_000_000 + i, 1)) : bytes))
  const ownerObjects = owners.map((o, i) => parse(json(ownerObject(o, 500 + i))))
  const config = { deleteTtlMs: 60_000, deleteCapacity: 10_000, waitingLimit: 1_000_000 }
  // One model context for the section, as a collector process has one: later runs find its caches
  // warm, and the heap per retained pod leaves them out.
  const model = createModelContext()

  // Snapshot: owners listed, pods listed, first connection announces everything, encoded.
  const writer = createMessageWriter()
  // Figures only: the cores stay inside the calls, so nothing keeps them alive for the heap measurement.
  const snapshot = (use?: (core: CollectorCore) => void) => {
    heapUsed() // an earlier run's core is garbage: collected here, not inside a timed part
    const c = createCollectorCore(config, model)
    let listMs = 0
    let t = performance.now()
    c.owners('ReplicaSet', { type: 'init' }, 0)
    for (const o of ownerObjects) c.owners('ReplicaSet', { type: 'initApply', object: ownerMetaOf(model, 'ReplicaSet', o)! }, 0)
    c.owners('ReplicaSet', { type: 'initDone' }, 0)
    c.owners('Job', { type: 'init' }, 0)
    c.owners('Job', { type: 'initDone' }, 0)
    c.pods({ type: 'init' }, 0)
    listMs += performance.now() - t
    for (let k0 = 0; k0 < shape.pods; k0 += CHUNK) {
      const objects: unknown[] = []
      for (let k = k0; k < k0 + CHUNK && k < shape.pods; k++) objects.push(parse(podJson[k]!))
      t = performance.now()
      for (const o of objects) c.pods({ type: 'initApply', object: podMetaOf(model, o, true)! }, 0)
      listMs += performance.now() - t
    }
    t = performance.now()
    c.pods({ type: 'initDone' }, 0)
    const listed = performance.now()
    listMs += listed - t
    const msgs = expandMessages(c.connect())
    for (const m of msgs) {
      writer.write(m, 1n)
      if (writer.length > 60_000) writer.take()
    }
    writer.take()
    const result = { messages: msgs.length, listMs, announceMs: performance.now() - listed }
    use?.(c)
    return result
  }

  // Churn on a snapshot's core (built on a heap just collected, as the collector's is): status
  // updates (image change on a third of them), deletes and re-adds, connected. `steady`: a second
  // churn on the same core, after the first has given every pod an event since the LIST (the core
  // describes a listed pod at its first event: src/match/pod-store.ts); the images of that third change
  // back, the same deletes, the rest repeats.
  const churnEvents = opts.quick ? 50_000 : 300_000
  const churn = (core: CollectorCore, steady = false) => {
    heapUsed()
    let convertMs = 0
    let matchMs = 0
    let sent = 0
    for (let k0 = 0; k0 < churnEvents; k0 += CHUNK) {
      const objects: unknown[] = []
      for (let k = k0; k < k0 + CHUNK && k < churnEvents; k++) {
        const i = (k * 7919) % shape.pods
        const original = k % 10 === 9 ? !steady : steady
        objects.push(parse(original ? podJson[i]! : updatedJson[i]!))
      }
      const t0 = performance.now()
      const metas: PodMeta[] = []
      for (const o of objects) metas.push(podMetaOf(model, o)!)
      const t1 = performance.now()
      for (let j = 0; j < metas.length; j++) {
        const k = k0 + j
        for (const m of expandMessages(core.pods({ type: k % 50 === 49 ? 'delete' : 'apply', object: metas[j]! }, k))) {
          writer.write(m, 1n)
          sent++
        }
      }
      if (writer.length > 60_000) writer.take()
      const t2 = performance.now()
      convertMs += t1 - t0
      matchMs += t2 - t1
    }
    return { convertMs, matchMs, sent }
  }
  // Three runs, each on a fresh core: the snapshot's figures are the best run's (the first also
  // paid for JIT warm-up); the churn's are the median run's, as this machine's memory system makes
  // single runs vary by ±10 %.
  let stats: CoreStats | undefined
  const churns: ReturnType<typeof churn>[] = []
  const steadies: ReturnType<typeof churn>[] = []
  const runs = []
  for (let run = 0; run < 3; run++) {
    runs.push(
      snapshot((core) => {
        stats ??= core.stats()
        churns.push(churn(core))
        steadies.push(churn(core, true))
      }),
    )
  }
  const first = runs[0]!
  const { listMs, announceMs } = runs.reduce((a, b) => (b.listMs < a.listMs ? b : a))
  const churnMs = (c: (typeof churns)[number]) => c.convertMs + c.matchMs
  const medianRun = (rs: typeof churns) => [...rs].sort((a, b) => churnMs(a) - churnMs(b))[1]!
  const runsList = (rs: typeof churns) => rs.map((c) => Math.round(churnEvents / (churnMs(c) / 1000)).toLocaleString('en-US')).join(' / ')
  const { convertMs, matchMs, sent } = medianRun(churns)
  const steady = medianRun(steadies)
  const snapshotEvents = shape.pods + owners.length

  // Heap per retained pod: a fresh core holding the cluster, connected (announcement state included).
  // Built inside a call so that no temporary (the announcement's messages) outlives it.
  podJson.length = 0
  updatedJson.length = 0
  const build = (): CollectorCore => {
    const core = createCollectorCore(config, model)
    for (const kind of ['ReplicaSet', 'Job'] as const) {
      core.owners(kind, { type: 'init' }, 0)
      if (kind === 'ReplicaSet') for (const o of ownerObjects) core.owners(kind, { type: 'initApply', object: ownerMetaOf(model, kind, o)! }, 0)
      core.owners(kind, { type: 'initDone' }, 0)
    }
    core.pods({ type: 'init' }, 0)
    for (let i = 0; i < shape.pods; i++) {
      core.pods({ type: 'initApply', object: podMetaOf(model, parse(json(podObject({ ...shape, managedFields: false }, owners, i, 1000 + i))), true)! }, 0)
    }
    core.pods({ type: 'initDone' }, 0)
    core.connect()
    return core
  }
  const before = heapUsed()
  const retained = build()
  const after = heapUsed()
  if (retained.stats().podsAnnounced !== shape.pods) throw new Error('the retained core did not announce every pod')
  const perPod = gc ? Math.round((after - before) / shape.pods) : NaN
  // The same pods after an event each (a status update that changes nothing): described.
  const describe = (core: CollectorCore): void => {
    for (let i = 0; i < shape.pods; i++) {
      const sent = core.pods({ type: 'apply', object: podMetaOf(model, parse(json(podObject({ ...shape, managedFields: false }, owners, i, 2000 + i))))! }, 0)
      if (sent.length > 0) throw new Error('an unchanged pod sent messages')
    }
  }
  describe(retained)
  const afterEvents = heapUsed()
  const perPodDescribed = gc ? Math.round((afterEvents - before) / shape.pods) : NaN

  const snapshotRate = Math.round(snapshotEvents / (listMs / 1000))
  const churnRate = Math.round(churnEvents / ((convertMs + matchMs) / 1000))
  const steadyRate = Math.round(churnEvents / (churnMs(steady) / 1000))
  const us = (ms: number): number => +((ms * 1000) / churnEvents).toFixed(2)
  return {
    name: 'match',
    figures: {
      pods: shape.pods,
      replicasets: owners.length,
      events_per_parse_chunk: CHUNK,
      snapshot_convert_match_events_per_s: snapshotRate,
      snapshot_connect_announce_encode_ms: +announceMs.toFixed(1),
      snapshot_messages: first.messages,
      churn_events: churnEvents,
      churn_convert_match_encode_events_per_s: churnRate,
      churn_runs_events_per_s: runsList(churns),
      churn_convert_us_per_event: us(convertMs),
      churn_match_encode_us_per_event: us(matchMs),
      churn_messages_sent: sent,
      steady_churn_events_per_s: steadyRate,
      steady_churn_runs_events_per_s: runsList(steadies),
      steady_churn_convert_us_per_event: us(steady.convertMs),
      steady_churn_match_encode_us_per_event: us(steady.matchMs),
      steady_churn_messages_sent: steady.sent,
      heap_bytes_per_retained_pod: gc ? perPod : 'n/a (run with --expose-gc)',
      heap_bytes_per_retained_pod_described: gc ? perPodDescribed : 'n/a (run with --expose-gc)',
      announced: stats!.podsAnnounced,
      containers_per_pod_avg: 2,
    },
    targets: [
      { name: 'pod events/s through the core (snapshot)', value: snapshotRate, limit: 200_000, op: '>=', unit: 'events/s' },
      { name: 'pod events/s through the core (churn, incl. encode)', value: churnRate, limit: 200_000, op: '>=', unit: 'events/s' },
      { name: 'pod events/s through the core (steady churn, incl. encode)', value: steadyRate, limit: 200_000, op: '>=', unit: 'events/s' },
      ...(gc
        ? [
            { name: 'heap per retained pod', value: perPod, limit: 1536, op: '<=' as const, unit: 'bytes' },
            { name: 'heap per retained pod (described)', value: perPodDescribed, limit: 1536, op: '<=' as const, unit: 'bytes' },
          ]
        : []),
    ],
    notes: [
      'pods have 1–3 containers (avg 2); heap includes stores, indexes, interned strings and announcement state; as listed (the LIST metas kept) and described (after an event each)',
      'snapshot: the best of three runs; churn: the median of three runs, each on a fresh core (all three listed)',
      'churn = the first events after the LIST (each pod is described at its first event); steady churn = a second churn on the same core (a third of the pods change images back, the same deletes, the rest repeat)',
      `objects are parsed from JSON bytes ${CHUNK} events at a time, untimed, right before the timed convert + match + encode`,
    ],
  }
}
