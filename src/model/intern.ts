// A bounded string interner: repeated values (namespaces, images, owner names) share one string.

/** Returns one shared instance per distinct string; forgets everything past `limit` entries so long runs stay bounded. */
export interface Interner {
  (s: string): string
  readonly size: number
}

export function createInterner(limit = 200_000): Interner {
  let table = new Map<string, string>()
  const intern = ((s: string): string => {
    const known = table.get(s)
    if (known !== undefined) return known
    // Past the limit start afresh: values still in use stay shared where they already are.
    if (table.size >= limit) table = new Map()
    table.set(s, s)
    return s
  }) as Interner
  Object.defineProperty(intern, 'size', { get: () => table.size })
  return intern
}
