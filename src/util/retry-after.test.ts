import { describe, expect, it } from 'vitest'
import { createBackoff } from './backoff.ts'
import { withRetryAfter } from './retry-after.ts'

describe('withRetryAfter', () => {
  const delays = () => withRetryAfter(createBackoff({}, () => 0, () => 0.5), 10_000)

  it('is the backoff when the server sent no Retry-After', () => {
    const delay = delays()
    expect([delay(undefined), delay(undefined), delay(undefined)]).toEqual([400, 800, 1600])
  })

  it('waits for Retry-After when it is longer, up to the cap; the backoff advances either way', () => {
    const delay = delays()
    expect(delay(3000)).toBe(3000)
    expect(delay(100)).toBe(800)
    expect(delay(3_600_000)).toBe(10_000)
    expect(delay(undefined)).toBe(3200)
  })
})
