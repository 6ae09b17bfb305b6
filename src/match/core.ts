// The matching core: stores, matcher, announcements and epochs (behaviour.md §2–§6). Pure and
// synchronous: time comes in as `now` (ms), messages go out as return values.
import type { PodContainer, PodMessage, PodNewWithName } from '../ingest/messages.ts'
import { ownerRef } from '../model/convert.ts'
import type { OwnerKind, OwnerMeta, OwnerRef, PodMeta, StreamEvent } from '../model/index.ts'
import { newPodContainer, newPodDelete, newPodNewWithName, newPodResync } from './messages.ts'
import { createOwnerStores } from './owner-store.ts'
import { createPodTable } from './pod-table.ts'
import { isWatchedOwnerKind, resolveOwner, sameResolution, type OwnerLookup } from './resolve.ts'
import type { CoreConfig, CoreStats, Resolution, StreamName } from './types.ts'

/** Everything the core knows about one pod. */
interface PodEntry {
  meta: PodMeta
  /** The remembered effective owner (§3), valid for the owner reference uid `resFor`. */
  res: Resolution | undefined
  resFor: string
  /** Waiting for its ReplicaSet/Job to arrive (the waiting index). */
  waiting: boolean
  /** Connection generation this pod was announced on; announced now iff === the core's `gen`. */
  annGen: number
  /** What was last announced on that connection, and the container tuples sent there. */
  annMeta: PodMeta | undefined
  annRes: Resolution | undefined
  sent: readonly PodMeta['containers'][number][]
  /**
   * The pod relist that last listed it (`initApply`), for the diff at its `initDone` (§6). A mark
   * on the entry instead of a set of relisted uids: nothing to hash (pod-table.ts says why).
   */
  listed: number
  /** The pod table's chain (pod-table.ts). */
  sameHash: PodEntry | undefined
}

/** The matching core; see {@link createCollectorCore}. */
export interface CollectorCore {
  /**
   * Feeds an event of the pod stream; returns the messages for the current connection. The core
   * keeps the metas it is given and may replace their `owner` by an equal, shared reference.
   */
  pods(ev: StreamEvent<PodMeta>, now: number): PodMessage[]
  /** Feeds an event of the ReplicaSet or Job stream. */
  owners(kind: OwnerKind, ev: StreamEvent<OwnerMeta>, now: number): PodMessage[]
  /** Expires tombstones and schedules forced resyncs; call at {@link nextDeadline} (or any time). */
  tick(now: number): PodMessage[]
  /** A new reducer connection (after its handshake): `epoch += 1`, `pod_resync(epoch)`, every resolvable pod. */
  connect(now: number): PodMessage[]
  /** The connection is gone; nothing is emitted until the next {@link connect}. */
  disconnect(): void
  /** Marks a stream unavailable (e.g. the priming timeout ran out before its first initDone). */
  markUnavailable(stream: StreamName, reason: string): PodMessage[]
  /** True once, after the waiting limit asked the I/O layer to relist both owner streams (§6). */
  takeRelistRequest(): boolean
  /** All three streams have delivered their first initDone or are unavailable (§6 priming). */
  readonly primed: boolean
  /** When {@link tick} next has work, if ever. */
  nextDeadline(): number | undefined
  stats(): CoreStats
}

type ForcedResync = { readonly phase: 'idle' } | { readonly phase: 'relisting'; pending: Set<OwnerKind> }

const streamOf: Record<OwnerKind, StreamName> = { ReplicaSet: 'replicasets', Job: 'jobs' }

