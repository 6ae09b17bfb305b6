// What the collector reports as Kubernetes Events (docs/events.md), end to end on fake time: scripted
// watch streams, a real reducer link to a real tap, the recorder over HTTPS to a server that enforces
// the API server's event rules. A reducer outage is one object with a growing series; an API server
// refusing or failing events leaves the pipeline alone; flapping causes stay within the write budget.
import { afterEach, describe, expect, it } from 'vitest'
import { createEventRecorder, type EventRecorder } from '../events/index.ts'
import { createReducerLink, type ReducerLink } from '../link/index.ts'
import type { OwnerMeta, PodMeta } from '../model/index.ts'
import { createRegistry, type Registry } from '../observe/metrics.ts'
import { startTap, type Tap } from '../tap/index.ts'
import { scripted } from '../../e2e/harness/collector-fixtures.ts'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { startFakeEventsApi, type EventView, type FakeEventsApi } from '../../e2e/harness/fake-events-api.ts'
import { pod } from '../../e2e/harness/match-fixtures.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import { createCollector, type Collector } from './collector.ts'

const self = { name: 'collector-7f9c', namespace: 'obs', uid: 'u-1' }

interface Running {
  readonly clock: FakeClock
  readonly api: FakeEventsApi
  readonly registry: Registry
  readonly link: ReducerLink
  readonly collector: Collector
  readonly streams: { pods: ReturnType<typeof scripted<PodMeta>>; replicasets: ReturnType<typeof scripted<OwnerMeta>>; jobs: ReturnType<typeof scripted<OwnerMeta>> }
}

const until = <T>(what: string, probe: () => T | undefined | false): Promise<T> => waitFor(what, () => probe() || undefined, { timeoutMs: 10_000 }) as Promise<T>
const byReason = (events: EventView[], reason: string): EventView[] => events.filter((e) => e.reason === reason)

