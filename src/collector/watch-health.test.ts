// Watch health on fake time (docs/behaviour.md §15): the contact age, stream_available and
// stream_primed as gauges, and the watches' part of /readyz, from what each stream says.
import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { scripted } from '../../e2e/harness/collector-fixtures.ts'
import type { StreamName } from '../match/index.ts'
import { createRegistry } from '../observe/metrics.ts'
import { registerWatchHealth, UNREACHABLE_GRACE_MS, watchUnreadiness, type WatchHealthSource } from './watch-health.ts'

function setup() {
  const clock = createFakeClock()
  const streams = { pods: scripted(), replicasets: scripted(), jobs: scripted() }
  const available: Record<StreamName, boolean> = { pods: true, replicasets: true, jobs: true }
  const primed: Record<StreamName, boolean> = { pods: true, replicasets: true, jobs: true }
  const listPending = new Set<StreamName>()
  const src: WatchHealthSource = { streams, startedAt: clock.now(), now: () => clock.now(), core: () => ({ available, primed }), listPending }
  const registry = createRegistry()
  registerWatchHealth(registry, src)
  const gauge = (name: string, stream: StreamName) => Number(new RegExp(`^k8s_collector_${name}\\{stream="${stream}"\\} (\\S+)$`, 'm').exec(registry.render())?.[1])
  return { clock, streams, available, primed, listPending, src, gauge }
}

describe('watch health', () => {
  it('ages each stream from its last contact, from the start before the first', async () => {
    const h = setup()
    await h.clock.advance(4_000)
    expect(h.gauge('watch_last_contact_age_seconds', 'pods')).toBe(4)
    h.streams.pods.contact = { lastContactMs: h.clock.now(), reachable: true }
    await h.clock.advance(2_500)
    expect(h.gauge('watch_last_contact_age_seconds', 'pods')).toBe(2.5)
    expect(h.gauge('watch_last_contact_age_seconds', 'jobs')).toBe(6.5)
  })

  it('says unavailable at once while a stream fails, not ready only after the grace, ready again at the next contact', async () => {
    const h = setup()
    h.streams.pods.contact = { lastContactMs: h.clock.now(), reachable: true }
    h.streams.jobs.contact = { lastContactMs: h.clock.now(), reachable: true }
    h.streams.replicasets.contact = { lastContactMs: h.clock.now(), reachable: true }
    expect(watchUnreadiness(h.src)).toBeUndefined()
    await h.clock.advance(10_000)
    h.streams.pods.contact = { lastContactMs: h.clock.now() - 10_000, reachable: false }
    expect(h.gauge('stream_available', 'pods')).toBe(0)
    expect(h.gauge('stream_available', 'jobs')).toBe(1)
    // A blip (an API server restart, a 429 burst) is not an outage: 60 s without contact is.
    await h.clock.advance(UNREACHABLE_GRACE_MS - 10_001)
    expect(watchUnreadiness(h.src)).toBeUndefined()
    await h.clock.advance(1)
    expect(watchUnreadiness(h.src)).toBe('API server unreachable for 60 s: pods')
    await h.clock.advance(30_000)
    h.streams.jobs.contact = { lastContactMs: h.clock.now() - 70_000, reachable: false }
    expect(watchUnreadiness(h.src)).toBe('API server unreachable for 90 s: pods, jobs')
    h.streams.pods.contact = { lastContactMs: h.clock.now(), reachable: true }
    h.streams.jobs.contact = { lastContactMs: h.clock.now(), reachable: true }
    expect(watchUnreadiness(h.src)).toBeUndefined()
    expect(h.gauge('stream_available', 'pods')).toBe(1)
  })

  it('leaves a stream answered 403/404 out of readiness (unavailable by configuration) but not out of the gauges', async () => {
    const h = setup()
    h.available.jobs = false
    h.streams.jobs.contact = { lastContactMs: undefined, reachable: false }
    await h.clock.advance(10 * 60_000)
    expect(watchUnreadiness(h.src)).toBeUndefined()
    expect(h.gauge('stream_available', 'jobs')).toBe(0)
    expect(h.gauge('watch_last_contact_age_seconds', 'jobs')).toBe(600)
  })

  it('is not ready and not primed while a list given up by the priming timeout is pending', () => {
    const h = setup()
    h.listPending.add('replicasets')
    expect(watchUnreadiness(h.src)).toBe('initial list pending after the priming timeout: replicasets')
    expect(h.gauge('stream_primed', 'replicasets')).toBe(0)
    expect(h.gauge('stream_primed', 'pods')).toBe(1)
    h.listPending.delete('replicasets')
    expect(watchUnreadiness(h.src)).toBeUndefined()
    expect(h.gauge('stream_primed', 'replicasets')).toBe(1)
  })
})
