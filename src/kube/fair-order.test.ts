// The held queue of a pod watch on its own (docs/behaviour.md §14, "Large lines"): which lines are
// held, the order items come out in, the resume point they carry, and when a held line is due,
// on fake time.
import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { FairOrder, type FairOrderLimits, type LineReader } from './fair-order.ts'
import type { WatchItem } from './watch.ts'

interface Obj {
  readonly uid: string
  readonly resourceVersion: string
}
type Line = { readonly type: string; readonly object?: { readonly metadata: { readonly uid?: string; readonly resourceVersion: string } }; readonly pad?: string }

const enc = new TextEncoder()
const dec = new TextDecoder()
const LIMITS: FairOrderLimits = { largeBytes: 200, heldBytes: 1000, maxWaitMs: 500 }

/** A reader over plain JSON lines, counting the conversions it makes. */
function reader(): LineReader<Obj> & { converted: string[] } {
  const parse = (buf: Uint8Array, start: number, end: number): Line => JSON.parse(dec.decode(buf.subarray(start, end))) as Line
  const converted: string[] = []
  return {
    converted,
    item(buf, start, end) {
      const l = parse(buf, start, end)
      const rv = l.object?.metadata.resourceVersion ?? ''
      converted.push(rv)
      if (l.type === 'BOOKMARK') return { type: 'BOOKMARK', resourceVersion: rv, initialEventsEnd: false }
      const uid = l.object?.metadata.uid
      return { type: l.type as 'ADDED', object: uid === undefined ? undefined : { uid, resourceVersion: rv }, resourceVersion: rv }
    },
    eventUid(buf, start, end) {
      const l = parse(buf, start, end)
      return l.type === 'ADDED' || l.type === 'MODIFIED' || l.type === 'DELETED' ? l.object?.metadata.uid : undefined
    },
    uidOf: (o) => o.uid,
  }
}

/** A watch line of `uid` at `rv`; `big` pads it past LIMITS.largeBytes (`bytes` long when given). */
function line(type: string, uid: string | undefined, rv: number, big = false, bytes = 0): Uint8Array {
  const text = JSON.stringify({ type, object: { metadata: { ...(uid === undefined ? {} : { uid }), resourceVersion: String(rv) } }, pad: big ? 'x'.repeat(Math.max(LIMITS.largeBytes, bytes)) : '' })
  return enc.encode(text)
}

const offer = (o: FairOrder<Obj>, b: Uint8Array): WatchItem<Obj> | undefined => o.offer(b, 0, b.length)
/** What an item says: `type uid@own rv → resume rv`. */
const show = (i: WatchItem<Obj> | undefined): string =>
  i === undefined ? 'held' : i.type === 'ERROR' ? 'ERROR' : i.type === 'BOOKMARK' ? `BOOKMARK → ${i.resourceVersion}` : `${i.object?.uid}@${i.object?.resourceVersion} → ${i.resourceVersion}`

