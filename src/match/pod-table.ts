// The core's pods by uid: its hottest lookup (every pod event), kept off string-keyed Maps.
//
// A Map keyed by a fresh string (a uid just read from the API server) hashes the whole string
// natively and then reads the stored key to compare it; on Deno's V8 (what `deno compile` ships)
// that lookup took 4.1–4.4 µs an event in the churn bench, on Node's ~1.5 µs. Here a small-integer hash
// of a few of the uid's characters (UUIDs: the first and last eight, all random) keys the Map, and
// pods whose hashes collide are chained through their entries; the uid itself is compared once,
// against the entry found (bench/README.md, issue 3).

/** What the table needs of an entry: its uid, and a link it owns for the chain of equal hashes. */
export interface UidChained<E> {
  readonly meta: { readonly uid: string }
  /** The next entry with the same hash, if any (the table's; nobody else writes it). */
  sameHash: E | undefined
}

/** Pods by uid, iterated in insertion order (an entry whose hash collides sits after the first one). */
export interface PodTable<E extends UidChained<E>> {
  get(uid: string): E | undefined
  /** Adds an entry whose uid is not in the table. */
  add(entry: E): void
  /** Removes an entry that is in the table. */
  remove(entry: E): void
  /** Calls `fn` for every entry; `fn` must not add or remove entries. */
  forEach(fn: (entry: E) => void): void
  /** Every entry, in iteration order (a copy: safe to add and remove while walking it). */
  entries(): E[]
  readonly size: number
}

/**
 * The table's hash of a uid: length, first eight and last eight characters (all of them when it
 * has 16 or fewer), as a non-negative small integer. UUIDs (what the API server assigns) are
 * random in both ends; uids alike in both ends but for the middle would share a chain.
 */
export function uidHash(uid: string): number {
  const n = uid.length
  let h = Math.imul(n ^ 0x811c9dc5, 0x01000193)
  const head = n < 8 ? n : 8
  for (let i = 0; i < head; i++) h = Math.imul(h ^ uid.charCodeAt(i), 0x01000193)
  for (let i = n - 8 > head ? n - 8 : head; i < n; i++) h = Math.imul(h ^ uid.charCodeAt(i), 0x01000193)
  return (h ^ (h >>> 15)) & 0x3fffffff
}

export function createPodTable<E extends UidChained<E>>(): PodTable<E> {
  const heads = new Map<number, E>()
  let size = 0

  function forEach(fn: (entry: E) => void): void {
    for (let e of heads.values()) {
      fn(e)
      while (e.sameHash !== undefined) fn((e = e.sameHash))
    }
  }

  return {
    get(uid) {
      let e = heads.get(uidHash(uid))
      while (e !== undefined && e.meta.uid !== uid) e = e.sameHash
      return e
    },
    add(entry) {
      const key = uidHash(entry.meta.uid)
      entry.sameHash = undefined
      let e = heads.get(key)
      if (e === undefined) heads.set(key, entry)
      else {
        while (e.sameHash !== undefined) e = e.sameHash
        e.sameHash = entry
      }
      size++
    },
    remove(entry) {
      const key = uidHash(entry.meta.uid)
      const head = heads.get(key)
      if (head === undefined) return
      if (head === entry) {
        if (entry.sameHash === undefined) heads.delete(key)
        else heads.set(key, entry.sameHash) // keeps the head's place in the iteration order
      } else {
        let e = head
        while (e.sameHash !== undefined && e.sameHash !== entry) e = e.sameHash
        if (e.sameHash !== entry) return
        e.sameHash = entry.sameHash
      }
      entry.sameHash = undefined
      size--
    },
    forEach,
    entries() {
      const all: E[] = []
      forEach((e) => all.push(e))
      return all
    },
    get size() {
      return size
    },
  }
}
