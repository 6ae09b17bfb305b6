// Leadership terms on fake time over the in-memory Lease API: one term per election, a term ends at
// the renew deadline, terms never overlap, the Lease is released only after the last term closed,
// and Lease refusals are counted and logged once.
import { afterEach, describe, expect, it } from 'vitest'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { createMemoryLeaseStore, type LeaseFault, type MemoryLeaseClient, type MemoryLeaseStore } from '../../e2e/harness/memory-leases.ts'
import { metric } from '../../e2e/harness/process.ts'
import type { Occurrence } from '../events/index.ts'
import { createLeaseApi, runElection } from '../lease/index.ts'
import { configureLogger } from '../observe/log.ts'
import { createRegistry, type Registry } from '../observe/metrics.ts'
import { sleep } from '../util/clock.ts'
import { createLeadership, type Leadership } from './leadership.ts'

const LEASE = { namespace: 'ns', name: 'collector' }
const TIMING = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }

/** One term as `lead` saw it, on the fake clock. */
interface Term {
  readonly start: number
  end?: number
  settled?: number
}

interface Replica {
  readonly leadership: Leadership
  readonly client: MemoryLeaseClient
  readonly registry: Registry
  readonly terms: Term[]
  /** What it reported as Kubernetes Events. */
  readonly reported: Occurrence[]
  readonly done: Promise<void>
  stop(): void
}

let stops: Array<() => void> = []
let logLines: string[] = []
afterEach(() => {
  for (const stop of stops) stop()
  stops = []
  logLines = []
})

/** A replica whose `lead` holds its term until the term aborts, then takes `closeMs` to settle. */
function replica(store: MemoryLeaseStore, clock: FakeClock, identity: string, opts: { closeMs?: number; fault?: LeaseFault } = {}): Replica {
  const closeMs = opts.closeMs ?? 0
  configureLogger({ level: 'debug', format: 'json', stream: { write: (line: string) => logLines.push(line) } })
  const client = store.client(identity)
  if (opts.fault) client.fault = opts.fault
  const api = createLeaseApi(client, LEASE, { clock })
  const registry = createRegistry()
  const reported: Occurrence[] = []
  const leadership = createLeadership({
    lease: LEASE,
    identity,
    registry,
    events: { record: (o) => reported.push(o) },
    now: clock.now,
    elect: (signal) => runElection(api, { ...TIMING, identity, signal, clock, random: () => 0.5 }),
  })
  const terms: Term[] = []
  const controller = new AbortController()
  const done = leadership.run(controller.signal, async (term) => {
    const t: Term = { start: clock.now() }
    terms.push(t)
    await new Promise<void>((resolve) => term.addEventListener('abort', () => resolve(), { once: true }))
    t.end = clock.now()
    await sleep(clock, closeMs)
    t.settled = clock.now()
  })
  const stop = (): void => controller.abort()
  stops.push(stop)
  return { leadership, client, registry, terms, done, stop, reported }
}

const holder = (store: MemoryLeaseStore): string | undefined => store.get(LEASE.namespace, LEASE.name)?.spec.holderIdentity
const gauge = (r: Replica, name: string, labels = ''): number | undefined => metric(r.registry.render(), name, labels)
const logged = (pattern: RegExp): string[] => logLines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => pattern.test(l.msg)).map((l) => `${l.level} ${l.msg}`)

/** Replica a leading (it came first), b standing by, at the start of fake time. */
async function leaderAndStandby(opts: { closeMs?: number } = {}) {
  const clock = createFakeClock()
  const store = createMemoryLeaseStore()
  const a = replica(store, clock, 'a', opts)
  await clock.advance(0)
  const b = replica(store, clock, 'b')
  return { clock, store, a, b }
}

