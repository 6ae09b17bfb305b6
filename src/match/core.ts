// The matching core (docs/behaviour.md §3–§6), rule by rule: effective owners, owner tombstones,
// the emission rules, epochs and relists. Pure and synchronous: time comes in as `now` (ms),
// messages go out as return values. How pods are kept is the pod store's (pod-store.ts); what the
// current connection was told is the ledger's (ledger.ts).
import type { PodOutput, PodNewWithName } from '../ingest/messages.ts'
import { createModelContext, type ModelContext, type OwnerKind, type OwnerMeta, type OwnerRef, type PodMeta, type StreamEvent } from '../model/index.ts'
import { createLedger, type LedgerSlot } from './ledger.ts'
import type { KeptPod } from './kept-pod.ts'
import { DeferredAnnouncements, newPodContainer, newPodDelete, newPodNewWithName, newPodResync } from './messages.ts'
import { createOwnerIndex } from './owner-index.ts'
import { createOwnerStores } from './owner-store.ts'
import { ABSENT, createPodStore, NOT_SETTLED, type StoreSlot } from './pod-store.ts'
import { isWatchedOwnerKind, resolveOwner, type OwnerLookup, type RecentResolution } from './resolve.ts'
import { Differs } from './signature.ts'
import type { CollectorCore, CoreConfig, Resolution, StreamName } from './types.ts'
import { createWaitingLimit } from './waiting-limit.ts'

/** A pod the core holds: its own fields, the ledger's and the store's. */
interface Pod extends StoreSlot<Pod>, LedgerSlot {
  /** The remembered effective owner (§3), valid for the owner reference uid `resFor`. */
  res: Resolution | undefined
  resFor: string
  /** Waiting for its ReplicaSet/Job (in the waiting index). */
  waiting: boolean
  /** The pod relist that last listed it, for the diff at that relist's initDone (§6). */
  listed: number
}

const streamOf: Record<OwnerKind, StreamName> = { ReplicaSet: 'replicasets', Job: 'jobs' }

const collect = (emit: (out: PodOutput[]) => void): PodOutput[] => {
  const out: PodOutput[] = []
  emit(out)
  return out
}

/** A pod new to the core: nothing resolved, nothing announced (one object literal: one shape for every pod). */
const newPod = (meta: Pod['meta']): Pod =>
  ({ meta, res: undefined, resFor: '', waiting: false, annGen: -1, annMeta: undefined, annRes: undefined, sent: meta, listed: 0, slot: -1, prev: undefined, next: undefined })

