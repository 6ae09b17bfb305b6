// The write budget: 10 at once, one more every 6 s, so never more than 20 in any 60 s.
import { describe, expect, it } from 'vitest'
import { createTokenBucket } from './token-bucket.ts'

describe('token bucket', () => {
  it('allows the burst, then one per refill interval, and says how long to wait', () => {
    let now = 0
    const b = createTokenBucket({ capacity: 10, refillEveryMs: 6_000 }, () => now)
    for (let i = 0; i < 10; i++) expect(b.take()).toBe(true)
    expect(b.take()).toBe(false)
    expect(b.waitMs()).toBe(6_000)
    now = 5_999
    expect(b.take()).toBe(false)
    expect(b.waitMs()).toBe(1)
    now = 6_000
    expect(b.take()).toBe(true)
    now = 600_000
    expect(b.waitMs()).toBe(0)
    for (let i = 0; i < 10; i++) expect(b.take()).toBe(true)
    expect(b.take()).toBe(false) // refills no further than the capacity
  })

  it('a taker that writes whenever it may never exceeds 20 writes in any 60 s window', () => {
    let now = 0
    const b = createTokenBucket({ capacity: 10, refillEveryMs: 6_000 }, () => now)
    const taken: number[] = []
    // Ten minutes of someone trying every 250 ms.
    for (; now <= 600_000; now += 250) if (b.take()) taken.push(now)
    let worst = 0
    for (const [i, t] of taken.entries()) worst = Math.max(worst, taken.slice(i).filter((u) => u <= t + 60_000).length)
    expect(worst).toBe(20) // counting both ends of the window: the bound is reached, never passed
    expect(taken.length).toBe(10 + 100) // the burst, then one per 6 s
  })
})