describe('leadership', () => {
  it('gives exactly one of two replicas a term, and says so in its metrics', async () => {
    const { clock, store, a, b } = await leaderAndStandby()
    await clock.advance(30_000)
    expect(a.terms).toEqual([{ start: clock.now() - 30_000 }])
    expect(b.terms).toEqual([])
    expect([a.leadership.leading, b.leadership.leading]).toEqual([true, false])
    expect([gauge(a, 'k8s_collector_leader'), gauge(b, 'k8s_collector_leader')]).toEqual([1, 0])
    expect([gauge(a, 'k8s_collector_leader_transitions_total'), gauge(b, 'k8s_collector_leader_transitions_total')]).toEqual([1, 0])
    expect(logged(/held by a/)).toEqual(['info lease ns/collector held by a (this replica) (0 transitions)', 'info lease ns/collector held by a (0 transitions)'])
  })

  it('ends the term at the renew deadline, at least 5 s before the standby may start its own', async () => {
    const { clock, store, a, b } = await leaderAndStandby()
    await clock.advance(6_000) // a renewed at 2, 4 and 6 s
    const lastRenewal = clock.now()
    a.client.fault = { kind: 'stall' }
    await clock.advance(30_000)
    expect(a.terms).toHaveLength(1)
    expect(a.terms[0]!.end).toBe(lastRenewal + TIMING.renewDeadlineMs)
    expect(b.terms).toHaveLength(1)
    expect(b.terms[0]!.start - a.terms[0]!.end!).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.renewDeadlineMs)
    expect(gauge(a, 'k8s_collector_leader_transitions_total')).toBe(2)
    expect(gauge(a, 'k8s_collector_lease_api_errors_total', 'status="aborted"')).toBeUndefined()
    expect(logged(/renew deadline/)).toEqual(['warn lease ns/collector not renewed within the renew deadline: reducer connection closed, standing by'])
    const lease = { ...LEASE, uid: store.get(LEASE.namespace, LEASE.name)!.metadata.uid }
    expect(a.reported).toEqual([
      { reason: 'LeaderElected', identity: 'a', lease },
      { reason: 'LeadershipLost', identity: 'a', lease, cause: 'renewDeadline' },
    ])
    expect(b.reported).toEqual([{ reason: 'LeaderElected', identity: 'b', lease }])
  })

  it('starts a new term only once the previous one settled', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = replica(store, clock, 'a', { closeMs: 8_000 })
    await clock.advance(2_000)
    a.client.fault = { kind: 'stall' }
    await clock.advance(10_000) // lost at 12 s; the Lease still names a
    expect(a.terms[0]!.end).toBe(clock.now())
    a.client.fault = { kind: 'none' }
    await clock.advance(10_000)
    // Elected again at 19.2 s (its read at 12 s timed out at 17 s, the next attempt 2.2 s later), but
    // the second term waits for the first to settle (20 s).
    expect(a.terms).toHaveLength(2)
    expect(a.terms[0]!.settled! - a.terms[0]!.end!).toBe(8_000)
    expect(a.terms[1]!.start).toBe(a.terms[0]!.settled)
    expect(logged(/^leading/)).toHaveLength(2)
    expect(holder(store)).toBe('a')
  })

  it('on stop: closes the term first, releases the Lease after, and the standby takes it at its next attempt', async () => {
    const { clock, store, a, b } = await leaderAndStandby({ closeMs: 1_000 })
    await clock.advance(5_000)
    const stoppedAt = clock.now()
    a.stop()
    await clock.advance(999)
    expect(a.terms[0]!.end).toBe(stoppedAt)
    expect(holder(store)).toBe('a') // still closing: not released
    await clock.advance(1)
    await a.done
    expect(holder(store)).not.toBe('a')
    expect(a.leadership.leading).toBe(false)
    await clock.advance(2_200)
    expect(holder(store)).toBe('b')
    expect(b.terms[0]!.start - stoppedAt).toBeLessThanOrEqual(1_000 + 2_200)
    expect(logged(/stopping/)).toEqual(['info stopping: reducer connection closed, releasing lease ns/collector'])
  })

  it('counts refused Lease requests by status and logs a refusal once per episode', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = replica(store, clock, 'a', { fault: { kind: 'fail', status: 403 } })
    await clock.advance(120_000)
    expect(a.terms).toEqual([])
    const refused = gauge(a, 'k8s_collector_lease_api_errors_total', 'op="get",status="403"')!
    expect(refused).toBeGreaterThan(3)
    expect(logged(/forbidden/)).toEqual([
      'error forbidden to get lease ns/collector: the service account needs a Role allowing verbs get, create, update on resource "leases" in API group "coordination.k8s.io" in namespace "ns" (and a RoleBinding); until then this replica cannot lead',
    ])
    a.client.fault = { kind: 'fail', status: 500 }
    await clock.advance(35_000)
    a.client.fault = { kind: 'none' }
    await clock.advance(35_000)
    expect(a.leadership.leading).toBe(true)
    expect(gauge(a, 'k8s_collector_lease_api_errors_total', 'op="get",status="500"')).toBeGreaterThan(0)
    expect(logged(/get lease ns\/collector failed: HTTP 500 InternalError: injected 500/)).toHaveLength(1) // at most once a minute
  })
})
