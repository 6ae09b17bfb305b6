// The per-connection ledger (docs/behaviour.md §5): which pods the current reducer connection was
// told about, with which announcement, and which container tuples it was sent for each. Every
// connection starts with an empty ledger (§6).
import type { ContainerMeta } from '../model/index.ts'
import { newContainerMeta } from '../model/records.ts'
import { KeptPod } from './kept-pod.ts'
import { sameResolution } from './resolve.ts'
import { sameAnnouncedFields, sameTuple } from './signature.ts'
import type { Resolution } from './types.ts'

/**
 * Tuples sent for a pod: a kept pod stands for its own tuples (the common case: nothing decoded
 * or kept twice); a list for those of its items, so that tuples sent for an earlier state of the
 * pod are remembered without decoding them.
 */
type Sent = KeptPod | readonly (KeptPod | ContainerMeta)[]

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

const itemsOf = (sent: Sent): readonly (KeptPod | ContainerMeta)[] => (sent instanceof KeptPod ? [sent] : sent)

const isKept = (item: KeptPod | ContainerMeta): item is KeptPod => item instanceof KeptPod

const has = (items: readonly (KeptPod | ContainerMeta)[], c: ContainerMeta): boolean =>
  items.some((item) => (isKept(item) ? item.hasTuple(c) : sameTuple(item, c)))

const within = (items: readonly (KeptPod | ContainerMeta)[], cs: readonly ContainerMeta[]): boolean =>
  items.every((item) => (isKept(item) ? item.tuplesWithin(cs) : cs.some((c) => sameTuple(c, item))))

const count = (items: readonly (KeptPod | ContainerMeta)[]): number => items.reduce((n, item) => n + (isKept(item) ? item.tupleCount : 1), 0)

/** An empty ledger, disconnected. */
export function createLedger<P extends LedgerSlot>(): Ledger<P> {
  let generation = 0
  let connected = false
  let announced = 0

  function record(pod: P, kept: KeptPod, res: Resolution): void {
    pod.annMeta = kept // also releases the previously announced pod
    pod.annRes = res
  }

  return {
    get connected() {
      return connected
    },
    get generation() {
      return generation
    },
    get announced() {
      return announced
    },
    open() {
      connected = true
      generation++
      announced = 0
    },
    close() {
      connected = false
      generation++
      announced = 0
    },
    isAnnounced: (pod) => pod.annGen === generation,
    holds: (pod, kept, res) => pod.annGen === generation && pod.annMeta === kept && pod.annRes === res,
    announce(pod, kept, res) {
      pod.annGen = generation
      pod.annMeta = kept
      pod.annRes = res
      pod.sent = kept
      announced++
    },
    reannounce(pod, kept, res) {
      const changed = !sameAnnouncedFields(pod.annMeta!, kept) || !sameResolution(pod.annRes, res)
      record(pod, kept, res)
      return changed
    },
    record,
    replaced(pod, before, kept) {
      if (pod.sent === before) pod.sent = kept
    },
    allSent: (pod, kept) => pod.sent === kept,
    takeUnsent(pod, kept, containers) {
      const items = itemsOf(pod.sent)
      let unsent: ContainerMeta[] | undefined
      for (let i = 0; i < containers.length; i++) {
        const c = containers[i]!
        if (!has(items, c)) (unsent ??= []).push(c)
      }
      // `kept` stands for the tuples sent when they are exactly its own.
      if (unsent) pod.sent = within(items, containers) ? kept : [...items, ...unsent.map((c) => newContainerMeta(c.id, c.name, c.image))]
      else if (count(items) === containers.length) pod.sent = kept
      return unsent ?? NONE
    },
    forget(pod) {
      if (pod.annGen !== generation || !connected) return false
      announced--
      return true
    },
  }
}
