// The core's pods by uid, each with its settled mark. Every speed trick of the pod state lives
// here, behind a domain API (bench/README.md, issue 3, has the measurements):
// - a described pod is kept as its signature (signature.ts), compared where it stands;
// - a LIST item is kept whole, as listed, until its first watch event describes it: describing
//   every LIST item at once made each LIST meta garbage, which V8 promoted at every scavenge; a
//   relist's item equal to it leaves it so, for the same reason (the kept metas are old by then);
// - the table (pod-table.ts) keeps each slot's signature and mark beside the uid's hash, so that
//   a lookup of an unchanged, settled pod reads nothing else;
// - pods of one owner share one OwnerRef (the model context's).
import type { ModelContext, PodMeta, OwnerRef } from '../model/index.ts'
import { DescribedPod, keptSig, type KeptPod } from './kept-pod.ts'
import { createPodTable, type PodSlot } from './pod-table.ts'
import { compareMetas, compareSignature, DecodedPod, decodeSignature, Differs, SignatureWriter, signatureHasUid } from './signature.ts'

/** What the store keeps on a pod entry (nobody else writes it). */
export interface StoreSlot<P> extends PodSlot<P> {
  /** The pod as kept. */
  meta: KeptPod
}

/** Pods by uid. A pod is added once, kept again at each change, and removed once. */
export interface PodStore<P extends StoreSlot<P>> {
  lookup(uid: string): P | undefined
  /**
   * Adds a pod not in the store, made by `create` around its kept form: a LIST item (`listed`)
   * kept whole, as the meta itself (its owner reference replaced by the shared one, its
   * resourceVersion by ''), else described. Unsettled.
   */
  add(meta: PodMeta, listed: boolean, create: (kept: KeptPod) => P): P
  /**
   * Keeps the pod as `meta` (same uid) from now on, unless it is described exactly so already (a
   * meta that cannot be described is kept itself, changed as in {@link add});
   * `diff`: what {@link find} just gave for them, when the caller has it.
   */
  keep(pod: P, meta: PodMeta, diff?: number): void
  /**
   * Finds the pod with `meta`'s uid and, when it is settled for `mark` (a connection generation,
   * ledger.ts), compares it as kept with `meta`: {@link ABSENT} when there is no such pod,
   * {@link NOT_SETTLED} when it is not settled, else how they differ ({@link Differs}; 0: not at
   * all). `Differs.form`: the pod is kept whole and the next {@link keep} describes it (never for
   * a `listed` meta equal to it: that finds 0, the pod stays whole); `Differs.pod`: one of them
   * cannot be described. The pod found is then {@link found}'s.
   */
  find(meta: PodMeta, mark: number, listed: boolean): number
  /** The pod the last {@link find} found (one lookup serves both: every pod event makes it). */
  found(): P
  /** The pod's values, for its messages: valid until the next decode (the strings are the caller's). */
  decode(pod: P): PodMeta
  /** The values of a kept form, the pod's now or an earlier one: valid until the next decode. */
  values(kept: KeptPod): PodMeta
  /** Marks the pod settled for `mark`: nothing is owed for it on that connection (core.ts says when). */
  settle(pod: P, mark: number): void
  unsettle(pod: P): void
  remove(pod: P): void
  /** Calls `fn` for every pod in the order they were added; `fn` must not add or remove pods. */
  forEach(fn: (pod: P) => void): void
  /** Every pod in the order they were added (a copy: safe to add and remove while walking it). */
  all(): P[]
  readonly size: number
  /** Pods kept without an IP. */
  readonly withoutIp: number
}

const UNSETTLED = -1

/** {@link PodStore.find}: no pod with that uid. */
export const ABSENT = -2
/** {@link PodStore.find}: the pod is not settled. */
export const NOT_SETTLED = -1

