// The outbox over a real socket to the fake reducer, on fake time: bytes handed, flush delay, one
// block per flush and the byte limit (docs/behaviour.md §7, README "Decisions where the spec is silent").
import { connect, type Socket } from 'node:net'
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { concatBytes } from '../bytes.ts'
import type { DeferredMessages, IngestMessage, PodMessage } from '../ingest/index.ts'
import { logger } from '../observe/log.ts'
import { createRegistry } from '../observe/metrics.ts'
import { createRateLimitedLog } from '../observe/rate-limit.ts'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { types } from '../../e2e/harness/fake-reducer.ts'
import { fakeReducer, noisyContainer } from '../../e2e/harness/link-fixtures.ts'
import { BackpressureError } from './errors.ts'
import { createOutbox, type Outbox, type OutboxOptions } from './outbox.ts'
import { createCounters, type LinkCounters } from './stats.ts'

beforeAll(() => {
  logger.level = -999
})

const defaults: OutboxOptions = { flushDelayMs: 100, flushBytes: 60 * 1024, maxBufferedBytes: 16 * 1024 * 1024 }

async function socketTo(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, noDelay: true })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  onTestFinished(() => void socket.destroy())
  return socket
}

/** An outbox on a fresh connection to `port`, with what it reports. */
async function outboxTo(port: number, options: Partial<OutboxOptions> = {}): Promise<{ outbox: Outbox; clock: FakeClock; counters: LinkCounters; writes: Uint8Array[] }> {
  const clock = createFakeClock(0)
  const socket = await socketTo(port)
  // Every chunk handed to the socket, as written (one per flush).
  const writes: Uint8Array[] = []
  const write = socket.write.bind(socket) as (chunk: Uint8Array) => boolean
  socket.write = ((chunk: Uint8Array) => {
    writes.push(chunk.slice())
    return write(chunk)
  }) as Socket['write']
  const latency = createRegistry().histogram({ name: 'latency_seconds', help: 'test', buckets: [1] })
  const deps = { clock, counters: createCounters(), latency, log: createRateLimitedLog(logger) }
  const outbox = createOutbox(socket, { ...defaults, ...options }, deps)
  onTestFinished(() => outbox.close())
  return { outbox, clock, counters: deps.counters, writes }
}

/** The LZ4 blocks of a flush's bytes (the frame header skipped), as their raw sizes. */
function blockSizes(flush: Uint8Array, first: boolean): number[] {
  const view = new DataView(flush.buffer, flush.byteOffset, flush.byteLength)
  const sizes: number[] = []
  for (let at = first ? 7 : 0; at < flush.length; ) {
    const size = view.getUint32(at, true) & 0x7fffffff
    sizes.push(size)
    at += 4 + size
  }
  return sizes
}

/** A pod_container of about `bytes` bytes, ASCII or (`wide`) 3-byte UTF-8 characters. */
function container(i: number, bytes: number, wide = false): IngestMessage {
  const image = wide ? '\u20ac'.repeat(Math.floor(bytes / 3)) : 'x'.repeat(bytes)
  return { type: 'pod_container', uid: `u${i}`, containerId: `containerd://${i}`, containerName: 'c', containerImage: image }
}

/** More than the kernel buffers of a loopback connection whose reader is stuck can hold. */
const burst = (first?: IngestMessage): IngestMessage[] => [...(first ? [first] : []), ...Array.from({ length: 600 }, (_, i) => noisyContainer(i))]

