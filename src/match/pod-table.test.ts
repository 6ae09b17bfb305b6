// The pod table against a Map model: random adds, removes, signature and mark writes over uids
// built to collide, through growth, wrap-around and backward-shift deletions.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPodTable, uidHash, type PodSlot } from './pod-table.ts'

interface Entry extends PodSlot<Entry> {
  readonly uid: string
  readonly n: number
}

const entry = (uid: string, n = 0): Entry => ({ uid, n, slot: -1, prev: undefined, next: undefined })
const table = () => createPodTable<Entry>((_sig, e, uid) => e.uid === uid)

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
  it('finds colliding uids, keeps their signatures and marks through removals, iterates in insertion order', () => {
    const t = table()
    const [a, b, c] = ['a', 'b', 'c'].map((m) => entry(colliding(m))) as [Entry, Entry, Entry]
    const lone = entry('e3907aea-cb8b-4299-a769-d18de4c0d452')
    for (const e of [a, lone, b, c]) t.add(e, e.uid, `sig ${e.uid}`)
    expect(uidHash(a.uid)).toBe(uidHash(c.uid))
    expect([a, b, c, lone].map((e) => t.get(e.uid))).toEqual([a, b, c, lone])
    expect(t.get(colliding('d'))).toBeUndefined()
    expect(t.find(colliding('d'))).toBe(-1)
    t.setMark(c, 7)
    expect(t.markAt(t.find(a.uid))).toBe(-1) // a new entry is not settled
    expect(t.entries()).toEqual([a, lone, b, c])
    t.remove(b) // middle of the probe run: c shifts back
    expect(t.entries()).toEqual([a, lone, c])
    expect(t.get(c.uid)).toBe(c)
    expect([t.sigAt(t.find(c.uid)), t.markAt(t.find(c.uid))]).toEqual([`sig ${c.uid}`, 7])
    t.remove(a) // head of the run
    expect(t.entries()).toEqual([lone, c])
    const i = t.find(c.uid)
    expect([t.entryAt(i), t.sigAt(i), t.markAt(i)]).toEqual([c, `sig ${c.uid}`, 7])
    t.setSig(c, 'changed')
    expect(t.sigAt(t.find(c.uid))).toBe('changed')
    t.remove(c)
    expect(t.entries()).toEqual([lone])
    expect(t.size).toBe(1)
    t.remove(c) // not in the table: nothing happens
    t.setMark(c, 3) // nor here
    expect(t.size).toBe(1)
    expect(t.markAt(t.find(lone.uid))).toBe(-1)
  })

  it('grows past its first capacity and finds everything again', () => {
    const t = table()
    const all = Array.from({ length: 5_000 }, (_, i) => entry(i % 7 === 0 ? colliding(String(i)) : `pod-${i}`, i))
    all.forEach((e) => t.add(e, e.uid, `s${e.n}`))
    all.forEach((e) => t.setMark(e, e.n))
    expect(t.size).toBe(all.length)
    for (const e of all) {
      const i = t.find(e.uid)
      expect([t.entryAt(i), t.sigAt(i), t.markAt(i)]).toEqual([e, `s${e.n}`, e.n])
    }
    expect(t.entries()).toEqual(all)
  })

  type Op = { op: 'add' | 'remove' | 'sig' | 'mark'; uid: string; value: number }
  // Uids from two pools: a few that collide with each other and some that do not; a small table
  // (16 slots until it grows) with long probe runs that wrap around its end.
  const arbUid = fc.oneof(
    fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f').map(colliding),
    fc.integer({ min: 0, max: 24 }).map((i) => `p${i}`),
  )
  const arbOps = fc.array(fc.record({ op: fc.constantFrom('add', 'add', 'remove', 'sig', 'mark'), uid: arbUid, value: fc.integer({ min: -1, max: 9 }) }), {
    maxLength: 120,
  })
  const uids = ['a', 'b', 'c', 'd', 'e', 'f'].map(colliding).concat(Array.from({ length: 25 }, (_, i) => `p${i}`))

  it('behaves as an insertion-ordered Map from uid to entry, signature and mark', () => {
    fc.assert(
      fc.property(arbOps, (ops: Op[]) => {
        const t = table()
        const model = new Map<string, { e: Entry; sig: string; mark: number }>()
        ops.forEach(({ op, uid, value }, n) => {
          const present = model.get(uid)
          if (op === 'add' && !present) {
            const e = entry(uid, n)
            t.add(e, uid, `s${n}`)
            model.set(uid, { e, sig: `s${n}`, mark: -1 })
          } else if (op === 'remove' && present) {
            t.remove(present.e)
            model.delete(uid)
          } else if (op === 'sig' && present) {
            t.setSig(present.e, `v${value}`)
            present.sig = `v${value}`
          } else if (op === 'mark' && present) {
            t.setMark(present.e, value)
            present.mark = value
          }
          for (const u of uids) {
            const m = model.get(u)
            const i = t.find(u)
            if (!m) expect(i).toBe(-1)
            else expect([t.entryAt(i), t.sigAt(i), t.markAt(i)]).toEqual([m.e, m.sig, m.mark])
          }
          expect(t.size).toBe(model.size)
          expect(t.entries()).toEqual([...model.values()].map((m) => m.e)) // Map order: insertion order
        })
      }),
      { numRuns: 1000 },
    )
  })
})