/** Creates the core (docs/behaviour.md §3–§6); `model`: the caches it shares with the converters. */
export function createCollectorCore(config: CoreConfig, model: ModelContext = createModelContext()): CollectorCore {
  const owners = createOwnerStores(config.deleteTtlMs, config.deleteCapacity)
  const store = createPodStore<Pod>(model)
  const ledger = createLedger<Pod>()
  const limit = createWaitingLimit(config)
  const dependents = createOwnerIndex<Pod>()
  const primed: Record<StreamName, boolean> = { pods: false, replicasets: false, jobs: false }
  const unavailable: Record<StreamName, boolean> = { pods: false, replicasets: false, jobs: false }
  const lookup: OwnerLookup = { get: owners.get, unavailable: (kind) => unavailable[streamOf[kind]] }
  const recent: RecentResolution = { last: undefined }
  let epoch = 0
  let waiting = 0
  /** The pod relist in progress (between its init and initDone), numbered; 0 when none. */
  let podRelist = 0
  let podRelists = 0

  // --- §3 effective owner ---------------------------------------------------------------------

  /** Resolves the pod's effective owner and announces it when resolvable (rules 5.1–5.4). */
  function evaluate(pod: Pod, out: PodOutput[]): void {
    store.unsettle(pod)
    const ownerUid = pod.meta.owner?.uid ?? ''
    const remembered = pod.resFor === ownerUid ? pod.res : undefined
    const res = resolveOwner(pod.meta, lookup, remembered, pod.res, recent)
    setWaiting(pod, res === undefined)
    if (res === undefined) return
    pod.res = res
    pod.resFor = ownerUid
    if (ledger.connected && pod.meta.hasIp) announce(pod, res, out)
  }

  /** The pod's resolution stands: it is resolved through the very ReplicaSet/Job reference `o` (every owner event that could change that re-evaluates it). */
  const resolvedThrough = (pod: Pod, o: OwnerRef | undefined): boolean =>
    o !== undefined && pod.res !== undefined && !pod.waiting && pod.meta.owner === o && isWatchedOwnerKind(o.kind) && pod.resFor === o.uid

  function setWaiting(pod: Pod, value: boolean): void {
    if (pod.waiting === value) return
    pod.waiting = value
    waiting += value ? 1 : -1
  }

  // --- §4 owners and their tombstones ---------------------------------------------------------

  function ownerEvent(kind: OwnerKind, ev: StreamEvent<OwnerMeta>, now: number, out: PodOutput[]): void {
    const stream = streamOf[kind]
    switch (ev.type) {
      case 'init':
        owners.beginRelist(kind)
        return
      case 'initApply':
      case 'apply': {
        const meta = ev.object.kind === kind ? ev.object : { ...ev.object, kind }
        const previous = owners.apply(meta, ev.type === 'initApply')
        const c = meta.controller
        const p = previous?.controller
        // A new owner releases its waiting pods; a changed controller re-resolves its pods (rule 5.3).
        if (!previous || c?.uid !== p?.uid || c?.kind !== p?.kind || c?.name !== p?.name) {
          for (const pod of dependents.of(meta.uid)) evaluate(pod, out)
        }
        return
      }
      case 'delete':
        owners.delete(ev.object.kind === kind ? ev.object : { ...ev.object, kind }, now) // a tombstone; rule 5.6: no message
        return
      case 'initDone': {
        owners.endRelist(kind) // owners not relisted vanish (§6)
        primed[stream] = true
        const recovered = unavailable[stream]
        unavailable[stream] = false
        if (recovered) {
          store.forEach((pod) => {
            if (pod.meta.owner?.kind === kind) evaluate(pod, out) // escalated (rule 5.3)
          })
        }
        relisted(kind, out)
        return
      }
      case 'unavailable':
        markStreamUnavailable(stream, out)
        return
    }
  }

  // --- §5 emission rules (on the current connection) -------------------------------------------

  const podNew = (v: PodMeta, res: Resolution): PodNewWithName =>
    newPodNewWithName(v.uid, v.ip, res.name, v.name, res.code, res.uid, v.hostNetwork, v.namespace, v.version)

  /** Rule 5.2's containers: a `pod_container` for each of the pod's tuples (`values`) not sent before. */
  function sendUnsent(pod: Pod, values: PodMeta, out: PodOutput[]): void {
    for (const c of ledger.takeUnsent(pod, pod.meta, values.containers)) out.push(newPodContainer(values.uid, c.id, c.name, c.image))
  }

  /** Rules 5.1–5.3 for a resolvable pod. */
  function announce(pod: Pod, res: Resolution, out: PodOutput[]): void {
    const kept = pod.meta
    if (!ledger.isAnnounced(pod)) {
      const v = store.decode(pod) // 5.1
      out.push(podNew(v, res))
      for (const c of v.containers) out.push(newPodContainer(v.uid, c.id, c.name, c.image))
      ledger.announce(pod, kept, res)
      return
    }
    if (ledger.reannounce(pod, kept, res)) out.push(podNew(store.decode(pod), res)) // 5.3
    if (!ledger.allSent(pod, kept)) sendUnsent(pod, store.decode(pod), out) // 5.2
  }

  /** The pod is settled when nothing is owed for it on this connection (see pod-store.ts): resolved, and announced as kept when it can be. */
  function settle(pod: Pod): Pod {
    const kept = pod.meta
    const res = pod.res
    const resolved = res !== undefined && !pod.waiting && pod.resFor === (kept.owner?.uid ?? '')
    if (resolved && (!ledger.connected || !kept.hasIp || ledger.holds(pod, kept, res))) store.settle(pod, ledger.generation)
    else store.unsettle(pod)
    return pod
  }

  /** Adds or updates a pod; `listed`: a LIST item (`initApply`). */
  function podEvent(meta: PodMeta, listed: boolean, out: PodOutput[]): Pod {
    const diff = store.find(meta, ledger.generation, listed)
    if (diff === ABSENT) return settle(addPod(meta, listed, out))
    const pod = store.found()
    if (diff === 0) return pod // the common event: nothing kept changed, nothing owed
    // Settled, same owner reference and IP presence (an ownerless pod's resolution carries its name): the resolution stands.
    if (diff !== NOT_SETTLED && (diff & (Differs.pod | Differs.owner | Differs.hasIp)) === 0 && meta.owner !== undefined) {
      updateSettled(pod, meta, diff, out)
      return pod
    }
    return settle(updatePod(pod, meta, out))
  }

  /** A settled pod changed (by `diff`), its resolution standing: rules 5.2 and 5.3 follow from what differs; it stays settled. */
  function updateSettled(pod: Pod, meta: PodMeta, diff: number, out: PodOutput[]): void {
    const before = pod.meta
    store.keep(pod, meta, diff)
    const kept = pod.meta
    if (!ledger.connected || !kept.hasIp) return
    // Settled, connected, with an IP: `before` was announced with the pod's resolution on this connection.
    if ((diff & Differs.announced) !== 0) out.push(podNew(meta, pod.res!))
    ledger.record(pod, kept, pod.res!)
    if ((diff & Differs.containers) === 0) ledger.replaced(pod, before, kept)
    else sendUnsent(pod, meta, out)
  }

  function addPod(meta: PodMeta, listed: boolean, out: PodOutput[]): Pod {
    const pod = store.add(meta, listed, newPod)
    dependents.add(pod, pod.meta.owner)
    evaluate(pod, out)
    return pod
  }

  function updatePod(pod: Pod, meta: PodMeta, out: PodOutput[]): Pod {
    const before = pod.meta.owner
    store.keep(pod, meta) // (most updates are status changes the core does not keep: then nothing changes)
    const after = pod.meta.owner
    if (before?.uid !== after?.uid || before?.kind !== after?.kind) {
      dependents.remove(pod, before)
      dependents.add(pod, after)
    } else if (resolvedThrough(pod, before)) {
      if (ledger.connected && pod.meta.hasIp) announce(pod, pod.res!, out)
      return pod
    }
    evaluate(pod, out)
    return pod
  }

  /** Rule 5.5; pod deletes are never deferred (§4). */
  function removePod(pod: Pod, out: PodOutput[]): void {
    store.remove(pod)
    dependents.remove(pod, pod.meta.owner)
    setWaiting(pod, false)
    if (ledger.forget(pod)) out.push(newPodDelete(pod.meta.uid))
  }

  // --- §6 epochs, relists and the waiting limit ----------------------------------------------

  /**
   * `epoch += 1`, `pod_resync(epoch)`, then rule 5.1 for every resolvable pod: recorded at once, its
   * messages made as the link encodes them (messages.ts, DeferredAnnouncements).
   */
  function newEpoch(out: PodOutput[]): void {
    epoch++
    ledger.open()
    out.push(newPodResync(BigInt(epoch)))
    const kept: KeptPod[] = []
    const resolutions: Resolution[] = []
    store.forEach((pod) => {
      if (!pod.waiting && pod.res && pod.meta.hasIp) {
        ledger.announce(pod, pod.meta, pod.res)
        kept.push(pod.meta)
        resolutions.push(pod.res)
      }
      settle(pod)
    })
    if (kept.length > 0) out.push(new DeferredAnnouncements(kept, resolutions, store.values))
  }

  /** An owner stream finished a relist (or turned out unavailable): a forced resync waiting for it may start its epoch. */
  function relisted(kind: OwnerKind, out: PodOutput[]): void {
    if (limit.relisted(kind) && ledger.connected) newEpoch(out)
  }

  function markStreamUnavailable(stream: StreamName, out: PodOutput[]): void {
    primed[stream] = true
    if (unavailable[stream]) return
    unavailable[stream] = true
    if (stream === 'pods') return
    const kind: OwnerKind = stream === 'replicasets' ? 'ReplicaSet' : 'Job'
    // Pods waiting on this kind now resolve to their direct owner (§3 exception).
    store.forEach((pod) => {
      if (pod.waiting && pod.meta.owner?.kind === kind) evaluate(pod, out)
    })
    relisted(kind, out)
  }

  function podStreamEvent(ev: StreamEvent<PodMeta>, out: PodOutput[]): void {
    switch (ev.type) {
      case 'init':
        podRelist = ++podRelists
        return
      case 'initApply': {
        const pod = podEvent(ev.object, true, out) // handled like apply (§6)
        if (podRelist !== 0) pod.listed = podRelist
        return
      }
      case 'apply':
        podEvent(ev.object, false, out)
        return
      case 'delete': {
        const pod = store.lookup(ev.object.uid)
        if (pod) removePod(pod, out)
        return
      }
      case 'initDone': {
        // A relist while connected sends the difference: pod_delete for every pod it did not list.
        const relist = podRelist
        podRelist = 0
        if (relist !== 0) for (const pod of store.all()) if (pod.listed !== relist) removePod(pod, out)
        primed.pods = true
        unavailable.pods = false
        return
      }
      case 'unavailable':
        markStreamUnavailable('pods', out)
        return
    }
  }

  return {
    pods(ev, now) {
      const out: PodOutput[] = []
      podStreamEvent(ev, out)
      limit.check(waiting, now)
      return out
    },
    owners(kind, ev, now) {
      const out: PodOutput[] = []
      ownerEvent(kind, ev, now, out)
      limit.check(waiting, now)
      return out
    },
    tick(now) {
      owners.expire(now)
      limit.check(waiting, now)
    },
    connect: () => collect((out) => newEpoch(out)),
    disconnect: () => ledger.close(),
    markUnavailable: (stream) => collect((out) => markStreamUnavailable(stream, out)),
    takeRelistRequest: () => limit.takeRelistRequest(),
    get primed() {
      return primed.pods && primed.replicasets && primed.jobs
    },
    nextDeadline() {
      const expiry = owners.nextExpiry()
      const forcedAt = limit.nextAt(waiting)
      if (expiry === undefined) return forcedAt
      return forcedAt === undefined ? expiry : Math.min(expiry, forcedAt)
    },
    stats: () => ({
      podsStored: store.size,
      podsAnnounced: ledger.announced,
      podsWaiting: waiting,
      podsWithoutIp: store.withoutIp,
      replicaSetsStored: owners.size('ReplicaSet'),
      jobsStored: owners.size('Job'),
      tombstones: owners.tombstones,
      epoch,
      connected: ledger.connected,
      forcedResyncs: limit.count,
      available: { pods: !unavailable.pods, replicasets: !unavailable.replicasets, jobs: !unavailable.jobs },
      primed: { ...primed },
    }),
  }
}