describe('outbox', () => {
  it('hands version_info, LZ4 blocks at the flush delay and the EndMark to the socket, and counts every byte', async () => {
    const r = await fakeReducer()
    const { outbox, clock, counters } = await outboxTo(r.port)
    outbox.writeRaw({ type: 'version_info', major: 0, minor: 11, patch: 0 })
    outbox.send([{ type: 'heartbeat' }])
    await clock.advance(60)
    outbox.send([{ type: 'collector_health', status: 0, detail: 0 }])
    await clock.advance(39)
    expect(counters.flushes).toBe(0)
    await clock.advance(1)
    expect(counters.flushes).toBe(1)
    const c = await r.connection(0)
    await c.waitFor((m) => m.length === 3, 5_000, 'both messages')
    outbox.end()
    expect(outbox.send([{ type: 'heartbeat' }])).toBe(false)
    await c.waitFor(() => c.received === outbox.handedBytes, 5_000, 'every byte handed')
    expect(types(c.messages)).toEqual(['version_info', 'heartbeat', 'collector_health'])
    expect([...concatBytes(c.raw).subarray(-4)]).toEqual([0, 0, 0, 0])
  })

  it('writes each flush as exactly one LZ4 block of at most 64 KiB (docs/protocol.md §1.6)', async () => {
    const r = await fakeReducer()
    const { outbox, clock, writes } = await outboxTo(r.port)
    // Three ~20 KB messages leave ~60 KiB pending, under the flush threshold; the fourth would
    // take the block past 65,536 bytes, so the three go first. Then sizes around the boundary.
    const sent = [...[0, 1, 2, 3].map((i) => noisyContainer(i))]
    for (let i = 0; i < 60; i++) sent.push(container(100 + i, [1_000, 7_000, 20_000, 40_000, 65_400][i % 5]!, i % 3 === 0))
    outbox.writeRaw({ type: 'version_info', major: 0, minor: 11, patch: 0 })
    outbox.send(sent)
    await clock.advance(100)
    const c = await r.connection(0)
    await c.waitFor((m) => m.length === 1 + sent.length, 10_000, 'every message')
    expect(c.messages.slice(1).map((m) => (m as unknown as { uid: string }).uid)).toEqual(sent.map((m) => (m as { uid: string }).uid))
    const flushes = writes.slice(1)
    expect(flushes.length).toBeGreaterThan(20)
    flushes.forEach((flush, i) => {
      const sizes = blockSizes(flush, i === 0)
      expect(sizes, `flush ${i}`).toHaveLength(1)
      expect(sizes[0]).toBeLessThanOrEqual(65_536)
    })
  })

  it('counts queued batches against the byte limit, but not a queued resync', async () => {
    const r = await fakeReducer({ reads: () => false })
    const limits = { maxBufferedBytes: 256 * 1024 }
    const batches = await outboxTo(r.port, limits)
    batches.outbox.send(burst())
    expect(batches.outbox.overflow()).toBeInstanceOf(BackpressureError)
    const resync = await outboxTo(r.port, limits)
    resync.outbox.send(burst({ type: 'pod_resync', resyncCount: 1n }))
    expect(resync.outbox.overflow()).toBeUndefined()
    // Still waiting, as messages rather than bytes in the socket.
    expect(resync.outbox.bufferedBytes).toBeGreaterThan(1_000_000)
  })

  it('expands deferred messages in order, only as the reducer reads, and estimates them while they wait', async () => {
    const r = await fakeReducer({ reads: () => false })
    const { outbox, clock } = await outboxTo(r.port)
    let expanded = 0
    // 300 items of two messages each, each as large as noisyContainer's: far more than the socket takes.
    const deferred: DeferredMessages = {
      type: 'deferred',
      count: 300,
      expand(i, emit) {
        expanded++
        emit(noisyContainer(2 * i) as PodMessage)
        emit(noisyContainer(2 * i + 1) as PodMessage)
      },
    }
    outbox.writeRaw({ type: 'version_info', major: 0, minor: 11, patch: 0 })
    outbox.send([{ type: 'pod_resync', resyncCount: 1n }, deferred, { type: 'pod_delete', uid: 'last' }])
    const encodedAtSend = expanded
    expect(encodedAtSend).toBeGreaterThan(0)
    expect(encodedAtSend).toBeLessThan(300)
    expect(outbox.overflow()).toBeUndefined()
    // The items not encoded yet are counted (expanded again to be measured).
    expect(outbox.queuedBytes).toBeGreaterThan(1_000_000)
    expect(expanded).toBe(300)
    const c = await r.connection(0)
    c.socket.resume()
    for (let i = 0; i < 500 && c.messages.length < 603; i++) {
      await clock.advance(100)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(c.messages.map((m) => (m.type === 'pod_container' ? m.uid : m.type))).toEqual(['version_info', 'pod_resync', ...Array.from({ length: 600 }, (_, i) => `u${i}`), 'pod_delete'])
    expect(expanded).toBe(600 - encodedAtSend)
  })
})
