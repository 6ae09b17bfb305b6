// The ReplicaSet and Job stores: live owners fed by the watcher protocol, a relist buffer swapped
// in at initDone, and tombstones for deleted owners (docs/behaviour.md §1, §4).
import type { OwnerKind, OwnerMeta } from '../model/index.ts'

interface Tombstone {
  readonly meta: OwnerMeta
  readonly expiresAt: number
}

/** One kind's live objects plus the uids seen by a relist in progress. */
interface LiveStore {
  readonly objects: Map<string, OwnerMeta>
  relist: Set<string> | undefined
}

export interface OwnerStores {
  /** The owner of that kind and uid: live, or deleted but still tombstoned. */
  get(kind: OwnerKind, uid: string): OwnerMeta | undefined
  /** Stores an added/updated owner; returns the previous version (live or tombstoned), if any. */
  apply(meta: OwnerMeta, inRelist: boolean): OwnerMeta | undefined
  /** Moves a deleted owner to the tombstones (capacity enforced at once). */
  delete(meta: OwnerMeta, now: number): void
  beginRelist(kind: OwnerKind): void
  /** Ends a relist: live owners that were not relisted vanish (no tombstone). */
  endRelist(kind: OwnerKind): void
  /** Drops tombstones whose TTL has passed; returns how many. */
  expire(now: number): number
  /** When the oldest tombstone expires. */
  nextExpiry(): number | undefined
  size(kind: OwnerKind): number
  readonly tombstones: number
}

export function createOwnerStores(ttlMs: number, capacity: number): OwnerStores {
  const live: Record<OwnerKind, LiveStore> = {
    ReplicaSet: { objects: new Map(), relist: undefined },
    Job: { objects: new Map(), relist: undefined },
  }
  // Insertion order = deletion order, so the first entry is always the oldest.
  const tombs = new Map<string, Tombstone>()

  return {
    get(kind, uid) {
      const found = live[kind].objects.get(uid)
      if (found) return found
      const t = tombs.get(uid)
      return t && t.meta.kind === kind ? t.meta : undefined
    },
    apply(meta, inRelist) {
      const store = live[meta.kind]
      const previous = store.objects.get(meta.uid) ?? tombs.get(meta.uid)?.meta
      store.objects.set(meta.uid, meta)
      tombs.delete(meta.uid)
      if (inRelist) store.relist?.add(meta.uid)
      return previous
    },
    delete(meta, now) {
      const store = live[meta.kind]
      const known = store.objects.get(meta.uid) ?? meta
      store.objects.delete(meta.uid)
      store.relist?.delete(meta.uid)
      tombs.delete(meta.uid)
      tombs.set(meta.uid, { meta: known, expiresAt: now + ttlMs })
      while (tombs.size > capacity) tombs.delete(tombs.keys().next().value!)
    },
    beginRelist(kind) {
      // Into an empty store (the first list) nothing can vanish: no set of every uid listed, which
      // grew through the list and died at its end (6 MB of old garbage at 150k pods: bench/README.md, issue 34).
      live[kind].relist = live[kind].objects.size > 0 ? new Set() : undefined
    },
    endRelist(kind) {
      const store = live[kind]
      const seen = store.relist
      if (!seen) return
      for (const uid of store.objects.keys()) if (!seen.has(uid)) store.objects.delete(uid)
      store.relist = undefined
    },
    expire(now) {
      let dropped = 0
      for (const [uid, t] of tombs) {
        if (t.expiresAt > now) break
        tombs.delete(uid)
        dropped++
      }
      return dropped
    },
    nextExpiry() {
      for (const t of tombs.values()) return t.expiresAt
      return undefined
    },
    size(kind) {
      return live[kind].objects.size
    },
    get tombstones() {
      return tombs.size
    },
  }
}
