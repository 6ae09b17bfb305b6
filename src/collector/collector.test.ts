// The collector wiring over a real reducer link to a real tap, with scripted watch streams, on fake time.
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryLeaseStore, type MemoryLeaseStore } from '../../e2e/harness/memory-leases.ts'
import { createLeaseApi, runElection } from '../lease/index.ts'
import { createReducerLink } from '../link/index.ts'
import type { OwnerMeta, PodMeta } from '../model/index.ts'
import { createRegistry } from '../observe/metrics.ts'
import { startTap, type Tap } from '../tap/index.ts'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { types } from '../../e2e/harness/fake-reducer.ts'
import { fakeReducer } from '../../e2e/harness/link-fixtures.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import { scripted } from '../../e2e/harness/collector-fixtures.ts'
import { createCollector } from './collector.ts'
import { createLeadership } from './leadership.ts'

const pod = (uid: string, owner?: PodMeta['owner']): PodMeta => ({
  uid,
  name: `pod-${uid}`,
  namespace: 'default',
  resourceVersion: '1',
  ip: 0x0a000001,
  hasIp: true,
  hostNetwork: false,
  version: "'img:1'",
  containers: [{ id: `containerd://${uid}`, name: 'c', image: 'img:1' }],
  ...(owner ? { owner } : {}),
})

const LEASE = { namespace: 'ns', name: 'collector' }

const until = <T>(probe: () => T | undefined, what = 'the condition'): Promise<T> => waitFor(what, probe, { timeoutMs: 5_000 })

