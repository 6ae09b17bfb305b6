// The per-connection ledger (docs/behaviour.md §5): which pods the current reducer connection was
// told about, with which announcement, and which container tuples it was sent for each. Every
// connection starts with an empty ledger (§6).
import type { ContainerMeta } from '../model/index.ts'
import { newContainerMeta } from '../model/records.ts'
import { DescribedPod, keptHasTuple, keptTupleCount, keptTuplesWithin, type KeptPod } from './kept-pod.ts'
import { sameResolution } from './resolve.ts'
import { addSignatureTupleKeys, sameAnnouncedFields, sameTuple, signatureHasTuple, signatureTupleCount, signatureTuplesIn, tupleKey } from './signature.ts'
import type { Resolution } from './types.ts'

/**
 * Tuples sent for a pod: a kept pod stands for its own tuples (the common case: nothing decoded
 * or kept twice); a list for those of its items, a signature (signature.ts) standing for its
 * tuples, so that tuples sent for an earlier state of the pod are remembered without decoding
 * them (nor keeping the kept pod: one memory read less).
 */
type Sent = KeptPod | readonly Item[]
type Item = string | ContainerMeta

/** What the ledger keeps on a pod entry (nobody else writes it). */
export interface LedgerSlot {
  /** The generation the pod was announced in: announced on this connection iff it is the ledger's. */
  annGen: number
  /** The pod and owner it was last announced with. */
  annMeta: KeptPod | undefined
  annRes: Resolution | undefined
  sent: Sent
}

export interface Ledger<P extends LedgerSlot> {
  readonly connected: boolean
  /** Differs for every connection and for every time between two: the pods' settled marks. */
  readonly generation: number
  /** Pods announced on this connection. */
  readonly announced: number
  /** A new connection: nothing announced on it yet. */
  open(): void
  /** The connection is gone. */
  close(): void
  isAnnounced(pod: P): boolean
  /** Announced on this connection as `kept` (every tuple of it sent then), with `res`. */
  holds(pod: P, kept: KeptPod, res: Resolution): boolean
  /** Rule 5.1 was applied: announced as `kept` with `res`, and every one of its tuples sent. */
  announce(pod: P, kept: KeptPod, res: Resolution): void
  /**
   * Records that the pod, announced, is now `kept` with `res`; true when that changes its
   * announcement (rule 5.3 is owed).
   */
  reannounce(pod: P, kept: KeptPod, res: Resolution): boolean
  /** The same, for a caller that knows whether the announcement changed. */
  record(pod: P, kept: KeptPod, res: Resolution): void
  /** `kept` replaced `before` with the same tuples: it stands for what `before` stood for. */
  replaced(pod: P, before: KeptPod, kept: KeptPod): void
  /** Every tuple of `kept` is known to be sent, without looking at them. */
  allSent(pod: P, kept: KeptPod): boolean
  /**
   * Rule 5.2: the tuples of `containers` (the values of `kept`) not sent on this connection,
   * recorded as sent. The result is read before the next call.
   */
  takeUnsent(pod: P, kept: KeptPod, containers: readonly ContainerMeta[]): readonly ContainerMeta[]
  /** The pod is gone (rule 5.5): true when it had been announced on this connection. */
  forget(pod: P): boolean
}

const NONE: readonly ContainerMeta[] = Object.freeze([])

/**
 * Past this many tuple comparisons (tuples sent × the pod's), rule 5.2 compares sets of tuple keys
 * instead: linear in the pod's size for a pod with thousands of containers (docs/behaviour.md §14).
 */
const COMPARE_LIMIT = 256

/** The items a kept pod stands for: its signature, or its containers when it is kept whole. */
const itemsOf = (kept: KeptPod): readonly Item[] => (kept instanceof DescribedPod ? [kept.sig] : kept.containers)

/** `sent` is a kept pod (not a list of items). */
const isKept = (sent: Sent): sent is KeptPod => !Array.isArray(sent)

/** The tuple `c` is among those `sent` stands for. */
function has(sent: Sent, c: ContainerMeta): boolean {
  if (isKept(sent)) return keptHasTuple(sent, c)
  for (let i = 0; i < sent.length; i++) {
    const item = sent[i]!
    if (typeof item === 'string' ? signatureHasTuple(item, c) : sameTuple(item, c)) return true
  }
  return false
}

function includes(cs: readonly ContainerMeta[], c: ContainerMeta): boolean {
  for (let i = 0; i < cs.length; i++) if (sameTuple(cs[i]!, c)) return true
  return false
}

