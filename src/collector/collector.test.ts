// The collector wiring over a real reducer link to a real tap, with scripted watch streams.
import { afterEach, describe, expect, it } from 'vitest'
import { createReducerLink } from '../link/index.ts'
import type { OwnerMeta, PodMeta, StreamEvent } from '../model/index.ts'
import { createRegistry } from '../observe/metrics.ts'
import { startTap, type Tap } from '../tap/index.ts'
import { createCollector, type CollectorStream } from './collector.ts'

/** A hand-fed stream: `push` events, count `relist` requests. */
function scripted<T>(): CollectorStream<T> & { push(ev: StreamEvent<T>): void; end(): void; relists: number } {
  const queue: StreamEvent<T>[] = []
  let wake: (() => void) | undefined
  let ended = false
  const s = {
    relists: 0,
    push(ev: StreamEvent<T>) {
      queue.push(ev)
      wake?.()
    },
    end() {
      ended = true
      wake?.()
    },
    relist() {
      s.relists++
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift()!
        if (ended) return
        await new Promise<void>((r) => (wake = r))
      }
    },
  }
  return s
}

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

async function until<T>(probe: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = probe()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('collector wiring', () => {
  let tap: Tap | undefined
  let abort = new AbortController()
  afterEach(async () => {
    abort.abort()
    abort = new AbortController()
    await tap?.close()
  })

  function setup(opts: { primingTimeoutSecs?: number; waitingLimit?: number } = {}) {
    const streams = { pods: scripted<PodMeta>(), replicasets: scripted<OwnerMeta>(), jobs: scripted<OwnerMeta>() }
    const registry = createRegistry()
    const collector = createCollector(
      { deleteTtlSecs: 60, deleteCapacity: 100, waitingLimit: opts.waitingLimit ?? 100, primingTimeoutSecs: opts.primingTimeoutSecs ?? 60 },
      {
        streams,
        registry,
        createLink: (cb) => createReducerLink({ host: '127.0.0.1', port: tap!.tcpPort, hostname: 'wiring', heartbeatIntervalMs: 200, ...cb }, { registry }),
      },
    )
    return { streams, registry, collector, done: collector.run(abort.signal) }
  }

  it('connects only once all three initial lists are in, then announces with epoch 1', async () => {
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const { streams, collector } = setup()
    streams.pods.push({ type: 'init' })
    streams.pods.push({ type: 'initApply', object: pod('a') })
    streams.pods.push({ type: 'initDone' })
    streams.replicasets.push({ type: 'init' })
    streams.replicasets.push({ type: 'initDone' })
    await new Promise((r) => setTimeout(r, 300))
    expect(tap.state().connections).toHaveLength(0)
    expect(collector.readiness()).toEqual({ ready: false, reason: 'initial list pending: jobs' })
    streams.jobs.push({ type: 'init' })
    streams.jobs.push({ type: 'initDone' })
    const conn = await until(() => tap!.state().connections.find((c) => c.pods.length === 1))
    expect(conn.epochs).toEqual([1])
    expect(conn.hostname).toBe('wiring')
    await until(() => (collector.readiness().ready ? true : undefined))
    streams.pods.push({ type: 'delete', object: pod('a') })
    await until(() => (tap!.state().connections[0]!.pods.length === 0 ? true : undefined))
  })

  it('connects after the priming timeout with the streams it has, the missing one unavailable', async () => {
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const { streams, collector, registry } = setup({ primingTimeoutSecs: 1 })
    streams.pods.push({ type: 'init' })
    streams.pods.push({ type: 'initApply', object: pod('a', { kind: 'ReplicaSet', uid: 'rs1', name: 'rs-1' }) })
    streams.pods.push({ type: 'initDone' })
    streams.jobs.push({ type: 'init' })
    streams.jobs.push({ type: 'initDone' })
    const conn = await until(() => tap!.state().connections.find((c) => c.pods.length === 1), 4000)
    expect(conn.pods[0]).toMatchObject({ ownerKind: 0, ownerUid: 'rs1', ownerName: 'rs-1' })
    expect(collector.core.stats().available.replicasets).toBe(false)
    expect(registry.render()).toMatch(/k8s_collector_stream_available\{stream="replicasets"\} 0/)
  })

  it('asks the owner streams to relist when the waiting limit is reached', async () => {
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const { streams } = setup({ waitingLimit: 2 })
    for (const s of [streams.pods, streams.replicasets, streams.jobs]) {
      s.push({ type: 'init' })
      s.push({ type: 'initDone' })
    }
    streams.pods.push({ type: 'apply', object: pod('w1', { kind: 'ReplicaSet', uid: 'x1', name: 'x' }) })
    streams.pods.push({ type: 'apply', object: pod('w2', { kind: 'ReplicaSet', uid: 'x2', name: 'x' }) })
    await until(() => (streams.replicasets.relists === 1 && streams.jobs.relists === 1 ? true : undefined))
  })
})
