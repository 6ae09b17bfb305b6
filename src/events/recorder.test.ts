// The recorder over real HTTPS against a server that enforces the API server's event rules, on fake
// time: one object per cause with a growing series, the write budget, retries, the 403 switch-off,
// the core/v1 fallback, and the drain at shutdown (docs/events.md).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createRegistry, type Registry } from '../observe/metrics.ts'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { startFakeEventsApi, type FakeEventsApi } from '../../e2e/harness/fake-events-api.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import { createEventRecorder, type EventRecorder } from './recorder.ts'
import type { EventLimits } from './config.ts'
import type { Occurrence } from './reasons.ts'

const self = { name: 'collector-7f9c', namespace: 'obs', uid: 'u-1' }
const down: Occurrence = { reason: 'ReducerUnreachable', failure: { kind: 'connect', target: 'reducer:7000', cause: 'refused' } }
const distinct = (i: number): Occurrence => ({ reason: 'ReducerConnected', address: `10.0.${i >> 8}.${i & 255}:7000` })

let api: FakeEventsApi
let clock: FakeClock
let registry: Registry
let abort: AbortController
let rec: EventRecorder
let done: Promise<void>
function start(limits: Partial<EventLimits> = {}): void {
  registry = createRegistry()
  rec = createEventRecorder({ self, limits }, { client: api.client(), registry, clock, random: () => 0.5 })
  done = rec.run(abort.signal)
}

/** A counter's value from /metrics. */
function metric(name: 'emitted' | 'dropped', label: string): number {
  const key = name === 'emitted' ? `k8s_collector_events_emitted_total{reason="${label}"}` : `k8s_collector_events_dropped_total{cause="${label}"}`
  const line = registry.render().split('\n').find((l) => l.startsWith(`${key} `))
  return line ? Number(line.slice(key.length + 1)) : 0
}

/** The fake clock's start. */
const T0 = 1_700_000_000_000

const until = (what: string, probe: () => boolean): Promise<true> => waitFor(what, () => (probe() ? true : undefined), { timeoutMs: 10_000 })

beforeEach(async () => {
  clock = createFakeClock()
  api = await startFakeEventsApi({ now: clock.now })
  abort = new AbortController()
})
afterEach(async () => {
  abort.abort()
  await done
  await api.close()
})

