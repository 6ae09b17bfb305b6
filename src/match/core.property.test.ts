// Property test of the matcher (issue 3): random interleavings of the three streams, outages,
// relists, reconnects and clock advances, applied to the reducer's per-connection model.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { expandMessages, type PodOutput } from '../ingest/messages.ts'
import { compareUtf8, type ContainerMeta, type OwnerKind, type OwnerMeta, type PodMeta } from '../model/index.ts'
import { applyToReducerState, createReducerState, stripContainerScheme, type ReducerState } from '../tap/reducer-state.ts'
import { createCollectorCore } from './index.ts'

type OwnerChoice = { kind: 'ReplicaSet' | 'Job' | 'DaemonSet' | 'none'; idx: number }
type Op =
  | { op: 'podPut'; pod: number; owner: OwnerChoice; hasIp: boolean; ip: number; image: number; containers: number; host: boolean; restarts: number; rename: number }
  | { op: 'podDelete'; pod: number }
  | { op: 'ownerPut'; kind: OwnerKind; idx: number; controller: number }
  | { op: 'ownerDelete'; kind: OwnerKind; idx: number }
  | { op: 'relist'; stream: 'pods' | 'replicasets' | 'jobs' }
  | { op: 'outage'; stream: 'replicasets' | 'jobs' }
  | { op: 'reconnect' }
  | { op: 'disconnect' }
  | { op: 'tick'; ms: number }

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('podPut' as const), pod: fc.nat(5), owner: fc.record({ kind: fc.constantFrom('ReplicaSet' as const, 'Job' as const, 'DaemonSet' as const, 'none' as const), idx: fc.nat(2) }), hasIp: fc.boolean(), ip: fc.nat(3), image: fc.nat(2), containers: fc.nat(2), host: fc.boolean(), restarts: fc.nat(1), rename: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('podDelete' as const), pod: fc.nat(5) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('ownerPut' as const), kind: fc.constantFrom('ReplicaSet' as const, 'Job' as const), idx: fc.nat(2), controller: fc.integer({ min: -1, max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('ownerDelete' as const), kind: fc.constantFrom('ReplicaSet' as const, 'Job' as const), idx: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('relist' as const), stream: fc.constantFrom('pods' as const, 'replicasets' as const, 'jobs' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('outage' as const), stream: fc.constantFrom('replicasets' as const, 'jobs' as const) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'reconnect' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'disconnect' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 90_000 }) }) },
)

const IMAGES = ['nginx:1.25', 'busybox', 'app:2']
const streamKind = { replicasets: 'ReplicaSet', jobs: 'Job' } as const

// Pods 0–2 differ only in the middle of their uids, which the pod table does not hash: they share
// one chain there (pod-table.ts), so adds and deletes exercise its head, middle and tail.
const podUid = (pod: number) => (pod < 3 ? `chained-${pod}-together` : `p${pod}`)

function podMeta(op: Extract<Op, { op: 'podPut' }>): PodMeta {
  const uid = podUid(op.pod)
  const containers: ContainerMeta[] = []
  for (let i = 0; i < op.containers; i++) {
    const image = IMAGES[(op.image + i) % IMAGES.length]!
    // A restart gives a container a new id with the same image; the first container's name varies too.
    containers.push({ id: `containerd://${uid}-${i}-${image}-r${op.restarts}`, name: i === 0 && op.rename > 0 ? 'main' : `c${i}`, image })
  }
  const owner =
    op.owner.kind === 'none'
      ? undefined
      : { kind: op.owner.kind, uid: `${op.owner.kind[0]}${op.owner.idx}`, name: `${op.owner.kind}-${op.owner.idx}` }
  return {
    uid,
    // Pod names do not change in Kubernetes, but an ownerless pod's resolution carries its name.
    name: op.rename > 0 ? `pod-${op.pod}-renamed` : `pod-${op.pod}`,
    namespace: 'ns',
    resourceVersion: '1',
    ip: op.hasIp ? 0x0a000000 + op.ip : 0,
    hasIp: op.hasIp,
    hostNetwork: op.host,
    version: containers.map((c) => `'${c.image}'`).sort(compareUtf8).join(','),
    containers,
    ...(owner ? { owner } : {}),
  }
}