/** An empty store whose pods share owner references and strings through `model`. */
export function createPodStore<P extends StoreSlot<P>>(model: ModelContext): PodStore<P> {
  const table = createPodTable<P>((sig, pod, uid) => (sig !== '' ? signatureHasUid(sig, uid) : pod.meta.uid === uid))
  const writer = new SignatureWriter()
  // Decode records by number of containers, for pods of up to 16 (a larger one gets its own).
  const decoded: DecodedPod[] = []
  const decodeInto = (n: number): DecodedPod => (n <= 16 ? (decoded[n] ??= new DecodedPod(n)) : new DecodedPod(n))
  let withoutIp = 0
  // Where the last find found its pod, for found() right after it (a number: the hot path stores
  // no reference; a slot since moved holds another pod).
  let foundAt = 0
  // The signature compare built for a pod kept whole, and the meta it describes: keep takes it.
  let described = ''
  let describedFrom: PodMeta | undefined
  // The pod last kept and the meta it was kept from: decode gives that meta instead of decoding.
  let lastPod: P | undefined
  let lastMeta: PodMeta | undefined

  /** The shared reference equal to `o`: `before` when it is (no lookup: the common update), else the model's. */
  function shareOwner(o: OwnerRef | undefined, before: OwnerRef | undefined): OwnerRef | undefined {
    if (o === undefined || o === before) return o
    return before !== undefined && before.uid === o.uid && before.kind === o.kind && before.name === o.name ? before : model.ownerRef(o.kind, o.uid, o.name)
  }

  function values(form: KeptPod): PodMeta {
    return form instanceof DescribedPod ? decodeSignature(form.sig, form.owner, model.intern, decodeInto) : form
  }

  /**
   * The kept form of `meta` with the shared `owner`: described by `sig`, or (sig '') the meta
   * itself, its owner reference replaced by the shared one and its resourceVersion (read by nothing,
   * 24 bytes a pod) by '' (bench/README.md, issue 34).
   */
  function form(meta: PodMeta, owner: OwnerRef | undefined, sig: string): KeptPod {
    if (sig !== '') return new DescribedPod(meta, owner, sig)
    const m = meta as { owner?: OwnerRef; resourceVersion: string }
    if (m.owner !== owner) m.owner = owner
    if (m.resourceVersion !== '') m.resourceVersion = ''
    return meta
  }

  function remember(pod: P, meta: PodMeta): void {
    lastPod = pod
    lastMeta = meta
    describedFrom = undefined
  }

  return {
    lookup: (uid) => table.get(uid),
    add(meta, listed, create) {
      const sig = listed ? '' : writer.write(meta)
      const kept = form(meta, shareOwner(meta.owner, undefined), sig)
      const pod = create(kept)
      table.add(pod, meta.uid, sig)
      if (!kept.hasIp) withoutIp++
      remember(pod, meta)
      return pod
    },
    keep(pod, meta, diff) {
      const before = pod.meta
      const beforeSig = keptSig(before)
      const d = diff ?? (beforeSig === '' ? Differs.form : compareSignature(beforeSig, meta))
      if (d === 0) return remember(pod, meta) // described exactly so already: the fresh meta dies young
      const sig = meta === describedFrom ? described : writer.write(meta)
      const owner = diff !== undefined && (d & (Differs.owner | Differs.pod)) === 0 ? before.owner : shareOwner(meta.owner, before.owner)
      const kept = form(meta, owner, sig)
      pod.meta = kept
      table.setSig(pod, sig)
      if (before.hasIp !== kept.hasIp) withoutIp += kept.hasIp ? -1 : 1
      remember(pod, meta)
    },
    find(meta, mark, listed) {
      const at = table.find(meta.uid)
      if (at < 0) return ABSENT
      foundAt = at
      if (table.markAt(at) !== mark) return NOT_SETTLED
      const sig = table.sigAt(at)
      if (sig !== '') return compareSignature(sig, meta)
      const whole = table.entryAt(at).meta
      // Relisted as it is kept: describing it now would leave the kept meta (old by now) as garbage, for every pod of the list at once.
      const diff = compareMetas(whole, meta)
      if (listed && diff === 0) return 0
      // Kept whole: the signature that describes it from now on is built here, and kept for keep.
      described = writer.write(meta)
      describedFrom = meta
      return described !== '' ? diff | Differs.form : Differs.pod
    },
    found: () => table.entryAt(foundAt),
    decode(pod) {
      return pod === lastPod ? lastMeta! : values(pod.meta)
    },
    values,
    settle: (pod, mark) => table.setMark(pod, mark),
    unsettle: (pod) => table.setMark(pod, UNSETTLED),
    remove(pod) {
      if (lastPod === pod) lastPod = lastMeta = undefined
      table.remove(pod)
      if (!pod.meta.hasIp) withoutIp--
    },
    forEach: table.forEach,
    all: table.entries,
    get size() {
      return table.size
    },
    get withoutIp() {
      return withoutIp
    },
  }
}