describe('event recorder over HTTPS (fake time)', () => {
  it('writes an outage as one object whose series grows, its series at most every 30 s', async () => {
    start()
    rec.record(down)
    await until('the create', () => metric('emitted', 'ReducerUnreachable') === 1)
    // A retry every 5 s for a minute.
    for (let t = 5_000; t <= 60_000; t += 5_000) {
      await clock.advance(5_000)
      rec.record(down)
      if (t % 30_000 === 0) await until(`the series write at ${t}`, () => metric('emitted', 'ReducerUnreachable') === 1 + t / 30_000)
    }
    await clock.advance(30_000)
    await until('the last series write', () => metric('emitted', 'ReducerUnreachable') === 4)
    const events = api.events()
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ group: 'events.k8s.io/v1', reason: 'ReducerUnreachable', type: 'Warning', action: 'Connect', count: 13, regarding: { kind: 'Pod', name: 'collector-7f9c', uid: 'u-1' }, updates: 3 })
    expect(events[0]!.note).toContain('Cannot connect to the reducer at reducer:7000: connection refused')
    expect(events[0]!.eventTime).toMatch(/\.\d{6}Z$/)
    expect(api.sent.map((r) => [r.method, r.at - T0])).toEqual([['POST', 0], ['PATCH', 30_000], ['PATCH', 60_000], ['PATCH', 90_000]])
    expect(api.sent[1]!.path).toBe(`/apis/events.k8s.io/v1/namespaces/obs/events/${events[0]!.name}`)
    expect(api.requests.map((r) => r.status)).toEqual([201, 200, 200, 200])
  })

  it('keeps within 20 writes in any 60 s whatever floods in, dropping the oldest beyond the queue', async () => {
    start({ maxPending: 64 })
    for (let i = 0; i < 200; i++) rec.record(distinct(i))
    expect(metric('dropped', 'queue_full')).toBe(136)
    await until('the burst', () => metric('emitted', 'ReducerConnected') === 10)
    for (let n = 11; n <= 64; n++) {
      await clock.advance(6_000)
      await until(`create ${n}`, () => metric('emitted', 'ReducerConnected') === n)
    }
    await clock.advance(60_000)
    const at = api.sent.map((r) => r.at)
    expect(at).toHaveLength(64)
    const worst = Math.max(...at.map((t) => at.filter((u) => u >= t && u <= t + 60_000).length))
    expect(worst).toBeLessThanOrEqual(20)
    // The newest 64 made it, the oldest were dropped.
    expect(new Set(api.events().map((e) => e.note))).toEqual(new Set(Array.from({ length: 64 }, (_, k) => `Connected to the reducer at 10.0.0.${136 + k}:7000.`)))
  })

  it('after a 403: one request, logged, events off for good; the reporter goes on accepting without writing', async () => {
    api.fault = () => ({ status: 403, reason: 'Forbidden' })
    start()
    rec.record(down)
    await until('the refusal', () => metric('dropped', 'forbidden') === 1)
    await done // the loop ends: nothing more to write, ever
    api.fault = undefined
    for (let i = 0; i < 5; i++) {
      rec.record(distinct(i))
      await clock.advance(60_000)
    }
    expect(api.requests).toHaveLength(1)
    expect(metric('dropped', 'disabled')).toBe(5)
  })

  it('a failing API server (500): 3 retries with backoff within 60 s, then dropped and counted; the next event is written', async () => {
    api.fault = () => ({ status: 500, reason: 'InternalError' })
    start()
    rec.record(down)
    for (let i = 1; i <= 4; i++) {
      await until(`answer ${i}`, () => api.answered === i)
      await clock.advance(5_000) // more than any backoff: full jitter under 1, 2, 4 s
    }
    await until('the drop', () => metric('dropped', 'failed') === 1)
    expect(api.requests.map((r) => r.status)).toEqual([500, 500, 500, 500])
    expect(api.sent.at(-1)!.at - T0).toBeLessThanOrEqual(60_000)
    api.fault = undefined
    rec.record(distinct(1))
    await until('the next create', () => metric('emitted', 'ReducerConnected') === 1)
    // The dropped create is forgotten: its next occurrence creates the object.
    rec.record(down)
    await until('the outage event', () => metric('emitted', 'ReducerUnreachable') === 1)
    expect(api.events().map((e) => [e.reason, e.count])).toEqual([['ReducerConnected', 1], ['ReducerUnreachable', 1]])
  })

  it('a request that never completes times out on the clock and is retried; all within 60 s, then dropped', async () => {
    api.fault = () => 'stall'
    start()
    rec.record(down)
    for (let i = 1; i <= 4; i++) {
      // Held by the server (its body read), not only sent: on a loaded machine a request timed out
      // on the fake clock before it arrived would never be seen there (CI, 2026-11-28).
      await until(`request ${i}`, () => api.sent.length === i && api.requests.length === i)
      await clock.advance(10_000) // the whole-request timeout
      await clock.advance(5_000) // the backoff
    }
    await until('the drop', () => metric('dropped', 'failed') === 1)
    expect(api.requests).toHaveLength(4)
    expect(api.sent.map((r) => r.at)).toEqual([0, 10_500, 21_500, 33_500].map((t) => T0 + t)) // 10 s timeouts, then 0.5, 1, 2 s of backoff (random 0.5): the last gives up at 43.5 s
  })

  it('429 with Retry-After: waits that long before the retry', async () => {
    let refusals = 1
    api.fault = () => (refusals-- > 0 ? { status: 429, reason: 'TooManyRequests', retryAfterSeconds: 7 } : undefined)
    start()
    rec.record(down)
    await until('the answer', () => api.answered === 1)
    await clock.advance(6_999)
    expect(api.sent).toHaveLength(1)
    await clock.advance(1)
    await until('the retry', () => metric('emitted', 'ReducerUnreachable') === 1)
    expect(api.requests.map((r) => r.status)).toEqual([429, 201])
    expect(api.sent.map((r) => r.at)).toEqual([T0, T0 + 7_000])
  })

  it('falls back to core/v1 where events.k8s.io/v1 is not served (404), and stays there', async () => {
    api.servesEventsV1 = false
    start()
    rec.record(down)
    await until('the create', () => metric('emitted', 'ReducerUnreachable') === 1)
    rec.record(down)
    await clock.advance(30_000)
    await until('the series', () => metric('emitted', 'ReducerUnreachable') === 2)
    expect(api.requests.map((r) => [r.method, r.group, r.status])).toEqual([
      ['POST', 'events.k8s.io/v1', 404],
      ['POST', 'v1', 201],
      ['PATCH', 'v1', 200],
    ])
    expect(api.events()).toMatchObject([{ group: 'v1', reason: 'ReducerUnreachable', count: 2, regarding: { name: 'collector-7f9c' } }])
  })

  it('an object gone before its series update (TTL) is created again, with its series', async () => {
    start()
    rec.record(down)
    await until('the create', () => metric('emitted', 'ReducerUnreachable') === 1)
    const [first] = api.events()
    api.expire('obs', first!.name)
    rec.record(down)
    rec.record(down)
    await clock.advance(30_000)
    await until('the re-create', () => metric('emitted', 'ReducerUnreachable') === 2)
    expect(api.requests.map((r) => [r.method, r.status])).toEqual([['POST', 201], ['PATCH', 404], ['POST', 201]])
    expect(api.events()).toMatchObject([{ name: first!.name, count: 3 }])
  })

  it('leader election: the pod event and, as client-go writes it, the Lease event', async () => {
    start()
    rec.record({ reason: 'LeaderElected', identity: 'node-1_abc', lease: { namespace: 'obs', name: 'k8s-collector', uid: 'l-1' } })
    await until('both creates', () => metric('emitted', 'LeaderElected') === 1 && metric('emitted', 'LeaderElection') === 1)
    expect(api.events().map((e) => [e.reason, e.type, e.regarding.kind, e.regarding.name, e.note]).sort()).toEqual([
      ['LeaderElected', 'Normal', 'Pod', 'collector-7f9c', 'Leader on Lease obs/k8s-collector as node-1_abc: connecting to the reducer.'],
      ['LeaderElection', 'Normal', 'Lease', 'k8s-collector', 'node-1_abc became leader'],
    ])
    expect(api.events().find((e) => e.regarding.kind === 'Lease')!.regarding).toEqual({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'obs', name: 'k8s-collector', uid: 'l-1' })
  })

  it('on shutdown, writes what is pending for a moment (the drain), then stops', async () => {
    start()
    rec.record(down)
    await until('the create', () => metric('emitted', 'ReducerUnreachable') === 1)
    rec.record(down) // a series update not due for 30 s
    rec.record({ reason: 'LeadershipLost', identity: 'me', lease: { namespace: 'obs', name: 'k8s-collector' }, cause: 'stopped' })
    abort.abort()
    await done
    expect(api.events().map((e) => [e.reason, e.count, e.note]).sort()).toEqual([
      ['LeaderElection', 1, 'me stopped leading'],
      ['LeadershipLost', 1, expect.stringContaining('shutting down')],
      ['ReducerUnreachable', 2, expect.any(String)],
    ])
  })
})