describe('collector events', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f()
  })

  async function start(port: number, opts: { waitingLimit?: number } = {}): Promise<Running & { recorder: EventRecorder }> {
    const clock = createFakeClock()
    const api = await startFakeEventsApi({ now: clock.now })
    const registry = createRegistry()
    const abort = new AbortController()
    const streams = { pods: scripted<PodMeta>(), replicasets: scripted<OwnerMeta>(), jobs: scripted<OwnerMeta>() }
    const link = createReducerLink({ host: '127.0.0.1', port, hostname: 'events', heartbeatIntervalMs: 5_000 }, { registry, clock, random: () => 0.5 })
    const recorder = createEventRecorder({ self }, { client: api.client(), registry, clock, random: () => 0.5 })
    const collector = createCollector(
      { deleteTtlSecs: 60, deleteCapacity: 100, waitingLimit: opts.waitingLimit ?? 100, primingTimeoutSecs: 60 },
      { streams, registry, link, clock, events: recorder },
    )
    const running = Promise.all([collector.run(abort.signal), recorder.run(abort.signal)])
    cleanup.push(async () => {
      abort.abort()
      for (const s of [streams.pods, streams.replicasets, streams.jobs]) s.end()
      await running
      await api.close()
    })
    for (const s of [streams.pods, streams.replicasets, streams.jobs]) {
      s.push({ type: 'init' })
      s.push({ type: 'initDone' })
    }
    return { clock, api, registry, link, collector, streams, recorder }
  }

  async function tapOn(port = 0): Promise<Tap> {
    const tap = await startTap({ listen: { host: '127.0.0.1', port } })
    cleanup.push(() => tap.close())
    return tap
  }

  /** Advances fake time in steps, letting real I/O (sockets, HTTPS) answer in between. */
  async function advance(r: Running, ms: number, step = 1_000): Promise<void> {
    for (let t = 0; t < ms; t += step) {
      await r.clock.advance(Math.min(step, ms - t))
      await until('the event writes in flight', () => r.api.sent.length === r.api.answered)
    }
  }

  it('a reducer down for a minute is one ReducerUnreachable object whose series counts the attempts', async () => {
    let tap = await tapOn()
    const port = tap.tcpPort
    const r = await start(port)
    r.streams.pods.push({ type: 'apply', object: pod('a') })
    await advance(r, 200, 100)
    await until('connected', () => tap.state().connections.some((c) => c.pods.length === 1))
    await tap.close()
    await until('the loss noticed', () => r.link.state === 'backoff')
    await advance(r, 60_000)
    const refused = r.link.stats().connectErrors.refused
    expect(refused).toBeGreaterThanOrEqual(4)
    tap = await tapOn(port)
    await advance(r, 31_000)
    await until('reconnected', () => tap.state().connections.some((c) => c.pods.length === 1))
    await advance(r, 31_000) // every series written
    const events = r.api.events()
    const unreachable = byReason(events, 'ReducerUnreachable')
    expect(unreachable).toHaveLength(1)
    // The loss, then every refused attempt: one series, its note fixed by the first failure.
    expect(unreachable[0]).toMatchObject({ type: 'Warning', count: 1 + refused, regarding: { kind: 'Pod', name: 'collector-7f9c', uid: 'u-1' } })
    expect(unreachable[0]!.note).toMatch(/^Lost the connection to the reducer at 127\.0\.0\.1:\d+: the reducer closed the connection\./)
    expect(byReason(events, 'ReducerConnected')).toMatchObject([{ type: 'Normal', count: 2, note: `Connected to the reducer at 127.0.0.1:${port}.` }])
    expect(byReason(events, 'Resync')).toMatchObject([{ type: 'Normal', count: 2 }])
    expect(r.api.sent.length).toBeLessThanOrEqual(3 + 1 + 4) // three creates, the outage's series at most every 30 s, the reconnect's
  })

  it.each([
    ['refuses (403)', { status: 403, reason: 'Forbidden' }],
    ['fails (500)', { status: 500, reason: 'InternalError' }],
  ])('an API server that %s events leaves the collector running and its pods announced', async (_what, fault) => {
    const tap = await tapOn()
    const r = await start(tap.tcpPort)
    r.api.fault = () => fault
    r.streams.pods.push({ type: 'apply', object: pod('a') })
    await advance(r, 200, 100)
    await until('pod a announced', () => tap.state().connections.some((c) => c.pods.length === 1))
    // Events are being refused or retried; the pipeline goes on regardless.
    r.streams.pods.push({ type: 'apply', object: pod('b') })
    r.streams.replicasets.push({ type: 'unavailable', reason: 'HTTP 403 Forbidden: replicasets.apps is forbidden' })
    await advance(r, 200, 100)
    await until('pod b announced', () => tap.state().connections.some((c) => c.pods.length === 2))
    await advance(r, 120_000, 5_000)
    r.streams.pods.push({ type: 'delete', object: pod('a') })
    await advance(r, 200, 100)
    await until('pod a deleted', () => tap.state().connections.some((c) => c.open && c.pods.length === 1))
    expect(r.collector.readiness()).toEqual({ ready: true })
    expect(r.api.events()).toEqual([])
    const rendered = r.registry.render()
    if (fault.status === 403) {
      expect(r.api.sent).toHaveLength(1) // nothing more once refused
      expect(rendered).toContain('k8s_collector_events_dropped_total{cause="forbidden"} 1')
      expect(rendered).toMatch(/k8s_collector_events_dropped_total\{cause="disabled"\} [1-9]/)
    } else {
      // Each write: four attempts, then dropped; never more than 20 writes a minute.
      expect(rendered).toMatch(/k8s_collector_events_dropped_total\{cause="failed"\} [1-9]/)
      expect(maxPerMinute(r.api.sent.map((s) => s.at))).toBeLessThanOrEqual(20)
    }
  })

  it('reports a resource refused and back, and a forced resync; flapping stays within 20 writes a minute', async () => {
    const tap = await tapOn()
    const r = await start(tap.tcpPort, { waitingLimit: 1 })
    await advance(r, 200, 100)
    await until('connected', () => tap.state().connections.length === 1)
    // Three streams flapping between 403/404 and listed, every second for three minutes.
    for (let i = 0; i < 180; i++) {
      const s = [r.streams.pods, r.streams.replicasets, r.streams.jobs][i % 3]!
      s.push({ type: 'unavailable', reason: i % 2 ? 'HTTP 404 NotFound: the server could not find the requested resource' : 'HTTP 403 Forbidden: forbidden' })
      s.push({ type: 'init' })
      s.push({ type: 'initDone' })
      await advance(r, 1_000)
    }
    // The waiting limit: a pod waiting for its ReplicaSet relists both owner streams, then a new epoch.
    r.streams.pods.push({ type: 'apply', object: pod('w', { kind: 'ReplicaSet', uid: 'rs1', name: 'rs-1' }) })
    await until('the relist request', () => r.streams.replicasets.relists === 1 && r.streams.jobs.relists === 1)
    for (const s of [r.streams.replicasets, r.streams.jobs]) {
      s.push({ type: 'init' })
      s.push({ type: 'initDone' })
    }
    await advance(r, 200, 100)
    await until('the forced epoch', () => tap.state().connections[0]!.epochs.length === 2)
    await advance(r, 240_000, 5_000) // the budget catches up
    const events = r.api.events()
    const named = (e: EventView) => `${/ (pods|replicasets|jobs) \(/.exec(e.note)?.[1]} ${/HTTP (\d{3})/.exec(e.note)?.[1]}`
    expect(byReason(events, 'ResourceUnavailable').map(named).sort()).toEqual(['jobs 403', 'jobs 404', 'pods 403', 'pods 404', 'replicasets 403', 'replicasets 404'])
    expect(byReason(events, 'ResourceAvailable')).toHaveLength(3)
    expect(byReason(events, 'ResourceAvailable').reduce((n, e) => n + e.count, 0)).toBe(180)
    expect(byReason(events, 'Resync').map((e) => [e.note.startsWith('New epoch after the waiting limit') ? 'waitingLimit' : 'reconnect', e.count]).sort()).toEqual([['reconnect', 1], ['waitingLimit', 1]])
    expect(maxPerMinute(r.api.sent.map((s) => s.at))).toBeLessThanOrEqual(20)
    expect(r.registry.render()).toContain('k8s_collector_events_dropped_total{cause="queue_full"} 0')
  })
})

/** The most writes within any 60 s (both ends counted). */
function maxPerMinute(at: readonly number[]): number {
  return Math.max(0, ...at.map((t) => at.filter((u) => u >= t && u <= t + 60_000).length))
}
