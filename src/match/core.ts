// The matching core: stores, matcher, announcements and epochs (docs/behaviour.md §2–§6). Pure and
// synchronous: time comes in as `now` (ms), messages go out as return values.
import type { PodContainer, PodMessage, PodNewWithName } from '../ingest/messages.ts'
import { ownerRef } from '../model/convert.ts'
import type { ContainerMeta, OwnerKind, OwnerMeta, OwnerRef, PodMeta, StreamEvent } from '../model/index.ts'
import { newPodContainer, newPodDelete, newPodNewWithName, newPodResync } from './messages.ts'
import { createOwnerStores } from './owner-store.ts'
import { createPodTable } from './pod-table.ts'
import { isWatchedOwnerKind, resolveOwner, sameResolution, type OwnerLookup } from './resolve.ts'
import {
  compareMetas,
  compareSignature,
  decodeSignature,
  Differs,
  matchesSignature,
  podSignature,
  sameAnnouncedFields,
  sameTuple,
  signatureHasTuple,
  signatureHasUid,
  signatureTupleCount,
  signatureTuplesIn,
  StoredPod,
} from './signature.ts'
import type { CoreConfig, CoreStats, Resolution, StreamName } from './types.ts'

/** Everything the core knows about one pod. */
interface PodEntry {
  /**
   * The pod as kept (signature.ts): its strings live in `meta.sig`, decoded when read. The pod
   * table holds the signature too (and the settled mark, see {@link settled}), where the lookup
   * reads them without this entry.
   */
  meta: StoredPod
  /** The remembered effective owner (§3), valid for the owner reference uid `resFor`. */
  res: Resolution | undefined
  resFor: string
  /** Waiting for its ReplicaSet/Job to arrive (the waiting index). */
  waiting: boolean
  /** Connection generation this pod was announced on; announced now iff === the core's `gen`. */
  annGen: number
  /**
   * What was last announced on that connection, and the container tuples sent there: a stored pod
   * stands for its own containers (the common case, nothing decoded or kept twice).
   */
  annMeta: StoredPod | undefined
  annRes: Resolution | undefined
  sent: Sent
  /**
   * The pod relist that last listed it (`initApply`), for the diff at its `initDone` (§6). A mark
   * on the entry instead of a set of relisted uids: nothing to hash (pod-table.ts says why).
   */
  listed: number
  /** The pod table's (pod-table.ts). */
  slot: number
  prev: PodEntry | undefined
  next: PodEntry | undefined
}

/**
 * Container tuples sent on a connection: a stored pod stands for its own tuples; a list holds
 * signatures (each standing for the tuples it lists) and single tuples, so that tuples sent for an
 * earlier state of the pod are remembered without decoding them.
 */
type Sent = StoredPod | readonly (string | ContainerMeta)[]

/** The matching core; see {@link createCollectorCore}. */
export interface CollectorCore {
  /**
   * Feeds an event of the pod stream; returns the messages for the current connection. The core
   * keeps a LIST item's meta as it is (its `owner` replaced by an equal, shared reference), and of a
   * watch event's meta what it needs, not the meta.
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
  /** The pod as the core keeps it (its strings decoded when read; no resourceVersion), if it has it. */
  pod(uid: string): PodMeta | undefined
  /** When {@link tick} next has work, if ever. */
  nextDeadline(): number | undefined
  stats(): CoreStats
}

type ForcedResync = { readonly phase: 'idle' } | { readonly phase: 'relisting'; pending: Set<OwnerKind> }

const streamOf: Record<OwnerKind, StreamName> = { ReplicaSet: 'replicasets', Job: 'jobs' }

