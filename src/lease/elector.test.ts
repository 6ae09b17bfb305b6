// Leader election on fake time against the in-memory Lease API: acquiring, respecting a foreign
// holder on the local clock, renewing, losing at the renew deadline, races, release, refusals.
import { afterEach, describe, expect, it } from 'vitest'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { createMemoryLeaseStore, type LeaseFault, type MemoryLeaseClient, type MemoryLeaseStore } from '../../e2e/harness/memory-leases.ts'
import { runElection } from './elector.ts'
import type { ElectionEvent } from './events.ts'
import { createLeaseApi } from './lease-api.ts'
import { parseMicroTime } from './micro-time.ts'

const REF = { namespace: 'ns', name: 'collector' }
const SIX_DIGITS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

type Stamped = ElectionEvent & { readonly at: number }

interface Candidate {
  readonly client: MemoryLeaseClient
  readonly events: Stamped[]
  readonly done: Promise<void>
  abort(): void
  /** True between an `elected` and the next `lost`. */
  leading(): boolean
  of<T extends ElectionEvent['type']>(type: T): Array<Stamped & { type: T }>
}

let running: Candidate[] = []
afterEach(async () => {
  for (const c of running) c.abort()
  running = []
})

function candidate(store: MemoryLeaseStore, clock: FakeClock, identity: string, random = 0.5, fault?: LeaseFault): Candidate {
  const client = store.client(identity)
  if (fault) client.fault = fault
  const controller = new AbortController()
  const events: Stamped[] = []
  const election = runElection(createLeaseApi(client, REF, { clock }), { identity, signal: controller.signal, clock, random: () => random })
  const done = (async () => {
    for await (const ev of election) events.push({ ...ev, at: clock.now() })
  })()
  const c: Candidate = {
    client,
    events,
    done,
    abort: () => controller.abort(),
    leading() {
      const last = events.filter((e) => e.type === 'elected' || e.type === 'lost').at(-1)
      return last?.type === 'elected'
    },
    of: (type) => events.filter((e) => e.type === type) as never,
  }
  running.push(c)
  return c
}

const spec = (store: MemoryLeaseStore) => store.get(REF.namespace, REF.name)?.spec

/** A Lease as `kubectl apply` would leave it: another holder, times in the given form. */
function foreignLease(store: MemoryLeaseStore, time: string, holder = 'kube-user', transitions = 4): void {
  store.put({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: REF.name, namespace: REF.namespace },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: time, renewTime: time, leaseTransitions: transitions },
  })
}

