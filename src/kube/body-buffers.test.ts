// The body-buffer pool: reuse of returned buffers, the smallest that fits, a bounded number kept.
import { describe, expect, it } from 'vitest'
import { createBodyBuffers } from './body-buffers.ts'

describe('createBodyBuffers', () => {
  it('hands a returned buffer out again, the largest spare, and allocates when none is large enough', () => {
    const pool = createBodyBuffers()
    const small = pool.take(100)
    const large = pool.take(1000)
    expect(small.length).toBe(100)
    pool.give(small)
    pool.give(large)
    expect(pool.take(50)).toBe(large)
    expect(pool.take(50)).toBe(small)
    pool.give(large)
    const fresh = pool.take(2000)
    expect(fresh).not.toBe(large)
    expect(fresh.length).toBe(2000)
    expect(pool.take(1)).toBe(large)
  })

  it('keeps at most `keep` spares, the largest, and refuses views and detached buffers', () => {
    const pool = createBodyBuffers(2)
    const bufs = [10, 30, 20].map((n) => new Uint8Array(n))
    for (const b of bufs) pool.give(b)
    expect(pool.take(1)).toBe(bufs[1])
    expect(pool.take(1)).toBe(bufs[2]) // the 10-byte one was dropped
    pool.give(new Uint8Array(64).subarray(8))
    const whole = new Uint8Array(64)
    structuredClone(whole.buffer, { transfer: [whole.buffer] })
    pool.give(whole)
    expect(pool.take(1).length).toBe(1)
  })
})
