import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { sleep } from './clock.ts'

describe('sleep', () => {
  it('resolves when the clock reaches the deadline, not before', async () => {
    const clock = createFakeClock(0)
    let done = false
    void sleep(clock, 1000).then(() => (done = true))
    await clock.advance(999)
    expect(done).toBe(false)
    await clock.advance(1)
    expect(done).toBe(true)
    expect(clock.pending).toBe(0)
  })

  it('resolves at once on abort and cancels its timer', async () => {
    const clock = createFakeClock(0)
    const ctrl = new AbortController()
    let done = false
    void sleep(clock, 60_000, ctrl.signal).then(() => (done = true))
    ctrl.abort()
    await clock.settle()
    expect(done).toBe(true)
    expect(clock.pending).toBe(0)
  })
})

describe('createFakeClock', () => {
  it('runs due timers in time order, including those scheduled on the way', async () => {
    const clock = createFakeClock(0)
    const seen: string[] = []
    clock.setTimeout(() => seen.push(`b@${clock.now()}`), 200)
    clock.setTimeout(() => {
      seen.push(`a@${clock.now()}`)
      clock.setTimeout(() => seen.push(`c@${clock.now()}`), 50)
    }, 100)
    await clock.advance(1000)
    expect(seen).toEqual(['a@100', 'c@150', 'b@200'])
    expect(clock.now()).toBe(1000)
  })
})