describe('FairOrder', () => {
  it('hands ordinary lines out at once, as they came, when nothing is held', () => {
    const r = reader()
    const o = new FairOrder(r, createFakeClock(), LIMITS)
    expect([line('ADDED', 'a', 1), line('MODIFIED', 'b', 2), line('ADDED', undefined, 3)].map((b) => show(offer(o, b)))).toStrictEqual([
      'a@1 → 1',
      'b@2 → 2',
      'undefined@undefined → 3',
    ])
    expect(o.holding).toBe(false)
  })

  it('holds a large line unconverted; later lines pass it with the resume point before it; serving it moves the point past them', () => {
    const r = reader()
    const stats = { heldLines: 0 }
    const o = new FairOrder(r, createFakeClock(), LIMITS, stats)
    expect(show(offer(o, line('ADDED', 'a', 10)))).toBe('a@10 → 10')
    expect(show(offer(o, line('ADDED', 'big', 11, true)))).toBe('held')
    expect(r.converted).toStrictEqual(['10']) // not converted while held
    expect(show(offer(o, line('ADDED', 'b', 12)))).toBe('b@12 → 10')
    expect(show(offer(o, line('MODIFIED', 'c', 13)))).toBe('c@13 → 10')
    expect([o.holding, o.due]).toStrictEqual([true, false])
    expect(show(o.serve())).toBe('big@11 → 13')
    expect(o.holding).toBe(false)
    expect(show(offer(o, line('ADDED', 'd', 14)))).toBe('d@14 → 14')
    expect(stats.heldLines).toBe(1)
  })

  it('keeps order per uid: a later event of a held pod waits behind it, other pods do not', () => {
    const o = new FairOrder(reader(), createFakeClock(), LIMITS)
    expect(show(offer(o, line('ADDED', 'x', 11, true)))).toBe('held')
    expect(show(offer(o, line('MODIFIED', 'x', 12)))).toBe('held')
    expect(show(offer(o, line('ADDED', 'y', 13)))).toBe('y@13 → ')
    expect(show(offer(o, line('MODIFIED', 'z', 14, true)))).toBe('held')
    expect(show(offer(o, line('DELETED', 'x', 15)))).toBe('held')
    expect([o.serve(), o.serve(), o.serve(), o.serve()].map(show)).toStrictEqual(['x@11 → 11', 'x@12 → 13', 'z@14 → 14', 'x@15 → 15'])
    expect(o.holding).toBe(false)
    // Served, x is no longer held: its next event passes.
    expect(show(offer(o, line('MODIFIED', 'x', 16)))).toBe('x@16 → 16')
  })

  it('a bookmark or error behind a held line waits for it, and makes it due', () => {
    const o = new FairOrder(reader(), createFakeClock(), LIMITS)
    offer(o, line('ADDED', 'x', 11, true))
    expect(o.due).toBe(false)
    expect(show(offer(o, line('BOOKMARK', undefined, 12)))).toBe('held')
    expect(o.due).toBe(true)
    expect(show(o.serve())).toBe('x@11 → 11')
    expect(o.due).toBe(true)
    expect(show(o.serve())).toBe('BOOKMARK → 12')
    expect([o.holding, o.due]).toStrictEqual([false, false])
  })

  it('a large line that is not an event, or whose uid cannot be read, is converted at once', () => {
    const r = reader()
    const o = new FairOrder(r, createFakeClock(), LIMITS)
    expect(show(offer(o, line('BOOKMARK', undefined, 5, true)))).toBe('BOOKMARK → 5')
    expect(show(offer(o, line('ADDED', undefined, 6, true)))).toBe('undefined@undefined → 6')
    expect(o.holding).toBe(false)
  })

  it('past the byte bound the oldest held line is due', () => {
    const o = new FairOrder(reader(), createFakeClock(), LIMITS)
    offer(o, line('ADDED', 'a', 1, true, 400))
    offer(o, line('ADDED', 'b', 2, true, 400))
    expect(o.due).toBe(false)
    offer(o, line('ADDED', 'c', 3, true, 400))
    expect(o.due).toBe(true)
    expect(show(o.serve())).toBe('a@1 → 1')
    expect(o.due).toBe(false)
  })

  it('a line held maxWaitMs takes turns with ordinary lines', async () => {
    const clock = createFakeClock()
    const o = new FairOrder(reader(), clock, LIMITS)
    offer(o, line('ADDED', 'a', 1, true))
    offer(o, line('ADDED', 'b', 2, true))
    await clock.advance(499)
    expect(o.due).toBe(false)
    await clock.advance(1)
    expect(o.due).toBe(true)
    const a = o.serve()
    expect(show(a)).toBe('a@1 → 1')
    expect(a.type === 'ADDED' && a.receivedAt).toBe(clock.now() - 500) // when it was read: latency counts the hold
    expect(o.due).toBe(false) // b waited as long, but an ordinary line goes first
    expect(show(offer(o, line('ADDED', 'c', 3)))).toBe('c@3 → 1')
    expect(o.due).toBe(true)
    expect(show(o.serve())).toBe('b@2 → 3')
  })
})
