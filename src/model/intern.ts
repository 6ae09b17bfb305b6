// A bounded string interner: repeated values (namespaces, images, owner names) share one string.

/** Returns one shared instance per distinct string; forgets everything past `limit` entries so long runs stay bounded. */
export interface Interner {
  (s: string): string
  readonly size: number
}

// The few values that repeat in nearly every pod (namespaces, images, container names) are found
// in a small direct-mapped cache first, by a hash of the length, the first and the last four
// characters computed here: a fresh string from JSON.parse has no hash yet, and a Map would hash
// all of it and then likely miss the cache.
const RECENT = 1024

export function createInterner(limit = 200_000): Interner {
  let table = new Map<string, string>()
  const recent: string[] = new Array<string>(RECENT).fill('')
  const intern = ((s: string): string => {
    const n = s.length
    if (n === 0) return s
    let h = Math.imul(n ^ s.charCodeAt(0), 0x01000193)
    for (let i = n > 4 ? n - 4 : 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
    const slot = (h ^ (h >>> 15)) & (RECENT - 1)
    const hit = recent[slot]!
    if (hit === s) return hit
    let known = table.get(s)
    if (known === undefined) {
      // Past the limit start afresh: values still in use stay shared where they already are.
      if (table.size >= limit) table = new Map()
      table.set(s, s)
      known = s
    }
    recent[slot] = known
    return known
  }) as Interner
  Object.defineProperty(intern, 'size', { get: () => table.size })
  return intern
}
