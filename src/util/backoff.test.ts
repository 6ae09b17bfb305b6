import { describe, expect, it } from 'vitest'
import { createBackoff } from './backoff.ts'

describe('createBackoff', () => {
  it('doubles the ceiling from 0.8 s to the 30 s cap (random → just below 1)', () => {
    let t = 0
    const b = createBackoff({}, () => t, () => 0.999999)
    const delays: number[] = []
    for (let i = 0; i < 8; i++) {
      delays.push(b.next())
      t += 1000
    }
    expect(delays).toEqual([799, 1599, 3199, 6399, 12799, 25599, 29999, 29999])
  })

  it('uses full jitter: the delay is random × ceiling', () => {
    const rolls = [0, 0.5, 0.25]
    const b = createBackoff({}, () => 0, () => rolls.shift() ?? 0)
    expect([b.next(), b.next(), b.next()]).toEqual([0, 800, 800])
  })

  it('starts over after 2 minutes without failures', () => {
    let t = 0
    const b = createBackoff({}, () => t, () => 0.5)
    b.next()
    b.next()
    b.next()
    expect(b.ceilingMs).toBe(6400)
    t += 119_999
    expect(b.next()).toBe(3200)
    t += 120_000
    expect(b.ceilingMs).toBe(800)
    expect(b.next()).toBe(400)
  })

  it('reset() starts over at once', () => {
    const b = createBackoff({ initialMs: 100, maxMs: 1000 }, () => 0, () => 0.5)
    b.next()
    b.next()
    b.reset()
    expect(b.next()).toBe(50)
  })
})
