// The pod store's table: pods by uid in open addressing, with each slot's uid hash, signature and
// settled mark in parallel arrays, so that a lookup's loads are independent and overlap (why:
// bench/README.md, issue 3). Linear probing, deletions by backward shift, grown at 5/8 full;
// entries also form a list in insertion order, which iteration follows.

/** What the table needs of an entry: the links it owns (nobody else writes them). */
export interface PodSlot<E> {
  /** Where the entry is in the table (the table's). */
  slot: number
  /** Insertion order (the table's). */
  prev: E | undefined
  next: E | undefined
}

/** Pods by uid; each with a signature and a settled mark kept in the table. Slots move on removal and growth. */
export interface PodTable<E extends PodSlot<E>> {
  /** The slot of the pod with this uid, or -1. */
  find(uid: string): number
  get(uid: string): E | undefined
  entryAt(slot: number): E
  sigAt(slot: number): string
  markAt(slot: number): number
  /** Adds an entry with this uid (not in the table) and signature; its mark starts at -1. */
  add(entry: E, uid: string, sig: string): void
  /** Removes an entry that is in the table. */
  remove(entry: E): void
  setSig(entry: E, sig: string): void
  setMark(entry: E, mark: number): void
  /** Calls `fn` for every entry in insertion order; `fn` must not add or remove entries. */
  forEach(fn: (entry: E) => void): void
  /** Every entry, in insertion order (a copy: safe to add and remove while walking it). */
  entries(): E[]
  readonly size: number
}

/**
 * The table's hash of a uid: length, first eight and last eight characters (all of them when it
 * has 16 or fewer), as a non-negative small integer. UUIDs (what the API server assigns) are
 * random in both ends; uids alike in both ends but for the middle share a hash (and are told apart
 * by `hasUid`).
 */
export function uidHash(uid: string): number {
  const n = uid.length
  let h = Math.imul(n ^ 0x811c9dc5, 0x01000193)
  const head = n < 8 ? n : 8
  for (let i = 0; i < head; i++) h = Math.imul(h ^ uid.charCodeAt(i), 0x01000193)
  for (let i = n - 8 > head ? n - 8 : head; i < n; i++) h = Math.imul(h ^ uid.charCodeAt(i), 0x01000193)
  return (h ^ (h >>> 15)) & 0x3fffffff
}

const EMPTY = -1
const MIN_CAPACITY = 16

/**
 * `hasUid(sig, entry, uid)`: the pod in a slot, with this signature, has this uid (the caller's
 * encoding: the core reads it from the signature, which the lookup reads next anyway).
 */
export function createPodTable<E extends PodSlot<E>>(hasUid: (sig: string, entry: E, uid: string) => boolean): PodTable<E> {
  let capacity = MIN_CAPACITY
  let mask = capacity - 1
  let hashes = new Int32Array(capacity).fill(EMPTY)
  let marks = new Int32Array(capacity)
  let sigs: string[] = new Array<string>(capacity).fill('')
  let slots: (E | undefined)[] = new Array<E | undefined>(capacity).fill(undefined)
  let size = 0
  let first: E | undefined
  let last: E | undefined

  function find(uid: string): number {
    const h = uidHash(uid)
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = hashes[i]!
      if (k === EMPTY) return -1
      if (k === h && hasUid(sigs[i]!, slots[i]!, uid)) return i
    }
  }

  /** Places an entry at the first free slot of its probe sequence. */
  function place(entry: E, h: number, sig: string, mark: number): void {
    let i = h & mask
    while (hashes[i] !== EMPTY) i = (i + 1) & mask
    hashes[i] = h
    sigs[i] = sig
    marks[i] = mark
    slots[i] = entry
    entry.slot = i
  }

  function grow(): void {
    const old = { hashes, marks, sigs, slots }
    capacity *= 2
    mask = capacity - 1
    hashes = new Int32Array(capacity).fill(EMPTY)
    marks = new Int32Array(capacity)
    sigs = new Array<string>(capacity).fill('')
    slots = new Array<E | undefined>(capacity).fill(undefined)
    for (let i = 0; i < old.hashes.length; i++) {
      if (old.hashes[i] !== EMPTY) place(old.slots[i]!, old.hashes[i]!, old.sigs[i]!, old.marks[i]!)
    }
  }

  function forEach(fn: (entry: E) => void): void {
    for (let e = first; e !== undefined; e = e.next) fn(e)
  }

  return {
    find,
    get(uid) {
      const i = find(uid)
      return i < 0 ? undefined : slots[i]
    },
    entryAt: (slot) => slots[slot]!,
    sigAt: (slot) => sigs[slot]!,
    markAt: (slot) => marks[slot]!,
    add(entry, uid, sig) {
      if ((size + 1) * 8 > capacity * 5) grow()
      place(entry, uidHash(uid), sig, -1)
      entry.prev = last
      entry.next = undefined
      if (last === undefined) first = entry
      else last.next = entry
      last = entry
      size++
    },
    remove(entry) {
      let i = entry.slot
      if (i < 0 || slots[i] !== entry) return
      // Backward shift: move later members of the probe run into the hole when their home allows.
      for (let j = (i + 1) & mask; hashes[j] !== EMPTY; j = (j + 1) & mask) {
        const home = hashes[j]! & mask
        // The entry at j may move to i unless its home lies cyclically within (i, j].
        if (i <= j ? home > i && home <= j : home > i || home <= j) continue
        hashes[i] = hashes[j]!
        sigs[i] = sigs[j]!
        marks[i] = marks[j]!
        const moved = slots[j]!
        slots[i] = moved
        moved.slot = i
        i = j
      }
      hashes[i] = EMPTY
      sigs[i] = ''
      slots[i] = undefined
      entry.slot = -1
      if (entry.prev === undefined) first = entry.next
      else entry.prev.next = entry.next
      if (entry.next === undefined) last = entry.prev
      else entry.next.prev = entry.prev
      entry.prev = entry.next = undefined
      size--
    },
    setSig(entry, sig) {
      if (entry.slot >= 0) sigs[entry.slot] = sig
    },
    setMark(entry, mark) {
      if (entry.slot >= 0) marks[entry.slot] = mark
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