/** Creates the core (behaviour.md §2–§6). */
export function createCollectorCore(config: CoreConfig): CollectorCore {
  const minForced = config.forcedResyncMinIntervalMs ?? 60_000
  const maxForced = config.forcedResyncMaxIntervalMs ?? 600_000
  const stores = createOwnerStores(config.deleteTtlMs, config.deleteCapacity)
  const pods = createPodTable<PodEntry>()
  /** Owner reference uid → pods that reference it (ReplicaSet/Job owners only), de-duplicated. */
  const byOwner = new Map<string, Set<PodEntry>>()
  /** The pod relist in progress (between its init and initDone), numbered; 0 when none. */
  let podRelist = 0
  let podRelists = 0

  const primed: Record<StreamName, boolean> = { pods: false, replicasets: false, jobs: false }
  const unavailable: Record<StreamName, boolean> = { pods: false, replicasets: false, jobs: false }
  let epoch = 0
  let gen = 0
  let connected = false
  let announced = 0
  let waiting = 0
  let forced: ForcedResync = { phase: 'idle' }
  let forcedInterval = minForced
  let forcedNextAt = -Infinity
  let forcedCount = 0
  let relistRequested = false

  const lookup: OwnerLookup = { get: stores.get, unavailable: (kind) => unavailable[streamOf[kind]] }

  // --- indexes -------------------------------------------------------------------------------

  function index(entry: PodEntry): void {
    const o = entry.meta.owner
    if (!o || !isWatchedOwnerKind(o.kind)) return
    let set = byOwner.get(o.uid)
    if (!set) byOwner.set(o.uid, (set = new Set()))
    set.add(entry)
  }

  function unindex(entry: PodEntry): void {
    const o = entry.meta.owner
    if (!o || !isWatchedOwnerKind(o.kind)) return
    const set = byOwner.get(o.uid)
    if (!set) return
    set.delete(entry)
    if (set.size === 0) byOwner.delete(o.uid)
  }

  function setWaiting(entry: PodEntry, value: boolean): void {
    if (entry.waiting === value) return
    entry.waiting = value
    waiting += value ? 1 : -1
  }

  // --- announcements (§5) --------------------------------------------------------------------

  const podNew = (meta: PodMeta, res: Resolution): PodNewWithName =>
    newPodNewWithName(meta.uid, meta.ip, res.name, meta.name, res.code, res.uid, meta.hostNetwork, meta.namespace, meta.version)

  const container = (uid: string, c: PodMeta['containers'][number]): PodContainer => newPodContainer(uid, c.id, c.name, c.image)

  const sameTuple = (a: PodMeta['containers'][number], b: PodMeta['containers'][number]) =>
    a === b || (a.id === b.id && a.name === b.name && a.image === b.image)

  function includesTuple(list: readonly PodMeta['containers'][number][], c: PodMeta['containers'][number]): boolean {
    for (let i = 0; i < list.length; i++) if (sameTuple(list[i]!, c)) return true
    return false
  }

  /** The pod's own fields that go into its `pod_new_with_name` (the owner's come from its resolution). */
  const sameAnnouncedFields = (a: PodMeta, b: PodMeta) =>
    a.ip === b.ip && a.name === b.name && a.namespace === b.namespace && a.version === b.version && a.hostNetwork === b.hostNetwork

  /** Everything the core uses of a pod is the same (resourceVersion aside); owners already shared. */
  function sameMeta(a: PodMeta, b: PodMeta): boolean {
    if (a.hasIp !== b.hasIp || a.owner !== b.owner || !sameAnnouncedFields(a, b)) return false
    const x = a.containers
    const y = b.containers
    if (x.length !== y.length) return false
    for (let i = 0; i < x.length; i++) if (!sameTuple(x[i]!, y[i]!)) return false
    return true
  }

  const sameAnnouncement = (a: PodMeta, ar: Resolution, b: PodMeta, br: Resolution) => sameAnnouncedFields(a, b) && sameResolution(ar, br)

  /** Rules 5.1–5.3 for a resolvable pod on the current connection. */
  function announce(entry: PodEntry, res: Resolution, out: PodMessage[]): void {
    const meta = entry.meta
    if (entry.annGen !== gen) {
      out.push(podNew(meta, res))
      for (const c of meta.containers) out.push(container(meta.uid, c))
      entry.annGen = gen
      entry.annMeta = meta
      entry.annRes = res
      entry.sent = meta.containers
      announced++
      return
    }
    if (!sameAnnouncement(entry.annMeta!, entry.annRes!, meta, res)) out.push(podNew(meta, res))
    entry.annMeta = meta // also releases the previous meta when nothing changed
    entry.annRes = res
    const sent = entry.sent
    const containers = meta.containers
    if (sent === containers) return
    let unsent: PodMeta['containers'][number][] | undefined
    for (const c of containers) {
      if (!includesTuple(sent, c)) {
        out.push(container(meta.uid, c))
        ;(unsent ??= []).push(c)
      }
    }
    // Keep one array when the pod's tuples are exactly what was sent (the common case).
    if (unsent) entry.sent = sent.every((s) => includesTuple(containers, s)) ? containers : [...sent, ...unsent]
    else if (sent.length === containers.length) entry.sent = containers
  }

  /** Resolves the pod and announces it when resolvable and connected (rules 5.1–5.4). */
  function evaluate(entry: PodEntry, out: PodMessage[]): void {
    const ownerUid = entry.meta.owner?.uid ?? ''
    const remembered = entry.resFor === ownerUid ? entry.res : undefined
    const res = resolveOwner(entry.meta, lookup, remembered, entry.res)
    if (!res) {
      setWaiting(entry, true)
      return
    }
    setWaiting(entry, false)
    entry.res = res
    entry.resFor = ownerUid
    if (connected && entry.meta.hasIp) announce(entry, res, out)
  }

  // --- pods ----------------------------------------------------------------------------------

  /**
   * Kept pods share one OwnerRef per owner (memory): the core takes the metas it is given and swaps
   * their owner reference for the equal one the pod already holds (no lookup: the common update)
   * or else for the shared one (model/convert.ts ownerRef).
   */
  function shareOwner(meta: PodMeta, before: OwnerRef | undefined): void {
    const o = meta.owner
    if (o === undefined || o === before) return
    const shared = before !== undefined && before.uid === o.uid && before.kind === o.kind && before.name === o.name ? before : ownerRef(o.kind, o.uid, o.name)
    if (shared !== o) (meta as { owner?: OwnerRef }).owner = shared
  }

  /** Adds or updates a pod; returns its entry. */
  function upsertPod(meta: PodMeta, out: PodMessage[]): PodEntry {
    let entry = pods.get(meta.uid)
    if (!entry) {
      shareOwner(meta, undefined)
      entry = { meta, res: undefined, resFor: '', waiting: false, annGen: -1, annMeta: undefined, annRes: undefined, sent: [], listed: 0, sameHash: undefined }
      pods.add(entry)
      index(entry)
    } else {
      const before = entry.meta.owner
      shareOwner(meta, before)
      const after = meta.owner
      if (before?.uid !== after?.uid || before?.kind !== after?.kind) {
        unindex(entry)
        entry.meta = meta
        index(entry)
      } else {
        // Nothing the core keeps changed (most updates are status changes it ignores): the stored
        // meta stays and the fresh one dies young, instead of being kept and the old one collected.
        if (!sameMeta(entry.meta, meta)) entry.meta = meta
        // Same ReplicaSet/Job reference as when the pod was resolved: the resolution stands. Every
        // owner event that could change it (a new owner, a changed controller, a recovered stream)
        // re-evaluates the owner's pods itself, so the owner store need not be asked again.
        // (shareOwner made `after` the very object `before` when kind, uid and name are equal.)
        const res = entry.res
        if (res !== undefined && !entry.waiting && after !== undefined && after === before && isWatchedOwnerKind(after.kind) && entry.resFor === after.uid) {
          if (connected && entry.meta.hasIp) announce(entry, res, out)
          return entry
        }
      }
    }
    evaluate(entry, out)
    return entry
  }

  function removePod(entry: PodEntry, out: PodMessage[]): void {
    const uid = entry.meta.uid
    pods.remove(entry)
    unindex(entry)
    setWaiting(entry, false)
    if (entry.annGen === gen && connected) {
      out.push(newPodDelete(uid))
      announced--
    }
  }

  // --- epochs (§6) ---------------------------------------------------------------------------

  function newEpoch(out: PodMessage[]): void {
    epoch++
    gen++
    announced = 0
    out.push(newPodResync(BigInt(epoch)))
    pods.forEach((entry) => {
      if (!entry.waiting && entry.res && entry.meta.hasIp) announce(entry, entry.res, out)
    })
  }

  function checkWaitingLimit(now: number): void {
    if (waiting < config.waitingLimit) {
      if (forced.phase === 'idle') forcedInterval = minForced
      return
    }
    if (forced.phase !== 'idle' || now < forcedNextAt) return
    forced = { phase: 'relisting', pending: new Set<OwnerKind>(['ReplicaSet', 'Job']) }
    relistRequested = true
    forcedNextAt = now + forcedInterval
    forcedInterval = Math.min(forcedInterval * 2, maxForced)
  }

  /** An owner stream finished a relist (or turned out unavailable) while a forced resync waits for it. */
  function ownerRelistDone(kind: OwnerKind, out: PodMessage[]): void {
    if (forced.phase !== 'relisting') return
    forced.pending.delete(kind)
    if (forced.pending.size > 0) return
    forced = { phase: 'idle' }
    forcedCount++
    if (connected) newEpoch(out)
  }

  /** Re-evaluates every pod owned through `kind` (stream recovery, rule 5.3). */
  function reevaluateKind(kind: OwnerKind, out: PodMessage[]): void {
    pods.forEach((entry) => {
      if (entry.meta.owner?.kind === kind) evaluate(entry, out)
    })
  }

  function ownerEvent(kind: OwnerKind, ev: StreamEvent<OwnerMeta>, now: number, out: PodMessage[]): void {
    const stream = streamOf[kind]
    switch (ev.type) {
      case 'init':
        stores.beginRelist(kind)
        return
      case 'initApply':
      case 'apply': {
        const meta = ev.object.kind === kind ? ev.object : { ...ev.object, kind }
        const previous = stores.apply(meta, ev.type === 'initApply')
        const c = meta.controller
        const p = previous?.controller
        // A new owner releases its waiting pods; a changed controller re-resolves its pods (rule 5.3).
        if (!previous || c?.uid !== p?.uid || c?.kind !== p?.kind || c?.name !== p?.name) {
          const dependents = byOwner.get(meta.uid)
          if (dependents) for (const entry of [...dependents]) evaluate(entry, out)
        }
        return
      }
      case 'delete':
        stores.delete(ev.object.kind === kind ? ev.object : { ...ev.object, kind }, now) // rule 5.6: no message
        return
      case 'initDone': {
        stores.endRelist(kind)
        primed[stream] = true
        const recovered = unavailable[stream]
        unavailable[stream] = false
        if (recovered) reevaluateKind(kind, out)
        ownerRelistDone(kind, out)
        return
      }
      case 'unavailable':
        markStreamUnavailable(stream, out)
        return
    }
  }

  function markStreamUnavailable(stream: StreamName, out: PodMessage[]): void {
    primed[stream] = true
    if (unavailable[stream]) return
    unavailable[stream] = true
    if (stream === 'pods') return
    const kind: OwnerKind = stream === 'replicasets' ? 'ReplicaSet' : 'Job'
    // Pods waiting on this kind now resolve to their direct owner (§3 exception).
    pods.forEach((entry) => {
      if (entry.waiting && entry.meta.owner?.kind === kind) evaluate(entry, out)
    })
    ownerRelistDone(kind, out)
  }

  return {
    pods(ev, now) {
      const out: PodMessage[] = []
      switch (ev.type) {
        case 'init':
          podRelist = ++podRelists
          break
        case 'initApply': {
          const entry = upsertPod(ev.object, out)
          if (podRelist !== 0) entry.listed = podRelist
          break
        }
        case 'apply':
          upsertPod(ev.object, out)
          break
        case 'delete': {
          const entry = pods.get(ev.object.uid)
          if (entry) removePod(entry, out) // never deferred (§4)
          break
        }
        case 'initDone': {
          const relist = podRelist
          podRelist = 0
          if (relist !== 0) for (const entry of pods.entries()) if (entry.listed !== relist) removePod(entry, out)
          primed.pods = true
          unavailable.pods = false
          break
        }
        case 'unavailable':
          markStreamUnavailable('pods', out)
          break
      }
      checkWaitingLimit(now)
      return out
    },
    owners(kind, ev, now) {
      const out: PodMessage[] = []
      ownerEvent(kind, ev, now, out)
      checkWaitingLimit(now)
      return out
    },
    tick(now) {
      stores.expire(now)
      checkWaitingLimit(now)
      return []
    },
    connect() {
      connected = true
      const out: PodMessage[] = []
      newEpoch(out)
      return out
    },
    disconnect() {
      connected = false
      gen++
      announced = 0
    },
    markUnavailable(stream, _reason) {
      const out: PodMessage[] = []
      markStreamUnavailable(stream, out)
      return out
    },
    takeRelistRequest() {
      const r = relistRequested
      relistRequested = false
      return r
    },
    get primed() {
      return primed.pods && primed.replicasets && primed.jobs
    },
    nextDeadline() {
      const expiry = stores.nextExpiry()
      const forcedAt = waiting >= config.waitingLimit && forced.phase === 'idle' ? forcedNextAt : undefined
      if (expiry === undefined) return forcedAt
      return forcedAt === undefined ? expiry : Math.min(expiry, forcedAt)
    },
    stats() {
      let withoutIp = 0
      pods.forEach((e) => {
        if (!e.meta.hasIp) withoutIp++
      })
      return {
        podsStored: pods.size,
        podsAnnounced: announced,
        podsWaiting: waiting,
        podsWithoutIp: withoutIp,
        replicaSetsStored: stores.size('ReplicaSet'),
        jobsStored: stores.size('Job'),
        tombstones: stores.tombstones,
        epoch,
        connected,
        forcedResyncs: forcedCount,
        available: { pods: !unavailable.pods, replicasets: !unavailable.replicasets, jobs: !unavailable.jobs },
        primed: { ...primed },
      }
    },
  }
}