describe('runElection', () => {
  it('creates a missing Lease and leads, writing the record as client-go does', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = candidate(store, clock, 'a')
    await clock.advance(0)
    expect(a.events.map((e) => e.type)).toEqual(['holder', 'elected'])
    expect(a.of('holder')[0]).toMatchObject({ identity: 'a', transitions: 0 })
    expect(a.of('elected')[0]!.leaseUid).toBe(store.get(REF.namespace, REF.name)!.metadata.uid)
    const s = spec(store)
    expect(s).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 })
    expect(s.acquireTime).toMatch(SIX_DIGITS)
    expect(s.renewTime).toBe(s.acquireTime)
    expect(parseMicroTime(s.renewTime)).toBe(clock.now() * 1000)
  })

  it('renews every retry period, keeping acquireTime and the transition count', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = candidate(store, clock, 'a')
    await clock.advance(0)
    const acquired = spec(store).acquireTime
    const renewals: string[] = []
    for (let i = 0; i < 5; i++) {
      await clock.advance(2_000)
      renewals.push(spec(store).renewTime)
    }
    expect(new Set(renewals).size).toBe(5)
    expect(renewals.map((t) => parseMicroTime(t)! / 1000 - 1_700_000_000_000)).toEqual([2_000, 4_000, 6_000, 8_000, 10_000])
    expect(spec(store)).toMatchObject({ holderIdentity: 'a', acquireTime: acquired, leaseTransitions: 0 })
    expect(a.of('error')).toEqual([])
    expect(a.leading()).toBe(true)
  })

  it('takes a released Lease (holder "") at once, counting a transition', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    foreignLease(store, '2024-01-01T00:00:00.000000Z', '', 7)
    const a = candidate(store, clock, 'a')
    await clock.advance(0)
    expect(a.leading()).toBe(true)
    expect(spec(store)).toMatchObject({ holderIdentity: 'a', leaseTransitions: 8 })
    expect(a.of('holder').map((e) => e.identity)).toEqual(['', 'a'])
  })

  // Remote timestamps are never compared with the local clock: an ancient, a future or a
  // millisecond renewTime all mean "held for leaseDurationSeconds from when this replica saw it".
  it.each([
    ['three fractional digits, years ago', '2020-01-01T00:00:00.123Z'],
    ['six fractional digits, in the future', '2999-12-31T23:59:59.999999Z'],
    ['whole seconds with an offset', '2023-11-14T23:13:20+02:00'],
    ['six fractional digits, now', '2023-11-14T22:13:20.000000Z'],
  ])('respects a foreign holder (%s) until the lease duration passed on the local clock', async (_label, time) => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    foreignLease(store, time)
    const a = candidate(store, clock, 'a')
    await clock.advance(14_999)
    expect(a.leading()).toBe(false)
    expect(a.of('holder').map((e) => e.identity)).toEqual(['kube-user'])
    expect(spec(store).holderIdentity).toBe('kube-user')
    // Attempts every 2.2 s (random 0.5), and one exactly when the lease expires.
    await clock.advance(1)
    expect(a.leading()).toBe(true)
    expect(a.of('elected')[0]!.at - 1_700_000_000_000).toBe(15_000)
    expect(spec(store)).toMatchObject({ holderIdentity: 'a', leaseTransitions: 5 })
  })

  it('keeps respecting a foreign holder that renews, and counts from its last renewal once it stops', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const t0 = clock.now()
    foreignLease(store, '2024-01-01T00:00:00.000000Z')
    const a = candidate(store, clock, 'a')
    for (let i = 1; i <= 6; i++) {
      await clock.advance(5_000)
      foreignLease(store, `2024-01-01T00:00:${String(i * 5).padStart(2, '0')}.000000Z`) // renewed every 5 s
    }
    // The last renewal was written at 30 s; `a` sees it at its next attempt (30.8 s) and waits 15 s from then.
    await clock.advance(15_799)
    expect(a.leading()).toBe(false)
    await clock.advance(1)
    expect(a.leading()).toBe(true)
    expect(a.of('elected')[0]!.at - t0).toBe(30_800 + 15_000)
  })

  it('loses leadership at the renew deadline when the API stalls, before a standby can acquire', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const t0 = clock.now()
    const a = candidate(store, clock, 'a')
    await clock.advance(0)
    const b = candidate(store, clock, 'b', 0.25)
    await clock.advance(6_000) // a renewed at 2, 4, 6 s
    a.client.fault = { kind: 'stall' }
    await clock.advance(9_999)
    expect(a.leading()).toBe(true)
    await clock.advance(1)
    expect(a.of('lost')).toEqual([{ type: 'lost', reason: 'renewDeadline', at: t0 + 16_000 }])
    await clock.advance(30_000)
    expect(b.leading()).toBe(true)
    // b last saw a's record change at its attempt after a's 6 s renewal (b tries every 2.1 s: 6.3 s) and waited 15 s.
    expect(b.of('elected')[0]!.at - t0).toBe(6_300 + 15_000)
    expect(b.of('elected')[0]!.at - a.of('lost')[0]!.at).toBeGreaterThanOrEqual(5_000)
    expect(spec(store)).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 })
  })

  it('loses leadership at the renew deadline when every renewal fails, reporting each failure', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const t0 = clock.now()
    const a = candidate(store, clock, 'a')
    await clock.advance(4_000) // renewed at 2 and 4 s
    a.client.fault = { kind: 'fail', status: 500 }
    await clock.advance(10_000)
    expect(a.of('error').filter((e) => e.at - t0 < 14_000).map((e) => [e.op, e.consecutive, e.at - t0])).toEqual([
      ['update', 1, 6_000],
      ['update', 2, 8_000],
      ['update', 3, 10_000],
      ['update', 4, 12_000],
    ])
    expect(a.of('lost')).toEqual([{ type: 'lost', reason: 'renewDeadline', at: t0 + 14_000 }])
    // Healed: the Lease still names a, so it leads again at its next attempt.
    a.client.fault = { kind: 'none' }
    await clock.advance(2_200)
    expect(a.leading()).toBe(true)
    expect(spec(store)).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0 })
  })

  it('settles a race between two electors on one store: one leads, the other sees a conflict and waits', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = candidate(store, clock, 'a', 0.3)
    const b = candidate(store, clock, 'b', 0.7)
    for (let i = 0; i < 60; i++) {
      await clock.advance(1_000)
      expect([a.leading(), b.leading()].filter(Boolean)).toHaveLength(1)
    }
    const [winner, loser] = a.leading() ? [a, b] : [b, a]
    expect(loser.of('conflict')).toEqual([expect.objectContaining({ op: 'create' })])
    expect(loser.of('elected')).toEqual([])
    expect(loser.of('holder').map((e) => e.identity)).toEqual([winner === a ? 'a' : 'b'])
    expect([...a.of('error'), ...b.of('error')]).toEqual([])
  })

  it('turns a 409 on renewal into a re-read: a renewal that landed late is renewed on, a foreign holder ends leadership', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = candidate(store, clock, 'a')
    await clock.advance(0)
    // Someone bumps the resourceVersion without changing the holder: a re-reads and renews.
    store.put(structuredClone(store.get(REF.namespace, REF.name)!))
    await clock.advance(2_000)
    expect(a.of('conflict')).toHaveLength(1)
    expect(a.leading()).toBe(true)
    expect(spec(store).holderIdentity).toBe('a')
    // Someone writes another holder: a steps down at its next renewal.
    foreignLease(store, '2024-01-01T00:00:00.000000Z', 'intruder')
    await clock.advance(2_000)
    expect(a.of('lost')).toEqual([expect.objectContaining({ reason: 'taken' })])
    expect(a.of('holder').map((e) => e.identity)).toEqual(['a', 'intruder'])
  })

  it('releases on abort as client-go does, and a standby takes over within 1.2 retry periods', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = candidate(store, clock, 'a')
    await clock.advance(0)
    const b = candidate(store, clock, 'b', 0.999)
    await clock.advance(5_000)
    const before = spec(store)
    a.abort()
    await clock.advance(0)
    await a.done
    const releasedAt = clock.now()
    expect(a.events.slice(-2).map((e) => e.type)).toEqual(['lost', 'holder'])
    expect(a.of('lost')).toEqual([expect.objectContaining({ reason: 'stopped' })])
    expect(spec(store)).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: before.leaseTransitions })
    expect(spec(store).renewTime).toBe(spec(store).acquireTime)
    await clock.advance(2_400)
    expect(b.leading()).toBe(true)
    expect(b.of('elected')[0]!.at - releasedAt).toBeLessThan(2_400)
    expect(spec(store)).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 })
  })

  it('stops without writing when aborted as standby', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    foreignLease(store, '2024-01-01T00:00:00.000000Z')
    const a = candidate(store, clock, 'a')
    await clock.advance(3_000)
    a.abort()
    await clock.advance(0)
    await a.done
    expect(store.requests.filter((r) => r.method !== 'GET')).toEqual([])
    expect(a.of('lost')).toEqual([])
  })

  it('releases when the consumer leaves the loop early', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const election = runElection(createLeaseApi(store.client('a'), REF, { clock }), { identity: 'a', signal: new AbortController().signal, clock })
    const loop = (async () => {
      for await (const ev of election) if (ev.type === 'elected') break
    })()
    await clock.advance(0)
    await loop
    expect(spec(store).holderIdentity).toBe('')
  })

  it('stays standby while Lease requests are forbidden, backing off, and leads once allowed', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = candidate(store, clock, 'a', 0.5, { kind: 'fail', status: 403 })
    await clock.advance(120_000)
    const errors = a.of('error')
    expect(a.leading()).toBe(false)
    expect(errors.every((e) => e.op === 'get' && e.error.name === 'KubeApiError' && (e.error as { status?: number }).status === 403)).toBe(true)
    expect(errors.map((e) => e.consecutive)).toEqual(errors.map((_e, i) => i + 1))
    // Without backoff there would be 120 / 2.2 ≈ 55 attempts; the gaps grow towards 2.2 s + 30 s.
    expect(errors.length).toBeLessThan(20)
    const gaps = errors.slice(1).map((e, i) => e.at - errors[i]!.at)
    expect(Math.max(...gaps)).toBeGreaterThan(10_000)
    a.client.fault = { kind: 'none' }
    await clock.advance(35_000)
    expect(a.leading()).toBe(true)
  })

  it('waits at least Retry-After (capped) when throttled as standby', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = candidate(store, clock, 'a', 0.5, { kind: 'fail', status: 429, retryAfterSeconds: 7 })
    await clock.advance(20_000)
    expect(a.of('error').map((e) => e.at - a.of('error')[0]!.at)).toEqual([0, 7_000, 14_000])
  })

  it('times out a hung standby request on the election clock and tries again', async () => {
    const clock = createFakeClock()
    const store = createMemoryLeaseStore()
    const a = candidate(store, clock, 'a', 0.5, { kind: 'stall' })
    await clock.advance(5_000)
    expect(a.of('error')).toEqual([expect.objectContaining({ op: 'get', consecutive: 1 })])
    expect(a.of('error')[0]!.error.message).toMatch(/no complete response within 5000 ms/)
    a.client.fault = { kind: 'none' }
    await clock.advance(2_200)
    expect(a.leading()).toBe(true)
  })

  it('rejects timing that breaks client-go rules', () => {
    const store = createMemoryLeaseStore()
    const api = createLeaseApi(store.client('a'), REF)
    const signal = new AbortController().signal
    expect(() => runElection(api, { identity: 'a', signal, leaseDurationMs: 10_000 })).toThrow(/lease duration \(10 s\) must be greater than the renew deadline \(10 s\)/)
    expect(() => runElection(api, { identity: '', signal })).toThrow(/identity/)
  })
})