/** Every tuple `sent` stands for is among `cs`. */
function within(sent: Sent, cs: readonly ContainerMeta[]): boolean {
  if (isKept(sent)) return keptTuplesWithin(sent, cs)
  for (let i = 0; i < sent.length; i++) {
    const item = sent[i]!
    if (!(typeof item === 'string' ? signatureTuplesIn(item, cs) : includes(cs, item))) return false
  }
  return true
}

/** Adds the tuple key of every tuple `sent` stands for to `keys`. */
function addKeys(sent: Sent, keys: Set<string>): void {
  const items = isKept(sent) ? itemsOf(sent) : sent
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (typeof item === 'string') addSignatureTupleKeys(item, keys)
    else keys.add(tupleKey(item.id, item.name, item.image))
  }
}

/** The number of tuples `sent` stands for. */
function count(sent: Sent): number {
  if (isKept(sent)) return keptTupleCount(sent)
  let n = 0
  for (let i = 0; i < sent.length; i++) {
    const item = sent[i]!
    n += typeof item === 'string' ? signatureTupleCount(item) : 1
  }
  return n
}

/** The ledger as a class: the hot path reads `generation` as a plain field. */
class ConnectionLedger<P extends LedgerSlot> implements Ledger<P> {
  connected = false
  generation = 0
  announced = 0

  open(): void {
    this.connected = true
    this.generation++
    this.announced = 0
  }

  close(): void {
    this.connected = false
    this.generation++
    this.announced = 0
  }

  isAnnounced(pod: P): boolean {
    return pod.annGen === this.generation
  }

  holds(pod: P, kept: KeptPod, res: Resolution): boolean {
    return pod.annGen === this.generation && pod.annMeta === kept && pod.annRes === res
  }

  announce(pod: P, kept: KeptPod, res: Resolution): void {
    pod.annGen = this.generation
    pod.annMeta = kept
    pod.annRes = res
    pod.sent = kept
    this.announced++
  }

  reannounce(pod: P, kept: KeptPod, res: Resolution): boolean {
    const changed = !sameAnnouncedFields(pod.annMeta!, kept) || !sameResolution(pod.annRes, res)
    this.record(pod, kept, res)
    return changed
  }

  record(pod: P, kept: KeptPod, res: Resolution): void {
    pod.annMeta = kept // also releases the previously announced pod
    pod.annRes = res
  }

  replaced(pod: P, before: KeptPod, kept: KeptPod): void {
    if (pod.sent === before) pod.sent = kept
  }

  allSent(pod: P, kept: KeptPod): boolean {
    return pod.sent === kept
  }

  takeUnsent(pod: P, kept: KeptPod, containers: readonly ContainerMeta[]): readonly ContainerMeta[] {
    const sent = pod.sent
    const sentCount = count(sent)
    let unsent: ContainerMeta[] | undefined
    let allOwn: boolean // every tuple sent is one of `containers`
    if (sentCount * containers.length <= COMPARE_LIMIT) {
      for (let i = 0; i < containers.length; i++) {
        const c = containers[i]!
        if (!has(sent, c)) (unsent ??= []).push(c)
      }
      allOwn = unsent === undefined ? sentCount === containers.length : within(sent, containers)
    } else {
      const sentKeys = new Set<string>()
      addKeys(sent, sentKeys)
      const own = new Set<string>()
      for (let i = 0; i < containers.length; i++) {
        const c = containers[i]!
        const key = tupleKey(c.id, c.name, c.image)
        own.add(key)
        if (!sentKeys.has(key)) (unsent ??= []).push(c)
      }
      allOwn = unsent === undefined ? sentCount === containers.length : [...sentKeys].every((key) => own.has(key))
    }
    // `kept` stands for the tuples sent when they are exactly its own.
    if (allOwn) pod.sent = kept
    if (unsent === undefined) return NONE
    if (!allOwn) pod.sent = [...(isKept(sent) ? itemsOf(sent) : sent), ...unsent.map((c) => newContainerMeta(c.id, c.name, c.image))]
    return unsent
  }

  forget(pod: P): boolean {
    if (pod.annGen !== this.generation || !this.connected) return false
    this.announced--
    return true
  }
}

/** An empty ledger, disconnected. */
export const createLedger = <P extends LedgerSlot>(): Ledger<P> => new ConnectionLedger<P>()