/** Creates the core (docs/behaviour.md §2–§6). */
export function createCollectorCore(config: CoreConfig): CollectorCore {
  const minForced = config.forcedResyncMinIntervalMs ?? 60_000
  const maxForced = config.forcedResyncMaxIntervalMs ?? 600_000
  const stores = createOwnerStores(config.deleteTtlMs, config.deleteCapacity)
  const pods = createPodTable<PodEntry>((sig, entry, uid) => (sig !== '' ? signatureHasUid(sig, uid) : entry.meta.uid === uid))
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

  /**
   * The pod's `pod_new_with_name` and, with `all`, a `pod_container` for each of its containers:
   * from `fresh` (the meta it was just stored from) when there is one, else decoded from what is
   * kept in one walk of the signature.
   */
  function pushPod(meta: StoredPod, fresh: PodMeta | undefined, res: Resolution, all: boolean, out: PodMessage[]): void {
    if (fresh !== undefined || meta.sig === '') {
      const src = fresh ?? meta
      out.push(podNew(src, res))
      if (all) for (const c of src.containers) out.push(container(src.uid, c))
      return
    }
    const d = decodeSignature(meta.sig)
    out.push(newPodNewWithName(d.uid, meta.ip, res.name, d.name, res.code, res.uid, meta.hostNetwork, d.namespace, d.version))
    if (all) for (let i = 0; i < d.containers; i++) out.push(newPodContainer(d.uid, d.ids[i]!, d.names[i]!, d.images[i]!))
  }

  const container = (uid: string, c: ContainerMeta): PodContainer => newPodContainer(uid, c.id, c.name, c.image)

  function includesTuple(list: readonly ContainerMeta[], c: ContainerMeta): boolean {
    for (let i = 0; i < list.length; i++) if (sameTuple(list[i]!, c)) return true
    return false
  }

  /** The items of a {@link Sent} list for what was sent. */
  const sentItems = (sent: Sent): SentItems =>
    sent instanceof StoredPod ? (sent.sig !== '' ? [sent.sig] : sent.containers) : sent

  type SentItems = readonly (string | ContainerMeta)[]

  /** The tuple is among those sent. */
  function sentHas(items: SentItems, c: ContainerMeta): boolean {
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!
      if (typeof item === 'string' ? signatureHasTuple(item, c) : sameTuple(item, c)) return true
    }
    return false
  }

  /** Every tuple sent is among `containers`. */
  const sentWithin = (items: SentItems, containers: readonly ContainerMeta[]): boolean =>
    items.every((item) => (typeof item === 'string' ? signatureTuplesIn(item, containers) : includesTuple(containers, item)))

  const sentCount = (items: SentItems): number => items.reduce((n, item) => n + (typeof item === 'string' ? signatureTupleCount(item) : 1), 0)

  /**
   * Rule 5.2's containers: sends the pod's tuples not yet sent on this connection and records them.
   * The stored pod stands for what was sent when that is exactly its containers (the common case).
   */
  function sendContainers(entry: PodEntry, stored: StoredPod, containers: readonly ContainerMeta[], uid: string, out: PodMessage[]): void {
    const items = sentItems(entry.sent)
    let unsent: ContainerMeta[] | undefined
    for (let i = 0; i < containers.length; i++) {
      const c = containers[i]!
      if (!sentHas(items, c)) {
        out.push(container(uid, c))
        ;(unsent ??= []).push(c)
      }
    }
    if (unsent) entry.sent = sentWithin(items, containers) ? stored : [...items, ...unsent]
    else if (sentCount(items) === containers.length) entry.sent = stored
  }

  const sameAnnouncement = (a: PodMeta, ar: Resolution, b: PodMeta, br: Resolution) => sameAnnouncedFields(a, b) && sameResolution(ar, br)

  /**
   * Rules 5.1–5.3 for a resolvable pod on the current connection. `fresh`: the meta the pod was
   * just stored from (the same values as `entry.meta`), whose strings the messages take instead of
   * decoding the stored ones.
   */
  function announce(entry: PodEntry, res: Resolution, out: PodMessage[], fresh: PodMeta | undefined): void {
    const meta = entry.meta
    if (entry.annGen !== gen) {
      pushPod(meta, fresh, res, true, out)
      entry.annGen = gen
      entry.annMeta = meta
      entry.annRes = res
      entry.sent = meta
      announced++
      return
    }
    if (!sameAnnouncement(entry.annMeta!, entry.annRes!, meta, res)) pushPod(meta, fresh, res, false, out)
    entry.annMeta = meta // also releases the previously announced pod
    entry.annRes = res
    if (entry.sent === meta) return
    const src = fresh ?? meta
    sendContainers(entry, meta, src.containers, src.uid, out)
  }

  /** Resolves the pod and announces it when resolvable and connected (rules 5.1–5.4). */
  function evaluate(entry: PodEntry, out: PodMessage[], fresh?: PodMeta): void {
    pods.setQuiet(entry, -1)
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
    if (connected && entry.meta.hasIp) announce(entry, res, out, fresh)
  }

  // --- pods ----------------------------------------------------------------------------------

  /**
   * Kept pods share one OwnerRef per owner (memory): the pod's fresh owner reference is swapped for
   * the equal one the pod already holds (no lookup: the common update) or else for the shared one
   * (model/convert.ts ownerRef).
   */
  function sharedOwner(o: OwnerRef | undefined, before: OwnerRef | undefined): OwnerRef | undefined {
    if (o === undefined || o === before) return o
    return before !== undefined && before.uid === o.uid && before.kind === o.kind && before.name === o.name ? before : ownerRef(o.kind, o.uid, o.name)
  }

  function store(entry: PodEntry, meta: PodMeta, owner: OwnerRef | undefined, sig = podSignature(meta)): StoredPod {
    const stored = new StoredPod(meta, owner, sig)
    entry.meta = stored
    pods.setSig(entry, stored.sig)
    return stored
  }

  /**
   * The entry is settled for the current connection generation: resolved (not waiting), and, when
   * connected with an IP, announced exactly as kept (so every container it has was sent). The pod
   * table keeps this as the entry's mark (the generation it holds for, or -1): an event whose pod
   * matches the signature of a marked entry changes nothing and is done without reading anything
   * else (§5 has nothing to send for it). Anything that changes the entry clears or recomputes it.
   */
  function settled(entry: PodEntry): boolean {
    const meta = entry.meta
    if (entry.res === undefined || entry.waiting || entry.resFor !== (meta.owner?.uid ?? '')) return false
    if (!connected || !meta.hasIp) return true
    // Announced with the pod as kept: every container it has was sent then (announce sends the missing).
    return entry.annGen === gen && entry.annMeta === meta && entry.annRes === entry.res
  }

  /**
   * Adds or updates a pod; returns its entry. `listed`: a LIST item (`initApply`), kept as it is
   * when the pod is new (see {@link addPod}).
   */
  function upsertPod(meta: PodMeta, out: PodMessage[], listed: boolean): PodEntry {
    const slot = pods.find(meta.uid)
    if (slot >= 0 && pods.quietAt(slot) === gen) {
      const sig = pods.sigAt(slot)
      let diff: number
      let described: string | undefined
      if (sig !== '') {
        diff = compareSignature(sig, meta)
        // The common event: nothing the core keeps changed, and nothing is owed for the pod.
        if (diff === 0) return pods.entryAt(slot)
      } else {
        // Kept as listed: the event's signature, compared with the listed meta, describes the pod
        // from now on (or '' for a value too long to describe: the full path).
        described = podSignature(meta)
        diff = described !== '' ? compareMetas(pods.entryAt(slot).meta.kept!, meta) : Differs.pod
      }
      if ((diff & (Differs.pod | Differs.owner | Differs.hasIp)) === 0 && meta.owner !== undefined) {
        const entry = pods.entryAt(slot)
        updateSettled(entry, meta, diff, out, described)
        return entry
      }
    }
    const updated = slot < 0 ? addPod(meta, out, listed) : updatePod(pods.entryAt(slot), meta, out)
    pods.setQuiet(updated, settled(updated) ? gen : -1)
    return updated
  }

  /**
   * A settled pod (see {@link settled}) changed, but not its owner reference nor whether it has an
   * IP (and it has an owner: an ownerless pod's resolution carries its name). Its resolution
   * stands; what is owed follows from the parts that differ (rules 5.2, 5.3), and the entry stays
   * settled: it was announced as kept before, and is after.
   */
  function updateSettled(entry: PodEntry, meta: PodMeta, diff: number, out: PodMessage[], sig = podSignature(meta)): void {
    const before = entry.meta
    const stored = store(entry, meta, before.owner, sig)
    if (!connected || !stored.hasIp) return
    // Settled, connected, with an IP: `before` was announced with `res` on this connection.
    const res = entry.res!
    if ((diff & Differs.announced) !== 0) out.push(podNew(meta, res))
    entry.annMeta = stored
    if ((diff & Differs.containers) === 0) {
      if (entry.sent === before) entry.sent = stored
      return
    }
    sendContainers(entry, stored, meta.containers, meta.uid, out)
  }

  /**
   * A new pod. A LIST item is kept as it is (its meta, which the converters allocate to be kept);
   * its first watch event describes it. Describing every LIST item at once made each LIST meta
   * garbage, and with the shipped 4 MiB semi-space V8 promotes whatever is alive at a scavenge:
   * the metas of the page being fed in went to old space at every scavenge (371 vs 212 MB promoted
   * in a 150,000-pod sync; the collector's steady RSS 345 -> 435 MB, 360 MB kept as listed).
   */
  function addPod(meta: PodMeta, out: PodMessage[], listed: boolean): PodEntry {
    const owner = sharedOwner(meta.owner, undefined)
    if (listed && owner !== meta.owner) (meta as { owner?: OwnerRef }).owner = owner // kept: its owner reference shared
    const stored = new StoredPod(meta, owner, listed ? '' : podSignature(meta))
    const entry: PodEntry = {
      meta: stored,
      res: undefined,
      resFor: '',
      waiting: false,
      annGen: -1,
      annMeta: undefined,
      annRes: undefined,
      sent: stored,
      listed: 0,
      slot: -1,
      prev: undefined,
      next: undefined,
    }
    pods.add(entry, meta.uid, stored.sig)
    index(entry)
    evaluate(entry, out, meta)
    return entry
  }

  function updatePod(entry: PodEntry, meta: PodMeta, out: PodMessage[]): PodEntry {
    const before = entry.meta.owner
    const after = sharedOwner(meta.owner, before)
    if (before?.uid !== after?.uid || before?.kind !== after?.kind) {
      unindex(entry)
      store(entry, meta, after)
      index(entry)
    } else {
      // Stored again only when something the core keeps changed (most updates are status changes it
      // ignores): otherwise the stored pod stays, and the fresh meta dies young.
      if (!matchesSignature(entry.meta.sig, meta)) store(entry, meta, after)
      // Same ReplicaSet/Job reference as when the pod was resolved: the resolution stands. Every
      // owner event that could change it (a new owner, a changed controller, a recovered stream)
      // re-evaluates the owner's pods itself, so the owner store need not be asked again.
      // (sharedOwner gave the very object `before` when kind, uid and name are equal.)
      const res = entry.res
      if (res !== undefined && !entry.waiting && after !== undefined && after === before && isWatchedOwnerKind(after.kind) && entry.resFor === after.uid) {
        if (connected && entry.meta.hasIp) announce(entry, res, out, meta)
        return entry
      }
    }
    evaluate(entry, out, meta)
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
      if (!entry.waiting && entry.res && entry.meta.hasIp) announce(entry, entry.res, out, undefined)
      pods.setQuiet(entry, settled(entry) ? gen : -1)
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
          const entry = upsertPod(ev.object, out, true)
          if (podRelist !== 0) entry.listed = podRelist
          break
        }
        case 'apply':
          upsertPod(ev.object, out, false)
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
    pod(uid) {
      return pods.get(uid)?.meta
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
