// The heartbeat's period on fake time.
import { expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { startHeartbeat } from './heartbeat.ts'

it('beats every interval until stopped, also from inside a beat', async () => {
  const clock = createFakeClock(0)
  const beats: number[] = []
  const heartbeat = startHeartbeat(clock, 100, () => {
    beats.push(clock.now())
    if (beats.length === 3) heartbeat.stop()
  })
  await clock.advance(99)
  expect(beats).toEqual([])
  await clock.advance(1_000)
  expect(beats).toEqual([100, 200, 300])
  expect(clock.pending).toBe(0)
})
