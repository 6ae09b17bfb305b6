// The PING rule of a shared HTTP/2 connection on fake time (docs/dead-links.md §2): a PING after
// 30 s without a frame, the connection dead 15 s later when nothing answered, to the millisecond.
import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { startLiveness } from './h2-liveness.ts'

const TIMES = { quietMs: 30_000, answerMs: 15_000 }

/** A check on fake time whose PINGs are recorded; `answer()` answers the last one. */
function harness() {
  const clock = createFakeClock()
  const pings: Array<{ at: number; answered: () => void }> = []
  const deaths: Array<{ at: number; silentMs: number }> = []
  const check = startLiveness(clock, TIMES, (answered) => pings.push({ at: clock.now(), answered }), (silentMs) => deaths.push({ at: clock.now(), silentMs }))
  const start = clock.now()
  return { clock, pings, deaths, check, start, answer: () => pings.at(-1)!.answered() }
}

describe('the HTTP/2 PING rule', () => {
  it('sends a PING after 30 s without a frame, and again 30 s after each answer', async () => {
    const h = harness()
    await h.clock.advance(29_999)
    expect(h.pings).toHaveLength(0)
    await h.clock.advance(1)
    expect(h.pings.map((p) => p.at - h.start)).toEqual([30_000])
    await h.clock.advance(5)
    h.answer()
    await h.clock.advance(30_000)
    expect(h.pings.map((p) => p.at - h.start)).toEqual([30_000, 60_005])
    // Answered at once, for 10 minutes: a PING every 30 s and nothing else.
    for (let i = 0; i < 20; i++) {
      h.answer()
      await h.clock.advance(30_000)
    }
    expect(h.deaths).toEqual([])
    expect(h.pings.length).toBe(22)
    expect(h.pings.at(-1)!.at - h.pings.at(-2)!.at).toBe(30_000)
  })

  it('declares the connection dead 15 s after an unanswered PING, not 1 ms sooner, once', async () => {
    const h = harness()
    await h.clock.advance(30_000 + 14_999)
    expect(h.deaths).toEqual([])
    await h.clock.advance(1)
    expect(h.deaths).toEqual([{ at: h.start + 45_000, silentMs: 45_000 }])
    h.answer() // a late answer changes nothing
    await h.clock.advance(120_000)
    expect(h.deaths).toHaveLength(1)
    expect(h.pings).toHaveLength(1)
  })

  it('sends nothing while frames arrive, and counts a frame as the answer of a PING out', async () => {
    const h = harness()
    for (let i = 0; i < 60; i++) {
      await h.clock.advance(10_000)
      h.check.kick()
    }
    expect(h.pings).toHaveLength(0)
    await h.clock.advance(30_000)
    expect(h.pings).toHaveLength(1)
    await h.clock.advance(14_000)
    h.check.kick() // a DATA frame of a watch, before the PING's answer
    await h.clock.advance(29_999)
    expect(h.deaths).toEqual([])
    expect(h.pings).toHaveLength(1)
    await h.clock.advance(1)
    expect(h.pings).toHaveLength(2)
  })

  it('probes at once when a request went silent, and only once while a PING is out', async () => {
    const h = harness()
    await h.clock.advance(10_000)
    h.check.probe()
    h.check.probe()
    expect(h.pings.map((p) => p.at - h.start)).toEqual([10_000])
    await h.clock.advance(15_000)
    expect(h.deaths).toEqual([{ at: h.start + 25_000, silentMs: 25_000 }])
  })

  it('stops for good', async () => {
    const h = harness()
    await h.clock.advance(31_000)
    h.check.stop()
    await h.clock.advance(600_000)
    expect(h.deaths).toEqual([])
    expect(h.pings).toHaveLength(1)
    expect(h.clock.pending).toBe(0)
  })
})
