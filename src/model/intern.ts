// A string interner bounded in bytes: repeated values (namespaces, images, owner names) share one
// string; a long value is not interned (docs/behaviour.md §14), so no one object can fill it.

/** Returns one shared instance per distinct string; forgets everything past its byte budget so long runs stay bounded. */
export interface Interner {
  (s: string): string
  /** Distinct strings held. */
  readonly size: number
  /** Estimated bytes held. */
  readonly bytes: number
}

/** Strings longer than this are returned as they are (the admission rule): sharing pays for short, repeated values. */
export const INTERN_MAX_CHARS = 1024
/** What an entry costs beside its characters, estimated: the Map entry and the string's header. */
const ENTRY_BYTES = 64

// The few values that repeat in nearly every pod (namespaces, images, container names) are found
// in a small direct-mapped cache first, by a hash of the length, the first and the last four
// characters computed here: a fresh string from JSON.parse has no hash yet, and a Map would hash
// all of it and then likely miss the cache.
const RECENT = 1024

/** An interner holding at most about `maxBytes` (counted as two bytes a character). */
export function createInterner(maxBytes: number): Interner {
  let table = new Map<string, string>()
  let bytes = 0
  const recent: string[] = new Array<string>(RECENT).fill('')
  const intern = ((s: string): string => {
    const n = s.length
    if (n === 0 || n > INTERN_MAX_CHARS) return s
    let h = Math.imul(n ^ s.charCodeAt(0), 0x01000193)
    for (let i = n > 4 ? n - 4 : 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
    const slot = (h ^ (h >>> 15)) & (RECENT - 1)
    const hit = recent[slot]!
    if (hit === s) return hit
    let known = table.get(s)
    if (known === undefined) {
      // Past the budget start afresh: values still in use stay shared where they already are.
      if (bytes >= maxBytes) {
        table = new Map()
        bytes = 0
      }
      table.set(s, s)
      bytes += ENTRY_BYTES + 2 * n
      known = s
    }
    recent[slot] = known
    return known
  }) as Interner
  Object.defineProperties(intern, { size: { get: () => table.size }, bytes: { get: () => bytes } })
  return intern
}