describe('collector wiring', () => {
  let tap: Tap | undefined
  let abort = new AbortController()
  afterEach(async () => {
    abort.abort()
    abort = new AbortController()
    await tap?.close()
  })

  function setup(opts: { primingTimeoutSecs?: number; waitingLimit?: number; port?: number; leases?: MemoryLeaseStore } = {}) {
    const streams = { pods: scripted<PodMeta>(), replicasets: scripted<OwnerMeta>(), jobs: scripted<OwnerMeta>() }
    const registry = createRegistry()
    const clock = createFakeClock()
    const link = createReducerLink({ host: '127.0.0.1', port: opts.port ?? tap!.tcpPort, hostname: 'wiring', heartbeatIntervalMs: 200 }, { registry, clock })
    const leases = opts.leases
    const leadership =
      leases &&
      createLeadership({
        lease: LEASE,
        identity: 'me',
        registry,
        elect: (signal) => runElection(createLeaseApi(leases.client('me'), LEASE, { clock }), { identity: 'me', signal, clock, random: () => 0 }),
      })
    const collector = createCollector(
      { deleteTtlSecs: 60, deleteCapacity: 100, waitingLimit: opts.waitingLimit ?? 100, primingTimeoutSecs: opts.primingTimeoutSecs ?? 60 },
      { streams, registry, link, clock, ...(leadership ? { leadership } : {}) },
    )
    return { streams, registry, collector, clock, link, done: collector.run(abort.signal) }
  }

  /** Pushes an empty initial list on each stream. */
  function listedEmpty(streams: ReturnType<typeof setup>['streams']): void {
    for (const s of [streams.pods, streams.replicasets, streams.jobs]) {
      s.push({ type: 'init' })
      s.push({ type: 'initDone' })
    }
  }

  it('connects only once all three initial lists are in, then announces with epoch 1', async () => {
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const { streams, collector, clock, link } = setup()
    streams.pods.push({ type: 'init' })
    streams.pods.push({ type: 'initApply', object: pod('a') })
    streams.pods.push({ type: 'initDone' })
    streams.replicasets.push({ type: 'init' })
    streams.replicasets.push({ type: 'initDone' })
    await clock.advance(300)
    expect(link.state).toBe('idle')
    expect(tap.state().connections).toHaveLength(0)
    expect(collector.readiness()).toEqual({ ready: false, reason: 'initial list pending: jobs' })
    streams.jobs.push({ type: 'init' })
    streams.jobs.push({ type: 'initDone' })
    await until(() => (collector.readiness().ready ? true : undefined), 'ready')
    await clock.advance(100)
    const conn = await until(() => tap!.state().connections.find((c) => c.pods.length === 1), 'the pod announced')
    expect(conn.epochs).toEqual([1])
    expect(conn.hostname).toBe('wiring')
    streams.pods.push({ type: 'delete', object: pod('a') })
    await clock.advance(100)
    await until(() => (tap!.state().connections[0]!.pods.length === 0 ? true : undefined), 'the pod deleted')
  })

  it('event-to-wire latency counts from when a held pod line was read, others from their hand-over', async () => {
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const { streams, registry, clock } = setup()
    listedEmpty(streams)
    await until(() => (tap!.state().connections.length === 1 ? true : undefined), 'connected')
    await clock.advance(100) // the connect's snapshot flushed
    await until(() => (tap!.state().connections[0]!.epochs.length === 1 ? true : undefined), 'the snapshot received')
    const wire = () => registry.render().split('\n').filter((l) => l.startsWith('k8s_collector_link_event_to_wire_seconds'))
    const count = (le: string) => Number(wire().find((l) => l.includes(`le="${le}"`))!.split(' ').at(-1))
    const before = { le01: count('0.1'), le25: count('2.5') }
    // Held for 2 s by the watch (docs/behaviour.md §14), then handed on: 2 s + the flush delay.
    streams.pods.push({ type: 'apply', object: pod('held'), receivedAt: clock.now() - 2_000 })
    await clock.advance(100)
    await until(() => (tap!.state().connections[0]!.pods.length === 1 ? true : undefined), 'the held pod announced')
    expect([count('0.1') - before.le01, count('2.5') - before.le25]).toStrictEqual([0, 1])
    // An ordinary one: the flush delay only.
    streams.pods.push({ type: 'apply', object: pod('ordinary') })
    await clock.advance(100)
    await until(() => (tap!.state().connections[0]!.pods.length === 2 ? true : undefined), 'the ordinary pod announced')
    expect([count('0.1') - before.le01, count('2.5') - before.le25]).toStrictEqual([1, 2])
  })

  it('connects after the priming timeout with the streams it has, the missing one unavailable and not ready until its list', async () => {
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const { streams, collector, registry, clock, link } = setup({ primingTimeoutSecs: 1 })
    streams.pods.push({ type: 'init' })
    streams.pods.push({ type: 'initApply', object: pod('a', { kind: 'ReplicaSet', uid: 'rs1', name: 'rs-1' }) })
    streams.pods.push({ type: 'initDone' })
    streams.jobs.push({ type: 'init' })
    streams.jobs.push({ type: 'initDone' })
    await clock.advance(999)
    expect(link.state).toBe('idle')
    await clock.advance(1)
    await until(() => (link.state === 'connected' ? true : undefined), 'connected')
    await clock.advance(100)
    const conn = await until(() => tap!.state().connections.find((c) => c.pods.length === 1), 'the pod announced')
    expect(conn.pods[0]).toMatchObject({ ownerKind: 0, ownerUid: 'rs1', ownerName: 'rs-1' })
    expect(collector.core.stats().available.replicasets).toBe(false)
    // Issue 18: connected, but neither ready nor primed while the list the timeout gave up on is missing (§15).
    expect(collector.readiness()).toEqual({ ready: false, reason: 'initial list pending after the priming timeout: replicasets' })
    expect(registry.render()).toMatch(/k8s_collector_stream_available\{stream="replicasets"\} 0/)
    expect(registry.render()).toMatch(/k8s_collector_stream_primed\{stream="replicasets"\} 0/)
    streams.replicasets.push({ type: 'init' })
    streams.replicasets.push({ type: 'initDone' })
    await until(() => (collector.readiness().ready ? true : undefined), 'ready once the list is in')
    expect(registry.render()).toMatch(/k8s_collector_stream_available\{stream="replicasets"\} 1/)
    expect(registry.render()).toMatch(/k8s_collector_stream_primed\{stream="replicasets"\} 1/)
  })

  it('follows the link: a session after a drop starts the next epoch with a snapshot, nothing sent in between', async () => {
    const r = await fakeReducer()
    const { streams, collector, clock, link } = setup({ port: r.port })
    listedEmpty(streams)
    streams.pods.push({ type: 'apply', object: pod('a') })
    await until(() => (collector.readiness().ready ? true : undefined), 'ready')
    await clock.advance(100)
    const first = await r.connection(0)
    await first.waitFor((m) => m.some((x) => x.type === 'pod_container'), 5_000, 'the first snapshot')
    first.socket.destroy()
    await until(() => (link.state === 'backoff' ? true : undefined), 'the drop noticed')
    // While disconnected the stores stay current; nothing is queued.
    streams.pods.push({ type: 'apply', object: pod('b') })
    await until(() => (collector.core.stats().podsStored === 2 ? true : undefined), 'pod b stored')
    await clock.advance(1_000)
    await until(() => (collector.readiness().ready ? true : undefined), 'ready again')
    await clock.advance(100)
    const second = await r.connection(1)
    await second.waitFor((m) => m.filter((x) => x.type === 'pod_container').length === 2, 5_000, 'the second snapshot')
    expect(types(second.messages).slice(0, 7)).toEqual(['version_info', 'connect', 'report_cpu_cores', 'cloud_platform', 'set_node_info', 'metadata_complete', 'pod_resync'])
    expect(second.messages[6]).toMatchObject({ resyncCount: 2n })
    const announced = second.messages.filter((x) => x.type === 'pod_new_with_name').map((x) => (x as { uid: string }).uid)
    expect(announced.sort()).toEqual(['a', 'b'])
    expect(types(first.messages).filter((t) => t === 'pod_new_with_name')).toHaveLength(1)
    expect(link.stats().droppedWhileDisconnected).toBe(0)
  })

  it("runs the core's tick on the clock: a deleted owner's tombstone expires after deleteTtlSecs", async () => {
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const { streams, collector, clock } = setup()
    listedEmpty(streams)
    const rs: OwnerMeta = { kind: 'ReplicaSet', uid: 'rs1', name: 'rs-1', namespace: 'default', resourceVersion: '1' }
    streams.replicasets.push({ type: 'apply', object: rs })
    streams.replicasets.push({ type: 'delete', object: rs })
    await until(() => (collector.core.stats().tombstones === 1 ? true : undefined), 'the tombstone')
    await clock.advance(59_999)
    expect(collector.core.stats().tombstones).toBe(1)
    await clock.advance(1)
    expect(collector.core.stats().tombstones).toBe(0)
  })

  it('asks the owner streams to relist when the waiting limit is reached', async () => {
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const { streams } = setup({ waitingLimit: 2 })
    listedEmpty(streams)
    streams.pods.push({ type: 'apply', object: pod('w1', { kind: 'ReplicaSet', uid: 'x1', name: 'x' }) })
    streams.pods.push({ type: 'apply', object: pod('w2', { kind: 'ReplicaSet', uid: 'x2', name: 'x' }) })
    await until(() => (streams.replicasets.relists === 1 && streams.jobs.relists === 1 ? true : undefined))
  })

  it('with leader election: a primed standby is ready and silent; each term connects with the next epoch and ends with its connection', async () => {
    const r = await fakeReducer()
    const leases = createMemoryLeaseStore()
    // Another replica holds the Lease (just renewed, 15 s).
    const other = (holderIdentity: string) =>
      leases.put({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: LEASE.name, namespace: LEASE.namespace }, spec: { holderIdentity, leaseDurationSeconds: 15, leaseTransitions: 3 } })
    other('other')
    const { streams, collector, clock, link } = setup({ port: r.port, leases })
    expect(collector.readiness()).toEqual({ ready: false, reason: 'initial list pending: pods, replicasets, jobs' })
    listedEmpty(streams)
    streams.pods.push({ type: 'apply', object: pod('a') })
    await until(() => (collector.readiness().ready ? true : undefined), 'ready')
    await clock.advance(10_000)
    expect(collector.readiness()).toEqual({ ready: true, reason: 'standby' })
    expect(link.state).toBe('idle')
    expect(r.connections).toHaveLength(0)
    // The other replica stops renewing: this one takes over 15 s after it saw the last change.
    await clock.advance(5_000)
    await until(() => (leases.get(LEASE.namespace, LEASE.name)!.spec.holderIdentity === 'me' ? true : undefined), 'the Lease taken')
    await until(() => (collector.readiness().reason === 'leader' ? true : undefined), 'leading and connected')
    await clock.advance(100)
    const first = await r.connection(0)
    await first.waitFor((m) => m.some((x) => x.type === 'pod_container'), 5_000, 'the first snapshot')
    expect(first.messages.find((x) => x.type === 'pod_resync')).toMatchObject({ resyncCount: 1n })
    // Someone else writes the Lease: at this replica's next renewal the term ends and the connection closes.
    other('intruder')
    await clock.advance(2_000)
    await first.closedPromise
    await until(() => (collector.readiness().reason === 'standby' ? true : undefined), 'standby again')
    streams.pods.push({ type: 'apply', object: pod('b') })
    await until(() => (collector.core.stats().podsStored === 2 ? true : undefined), 'pod b stored while standby')
    // The intruder goes silent: the next term is a new epoch with the complete set.
    await clock.advance(15_000)
    await until(() => (collector.readiness().reason === 'leader' ? true : undefined), 'leading again')
    await clock.advance(100)
    const second = await r.connection(1)
    await second.waitFor((m) => m.filter((x) => x.type === 'pod_container').length === 2, 5_000, 'the second snapshot')
    expect(second.messages.find((x) => x.type === 'pod_resync')).toMatchObject({ resyncCount: 2n })
    expect(types(first.messages).filter((t) => t === 'pod_new_with_name')).toHaveLength(1)
  })
})
