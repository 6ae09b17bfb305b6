// Reconnect delay ceilings and jitter bounds, and the abortable sleep.
import { describe, expect, it } from 'vitest'
import { backoffDelay, sleep } from './backoff.ts'

const policy = { initialMs: 1_000, maxMs: 30_000 }

describe('backoffDelay (full jitter, 1 s → 30 s)', () => {
  it.each([
    [0, 1_000],
    [1, 2_000],
    [2, 4_000],
    [4, 16_000],
    [5, 30_000],
    [60, 30_000],
    [10_000, 30_000],
  ])('after %i failures the ceiling is %i ms', (failures, ceiling) => {
    expect(backoffDelay(failures, policy, () => 0)).toBe(0)
    expect(backoffDelay(failures, policy, () => 0.999_999_999)).toBe(ceiling)
    expect(backoffDelay(failures, policy, () => 0.5)).toBe(Math.floor(0.5 * (ceiling + 1)))
  })

  it('stays within [0, ceiling] for Math.random', () => {
    for (let i = 0; i < 1_000; i++) {
      const d = backoffDelay(i % 8, policy)
      expect(d).toBeGreaterThanOrEqual(0)
      expect(d).toBeLessThanOrEqual(Math.min(30_000, 1_000 * 2 ** (i % 8)))
      expect(Number.isInteger(d)).toBe(true)
    }
  })
})

describe('sleep', () => {
  it('resolves early when the signal aborts, and at once when it already has', async () => {
    const ac = new AbortController()
    const slept = sleep(60_000, ac.signal)
    ac.abort()
    await slept
    await sleep(60_000, ac.signal)
  })
})
