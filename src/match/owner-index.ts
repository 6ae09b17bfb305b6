// The owner index (docs/behaviour.md §3): ReplicaSet/Job uid → the pods whose owner reference
// names it, de-duplicated, so that an owner's arrival finds the pods waiting for it.
import type { OwnerRef } from '../model/index.ts'
import { isWatchedOwnerKind } from './resolve.ts'

export interface OwnerIndex<P> {
  /** Indexes the pod under its owner reference `o` (nothing for other kinds). */
  add(pod: P, o: OwnerRef | undefined): void
  /** Removes the pod from under `o`, the reference it was added with. */
  remove(pod: P, o: OwnerRef | undefined): void
  /** The pods that reference this owner uid (a copy: safe to change the index while walking it). */
  of(uid: string): P[]
}

export function createOwnerIndex<P>(): OwnerIndex<P> {
  const byOwner = new Map<string, Set<P>>()
  return {
    add(pod, o) {
      if (!o || !isWatchedOwnerKind(o.kind)) return
      let set = byOwner.get(o.uid)
      if (!set) byOwner.set(o.uid, (set = new Set()))
      set.add(pod)
    },
    remove(pod, o) {
      const set = o && isWatchedOwnerKind(o.kind) ? byOwner.get(o.uid) : undefined
      if (set?.delete(pod) && set.size === 0) byOwner.delete(o!.uid)
    },
    of(uid) {
      const set = byOwner.get(uid)
      return set ? [...set] : []
    },
  }
}
