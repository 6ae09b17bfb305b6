// The pod table against a Map model: random adds and removes over uids built to collide.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPodTable, uidHash, type UidChained } from './pod-table.ts'

interface Entry extends UidChained<Entry> {
  readonly meta: { readonly uid: string }
  readonly n: number
}

const entry = (uid: string, n = 0): Entry => ({ meta: { uid }, n, sameHash: undefined })

// Same length, first and last eight characters: one hash, whatever the middle says.
const colliding = (middle: string) => `12345678-${middle}-87654321`

describe('uidHash', () => {
  it.each([
    ['UUIDs that differ in the first characters', 'e3907aea-cb8b-4299-a769-d18de4c0d452', 'f3907aea-cb8b-4299-a769-d18de4c0d452', false],
    ['UUIDs that differ in the last characters', 'e3907aea-cb8b-4299-a769-d18de4c0d452', 'e3907aea-cb8b-4299-a769-d18de4c0d453', false],
    ['UUIDs that differ only in the middle', 'e3907aea-cb8b-4299-a769-d18de4c0d452', 'e3907aea-cb8c-4299-a769-d18de4c0d452', true],
    ['short uids, every character hashed', 'pod-12', 'pod-13', false],
    ['lengths', 'p1', 'p1 ', false],
  ])('%s', (_, a, b, same) => {
    expect(uidHash(a) === uidHash(b)).toBe(same)
    for (const u of [a, b]) {
      expect(Number.isInteger(uidHash(u))).toBe(true)
      expect(uidHash(u)).toBeGreaterThanOrEqual(0)
      expect(uidHash(u)).toBeLessThan(2 ** 30)
    }
  })
  it('spreads 100,000 random UUIDs over nearly as many keys', () => {
    const keys = new Set<number>()
    for (let i = 0; i < 100_000; i++) keys.add(uidHash(crypto.randomUUID()))
    expect(keys.size).toBeGreaterThan(99_950) // ~9 collisions expected among 2^30 keys
  })
})

describe('pod table', () => {
  it('finds, chains and unchains colliding uids', () => {
    const t = createPodTable<Entry>()
    const [a, b, c] = ['a', 'b', 'c'].map((m) => entry(colliding(m))) as [Entry, Entry, Entry]
    const lone = entry('e3907aea-cb8b-4299-a769-d18de4c0d452')
    for (const e of [a, lone, b, c]) t.add(e)
    expect(uidHash(a.meta.uid)).toBe(uidHash(c.meta.uid))
    expect([a, b, c, lone].map((e) => t.get(e.meta.uid))).toEqual([a, b, c, lone])
    expect(t.get(colliding('d'))).toBeUndefined()
    expect(t.entries()).toEqual([a, b, c, lone]) // a chain sits at its first entry's place
    t.remove(b) // middle
    expect(t.entries()).toEqual([a, c, lone])
    t.remove(a) // head: the next one takes its place
    expect(t.entries()).toEqual([c, lone])
    expect(t.get(c.meta.uid)).toBe(c)
    t.remove(c)
    expect(t.entries()).toEqual([lone])
    expect(t.size).toBe(1)
    t.remove(c) // not in the table: nothing happens
    expect(t.size).toBe(1)
  })

  type Op = { add: boolean; uid: string }
  // Uids from two pools: a few that collide with each other and a few that do not.
  const arbUid = fc.oneof(
    fc.constantFrom('a', 'b', 'c', 'd').map(colliding),
    fc.constantFrom('p1', 'p2', 'e3907aea-cb8b-4299-a769-d18de4c0d452'),
  )
  const arbOps = fc.array(fc.record({ add: fc.boolean(), uid: arbUid }), { maxLength: 60 })

  it('behaves as a Map from uid to entry (random adds and removes)', () => {
    fc.assert(
      fc.property(arbOps, (ops: Op[]) => {
        const t = createPodTable<Entry>()
        const model = new Map<string, Entry>()
        ops.forEach(({ add, uid }, n) => {
          const present = model.get(uid)
          if (add && !present) {
            const e = entry(uid, n)
            t.add(e)
            model.set(uid, e)
          } else if (!add && present) {
            t.remove(present)
            model.delete(uid)
          }
          for (const u of ['a', 'b', 'c', 'd'].map(colliding).concat('p1', 'p2')) expect(t.get(u)).toBe(model.get(u))
          expect(t.size).toBe(model.size)
          const all = t.entries()
          expect(new Set(all).size).toBe(all.length)
          expect([...all].sort((x, y) => x.n - y.n)).toEqual([...model.values()].sort((x, y) => x.n - y.n))
          // Entries that share a hash come in the order they were added.
          const chained = all.filter((e) => e.meta.uid.startsWith('12345678-'))
          expect(chained.map((e) => e.n)).toEqual([...chained.map((e) => e.n)].sort((x, y) => x - y))
        })
      }),
      { numRuns: 500 },
    )
  })
})
