// The inactivity timer on fake time: fires once after `ms` without a kick, re-arms lazily, stops for good.
import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { startWatchdog } from './watchdog.ts'

describe('watchdog', () => {
  it('fires once, `ms` after the last kick', async () => {
    const clock = createFakeClock(0)
    const fired: number[] = []
    const dog = startWatchdog(clock, 1000, () => fired.push(clock.now()))
    await clock.advance(600)
    dog.kick()
    await clock.advance(999)
    expect(fired).toEqual([])
    await clock.advance(1)
    expect(fired).toEqual([1600])
    await clock.advance(5000)
    expect(fired).toEqual([1600])
    expect(clock.pending).toBe(0)
  })

  it('keeps one timer however often it is kicked', async () => {
    const clock = createFakeClock(0)
    const dog = startWatchdog(clock, 1000, () => {})
    for (let i = 0; i < 100; i++) {
      dog.kick()
      await clock.advance(10)
    }
    expect(clock.pending).toBe(1)
    dog.stop()
  })

  it('never fires after stop()', async () => {
    const clock = createFakeClock(0)
    let fired = false
    const dog = startWatchdog(clock, 1000, () => (fired = true))
    dog.stop()
    expect(clock.pending).toBe(0)
    await clock.advance(2000)
    expect(fired).toBe(false)
  })
})
