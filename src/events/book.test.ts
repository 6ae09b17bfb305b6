// The series rules on explicit time: isomorphic events within 6 minutes are one object, series
// written at most every 30 s, the pending writes bounded with the oldest dropped.
import { describe, expect, it } from 'vitest'
import { createEventBook, type BookLimits, type EventBook, type Write } from './book.ts'
import type { EventSpec } from './types.ts'

const limits: BookLimits = { isomorphicWindowMs: 360_000, seriesIntervalMs: 30_000, maxPending: 4, maxEntries: 8 }
const pod = { apiVersion: 'v1', kind: 'Pod', namespace: 'ns', name: 'collector-1', uid: 'u1' }
const spec = (note: string, reason = 'ReducerUnreachable'): EventSpec => ({ regarding: pod, type: 'Warning', reason, action: 'Connect', note })

function book(l: Partial<BookLimits> = {}): EventBook {
  let n = 0
  return createEventBook({ ...limits, ...l }, (s) => `${s.regarding.name}.${n++}`)
}

/** Takes the write due at `now` and ends it as written. */
function write(b: EventBook, now: number): Write | undefined {
  const w = b.next(now)
  if (w) b.done(w, 'written', now)
  return w
}

describe('event book: series (docs/events.md)', () => {
  it('creates at once, then writes the series of repeats at most every 30 s, counting from 2', () => {
    const b = book()
    b.observe(spec('down'), 0)
    const created = write(b, 0)!
    expect(created).toMatchObject({ create: true, count: 1, lastAt: 0, entry: { name: 'collector-1.0', firstAt: 0 } })
    for (const t of [1_000, 2_000, 3_000]) b.observe(spec('down'), t)
    expect(b.next(29_999)).toBeUndefined()
    expect(b.nextDueAt()).toBe(30_000)
    const series = write(b, 30_000)!
    expect(series).toMatchObject({ create: false, count: 4, lastAt: 3_000, entry: { name: 'collector-1.0' } })
    expect(b.pending).toBe(0)
    // A repeat long after the last write (but within 6 minutes of the last observation) goes out at once.
    b.observe(spec('down'), 200_000)
    expect(write(b, 200_000)).toMatchObject({ count: 5, lastAt: 200_000 })
  })

  it('a different note, reason or regarding object is another object', () => {
    const b = book()
    b.observe(spec('down'), 0)
    b.observe(spec('refused'), 0)
    b.observe(spec('down', 'Other'), 0)
    b.observe({ ...spec('down'), regarding: { ...pod, uid: 'u2' } }, 0)
    const names = [write(b, 0), write(b, 0), write(b, 0), write(b, 0)].map((w) => w?.entry.name)
    expect(names).toEqual(['collector-1.0', 'collector-1.1', 'collector-1.2', 'collector-1.3'])
  })

  it('forgets an object 6 minutes after its last observation: the next one is a new object', () => {
    const b = book()
    b.observe(spec('down'), 0)
    write(b, 0)
    b.observe(spec('down'), 360_000) // exactly 6 min: still the same series
    expect(write(b, 360_000)).toMatchObject({ count: 2, entry: { name: 'collector-1.0' } })
    b.observe(spec('down'), 720_001)
    expect(write(b, 720_001)).toMatchObject({ create: true, count: 1, entry: { name: 'collector-1.1', firstAt: 720_001 } })
  })

  it('an observation during the write in flight makes the series owe another write', () => {
    const b = book()
    b.observe(spec('down'), 0)
    const w = b.next(0)!
    b.observe(spec('down'), 10)
    expect(b.next(10)).toBeUndefined() // one write at a time
    b.done(w, 'written', 20)
    expect(b.nextDueAt()).toBe(30_020)
    expect(write(b, 30_020)).toMatchObject({ count: 2, lastAt: 10 })
  })

  it('keeps at most maxPending writes waiting, dropping the oldest (a never-created object is forgotten)', () => {
    const b = book({ maxPending: 2 })
    expect(b.observe(spec('a'), 0)).toEqual([])
    expect(b.observe(spec('b'), 1)).toEqual([])
    expect(b.observe(spec('c'), 2).map((t) => t.spec.note)).toEqual(['a'])
    expect(b.pending).toBe(2)
    expect([write(b, 2), write(b, 2), write(b, 2)].map((w) => w?.entry.spec.note)).toEqual(['b', 'c', undefined])
    // 'a' was forgotten: observed again it is a new object.
    b.observe(spec('a'), 3)
    expect(write(b, 3)).toMatchObject({ count: 1, entry: { name: 'collector-1.3' } })
  })

  it('a dropped create forgets the object; a dropped series update keeps it for the next observation', () => {
    const b = book()
    b.observe(spec('down'), 0)
    b.done(b.next(0)!, 'dropped', 0)
    b.observe(spec('down'), 1)
    const created = write(b, 1)!
    expect(created).toMatchObject({ count: 1, entry: { name: 'collector-1.1' } })
    b.observe(spec('down'), 2)
    b.done(b.next(30_001)!, 'dropped', 30_001)
    expect(b.pending).toBe(0)
    b.observe(spec('down'), 40_000)
    expect(write(b, 40_000)).toMatchObject({ count: 3, entry: { name: 'collector-1.1' } })
  })

  it('final (shutdown) makes every pending write due at once; defer puts an interrupted write back', () => {
    const b = book()
    b.observe(spec('down'), 0)
    write(b, 0)
    b.observe(spec('down'), 1)
    expect(b.next(2)).toBeUndefined()
    const w = b.next(2, true)!
    expect(w.count).toBe(2)
    b.defer(w, 2)
    expect(b.pending).toBe(1)
    expect(b.next(2, true)?.count).toBe(2)
  })

  it('remembers at most maxEntries objects, forgetting the least recently observed', () => {
    const b = book({ maxEntries: 3 })
    for (const [i, note] of ['a', 'b', 'c'].entries()) {
      b.observe(spec(note), i)
      write(b, i)
    }
    b.observe(spec('a'), 10) // a is now the most recent
    write(b, 40_000)
    b.observe(spec('d'), 11) // evicts b
    write(b, 11)
    b.observe(spec('b'), 12)
    expect(write(b, 12)).toMatchObject({ create: true, count: 1 })
    b.observe(spec('a'), 13)
    expect(b.next(100_000)).toMatchObject({ count: 3 })
  })

  it('clear drops every pending write', () => {
    const b = book()
    b.observe(spec('a'), 0)
    b.observe(spec('b'), 0)
    expect(b.clear()).toBe(2)
    expect(b.pending).toBe(0)
    expect(b.next(0)).toBeUndefined()
  })
})