function ownerMeta(kind: OwnerKind, idx: number, controller: number): OwnerMeta {
  const ctrlKind = kind === 'ReplicaSet' ? 'Deployment' : 'CronJob'
  return {
    kind,
    uid: `${kind[0]}${idx}`,
    name: `${kind}-${idx}`,
    namespace: 'ns',
    resourceVersion: '1',
    ...(controller >= 0 ? { controller: { kind: ctrlKind, uid: `${ctrlKind}-${controller}`, name: `${ctrlKind.toLowerCase()}-${controller}` } } : {}),
  }
}

/** Runs the ops; returns a readable failure or undefined. */
function run(ops: Op[], waitingLimit: number): void {
  const core = createCollectorCore({ deleteTtlMs: 60_000, deleteCapacity: 2, waitingLimit, forcedResyncMinIntervalMs: 1000, forcedResyncMaxIntervalMs: 4000 })
  const cluster = { pods: new Map<string, PodMeta>(), owners: { ReplicaSet: new Map<string, OwnerMeta>(), Job: new Map<string, OwnerMeta>() } }
  const down = { replicasets: false, jobs: false }
  let now = 0
  let connected = false
  let reducer: ReducerState = createReducerState()
  const everSent = new Map<string, Set<string>>() // uid → container ids sent on the current connection
  const epochs: bigint[] = []

  const deliver = (out: PodOutput[]) => {
    if (!connected) {
      expect(out, 'messages while disconnected').toEqual([])
      return
    }
    for (const m of expandMessages(out)) {
      if (m.type === 'pod_resync') {
        epochs.push(m.resyncCount)
        everSent.clear()
      }
      if (m.type === 'pod_container') {
        expect(reducer.pods.has(m.uid), `pod_container for unannounced ${m.uid}`).toBe(true)
        const s = everSent.get(m.uid) ?? new Set()
        everSent.set(m.uid, s.add(`${m.containerId}|${m.containerName}|${m.containerImage}`))
      }
      if (m.type === 'pod_delete') expect(reducer.pods.has(m.uid), `pod_delete for unannounced ${m.uid}`).toBe(true)
      applyToReducerState(reducer, m)
    }
  }
  const relistOwners = (kind: OwnerKind) => {
    const stream = kind === 'ReplicaSet' ? 'replicasets' : 'jobs'
    down[stream] = false
    deliver(core.owners(kind, { type: 'init' }, now))
    for (const o of cluster.owners[kind].values()) deliver(core.owners(kind, { type: 'initApply', object: o }, now))
    deliver(core.owners(kind, { type: 'initDone' }, now))
  }
  const relistPods = () => {
    deliver(core.pods({ type: 'init' }, now))
    for (const p of cluster.pods.values()) deliver(core.pods({ type: 'initApply', object: p }, now))
    deliver(core.pods({ type: 'initDone' }, now))
  }
  const connect = () => {
    connected = true
    reducer = createReducerState()
    deliver(core.connect())
  }
  const serveRelistRequests = () => {
    if (core.takeRelistRequest()) {
      relistOwners('ReplicaSet')
      relistOwners('Job')
    }
  }

  relistOwners('ReplicaSet')
  relistOwners('Job')
  relistPods()
  expect(core.primed).toBe(true)
  connect()

  for (const op of ops) {
    switch (op.op) {
      case 'podPut': {
        const meta = podMeta(op)
        cluster.pods.set(meta.uid, meta)
        deliver(core.pods({ type: 'apply', object: meta }, now))
        break
      }
      case 'podDelete': {
        const meta = cluster.pods.get(podUid(op.pod))
        if (!meta) break
        cluster.pods.delete(meta.uid)
        deliver(core.pods({ type: 'delete', object: meta }, now))
        break
      }
      case 'ownerPut': {
        const meta = ownerMeta(op.kind, op.idx, op.controller)
        cluster.owners[op.kind].set(meta.uid, meta)
        if (!down[op.kind === 'ReplicaSet' ? 'replicasets' : 'jobs']) deliver(core.owners(op.kind, { type: 'apply', object: meta }, now))
        break
      }
      case 'ownerDelete': {
        const meta = cluster.owners[op.kind].get(`${op.kind[0]}${op.idx}`)
        if (!meta) break
        cluster.owners[op.kind].delete(meta.uid)
        if (!down[op.kind === 'ReplicaSet' ? 'replicasets' : 'jobs']) deliver(core.owners(op.kind, { type: 'delete', object: meta }, now))
        // The garbage collector deletes the dependents afterwards.
        for (const p of [...cluster.pods.values()]) {
          if (p.owner?.uid === meta.uid) {
            cluster.pods.delete(p.uid)
            deliver(core.pods({ type: 'delete', object: p }, now))
          }
        }
        break
      }
      case 'relist':
        if (op.stream === 'pods') relistPods()
        else relistOwners(streamKind[op.stream])
        break
      case 'outage':
        if (!down[op.stream]) {
          down[op.stream] = true
          deliver(core.owners(streamKind[op.stream], { type: 'unavailable', reason: '403' }, now))
        }
        break
      case 'reconnect':
        core.disconnect()
        connect()
        break
      case 'disconnect':
        core.disconnect()
        connected = false
        break
      case 'tick':
        now += op.ms
        core.tick(now)
        break
    }
    serveRelistRequests()
  }

  // Quiescence: streams recover, the clock runs on, a connection exists.
  for (const stream of ['replicasets', 'jobs'] as const) if (down[stream]) relistOwners(streamKind[stream])
  now += 10 * 60_000
  core.tick(now)
  serveRelistRequests()
  if (!connected) connect()

  // What the final cluster implies (docs/behaviour.md §3): resolvable pods with their effective owners.
  const expected = new Map<string, { ownerKind: number; ownerUid: string; ownerName: string; pod: PodMeta }>()
  for (const p of cluster.pods.values()) {
    if (!p.hasIp) continue
    const o = p.owner
    if (!o) expected.set(p.uid, { ownerKind: 254, ownerUid: '', ownerName: p.name, pod: p })
    else if (o.kind === 'DaemonSet') expected.set(p.uid, { ownerKind: 255, ownerUid: o.uid, ownerName: o.name, pod: p })
    else {
      const owner = cluster.owners[o.kind as OwnerKind].get(o.uid)
      if (!owner) continue // waits
      const c = owner.controller
      if (c) expected.set(p.uid, { ownerKind: c.kind === 'Deployment' ? 1 : 3, ownerUid: c.uid, ownerName: c.name, pod: p })
      else expected.set(p.uid, { ownerKind: o.kind === 'ReplicaSet' ? 0 : 2, ownerUid: o.uid, ownerName: o.name, pod: p })
    }
  }
  // Every resolvable pod is held with exactly its current announcement…
  const held = (p: PodMeta) => {
    const r = reducer.pods.get(p.uid)
    return r && { owner: `${r.ownerKind}/${r.ownerUid}/${r.ownerName}`, ip: r.ip, version: r.version, host: r.isHostNetwork, name: `${r.ns}/${r.podName}` }
  }
  for (const e of expected.values()) {
    expect(held(e.pod), `reducer's view of ${e.pod.uid}`).toEqual({
      owner: `${e.ownerKind}/${e.ownerUid}/${e.ownerName}`,
      ip: e.pod.ip,
      version: e.pod.version,
      host: e.pod.hostNetwork,
      name: `${e.pod.namespace}/${e.pod.name}`,
    })
  }
  // …nothing deleted lingers, and the only extra pods are announced ones that became unresolvable
  // later (lost their IP, or their owner reference moved to an unknown owner): no rule retracts them.
  for (const uid of reducer.pods.keys()) {
    const p = cluster.pods.get(uid)
    expect(p, `deleted pod ${uid} lingers`).toBeDefined()
    if (!expected.has(uid)) {
      const o = p!.owner
      const unresolvable = !p!.hasIp || (o && o.kind !== 'DaemonSet' && !cluster.owners[o.kind as OwnerKind].get(o.uid))
      expect(unresolvable, `extra pod ${uid} is resolvable but not expected`).toBeTruthy()
    }
  }
  for (const e of expected.values()) {
    const held = reducer.pods.get(e.pod.uid)!
    for (const c of e.pod.containers) expect(held.containers.has(stripContainerScheme(c.id)), `container ${c.id} of ${e.pod.uid}`).toBe(true)
  }
  expect(reducer.ignored, 'messages the reducer would drop').toBe(0)
  for (let i = 1; i < epochs.length; i++) expect(epochs[i]! > epochs[i - 1]!, 'epochs strictly increase').toBe(true)
  expect(core.stats().podsAnnounced).toBe(reducer.pods.size)
}

describe('matcher property (random interleavings)', () => {
  it('the reducer ends up holding exactly the resolvable pods with their effective owners', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 60 }), (ops) => run(ops, 10_000)),
      { numRuns: 400 },
    )
  })

  it('the same with a tiny waiting limit (forced owner relists and epochs)', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 60 }), (ops) => run(ops, 2)),
      { numRuns: 300 },
    )
  })
})
