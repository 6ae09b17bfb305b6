// The link against a real TCP reducer stand-in, on fake time: session shape, flushing, drops,
// shutdown, metrics.
import { beforeAll, describe, expect, it } from 'vitest'
import { encodeMessage, type IngestMessage, type TimedMessage } from '../ingest/index.ts'
import { logger } from '../observe/log.ts'
import { createRegistry } from '../observe/metrics.ts'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { types } from '../../e2e/harness/fake-reducer.ts'
import { fakeReducer as reducer, runLink as running } from '../../e2e/harness/link-fixtures.ts'
import { createReducerLink } from './link.ts'

beforeAll(() => {
  logger.level = 0
})

const pod = (uid: string): IngestMessage => ({
  type: 'pod_new_with_name',
  uid,
  ip: 0x0a000001,
  ownerName: 'dep',
  podName: `pod-${uid}`,
  ownerKind: 1,
  ownerUid: 'd1',
  isHostNetwork: false,
  ns: 'default',
  version: "'img:1'",
})

const strip = (m: TimedMessage): IngestMessage => {
  const { timestamp: _t, ...rest } = m
  return rest as IngestMessage
}

describe('reducer link: session shape (docs/protocol.md §6)', () => {
  it('sends version_info raw, then the LZ4 handshake, then what the owner sends on the connected session', async () => {
    const r = await reducer()
    const sessions: number[] = []
    const before = BigInt(Date.now()) * 1_000_000n
    const clock = createFakeClock(Date.now())
    const link = running(
      {
      host: '127.0.0.1',
      port: r.port,
      hostname: 'kc-host',
      labels: [
        ['env', 'prod'],
        ['team', 'net'],
      ],
      cpuCores: 8,
      version: { major: 0, minor: 11, patch: 0 },
      heartbeatIntervalMs: 60_000,
      },
      (ev) => {
        if (ev.type !== 'connected') return
        sessions.push(ev.connection)
        ev.session.send([{ type: 'pod_resync', resyncCount: 1n }, pod('abc')])
      },
      { clock },
    )
    await link.event(0)
    await clock.advance(100)
    const c = await r.connection(0)
    await c.waitFor((m) => m.length >= 10, 5_000, 'handshake + resync + pod')
    // version_info exactly as docs/protocol.md §5's vector, bar the timestamp; the LZ4 frame header follows.
    expect([...c.versionInfoBytes!.subarray(8)]).toEqual([0x36, 0x01, 0, 0, 0, 0, 0, 0, 0x0b, 0, 0, 0, 0, 0, 0, 0])
    const all = Buffer.concat(c.raw)
    expect([...all.subarray(24, 31)]).toEqual([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82])
    expect(c.messages.map(strip)).toEqual([
      { type: 'version_info', major: 0, minor: 11, patch: 0 },
      { type: 'connect', collectorType: 3, hostname: 'kc-host' },
      { type: 'report_cpu_cores', cpuCoreCount: 8 },
      { type: 'set_config_label', key: 'env', value: 'prod' },
      { type: 'set_config_label', key: 'team', value: 'net' },
      { type: 'cloud_platform', cloudPlatform: 0 },
      { type: 'set_node_info', az: '', role: '', instanceId: 'kc-host', instanceType: '' },
      { type: 'metadata_complete', time: 0n },
      { type: 'pod_resync', resyncCount: 1n },
      pod('abc'),
    ])
    const after = BigInt(Date.now()) * 1_000_000n
    for (const m of c.messages) {
      expect(m.timestamp).toBeGreaterThanOrEqual(before)
      expect(m.timestamp).toBeLessThanOrEqual(after)
    }
    expect(sessions).toEqual([1])
    expect(link.state).toBe('connected')
    const s = link.stats()
    expect(s).toMatchObject({ connects: 1, reconnects: 0, messagesSent: 10, droppedWhileDisconnected: 0 })
    expect(s.wireBytesSent).toBe(c.received)
    // The raw bytes are exactly the encoded messages (version_info included).
    const rawTotal = c.messages.reduce((n, m) => n + encodeMessage(strip(m), 0n).length, 0)
    expect(s.rawBytesSent).toBe(rawTotal)
  })

  it('sends heartbeat + collector_health(0, 0) every heartbeat interval', async () => {
    const r = await reducer()
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: 30 })
    await link.event(0)
    await link.clock.advance(90)
    const c = await r.connection(0)
    await c.waitFor((m) => m.filter((x) => x.type === 'heartbeat').length >= 3, 5_000, 'three heartbeats')
    const after = types(c.messages).slice(6)
    expect(after.slice(0, 6)).toEqual(['heartbeat', 'collector_health', 'heartbeat', 'collector_health', 'heartbeat', 'collector_health'])
    expect(c.messages.find((m) => m.type === 'collector_health')).toMatchObject({ status: 0, detail: 0 })
  })
})

describe('reducer link: flushing (docs/behaviour.md §7)', () => {
  it('holds messages until the flush delay, batching sends made meanwhile into one flush', async () => {
    const r = await reducer()
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: 60_000, flushDelayMs: 80 })
    await link.event(0)
    const c = await r.connection(0)
    await c.waitFor((m) => m.length === 6, 5_000, 'handshake')
    const flushes = link.stats().flushes
    link.send([pod('a')])
    await link.clock.advance(40)
    link.send([pod('b'), pod('c')])
    expect(link.stats().flushes).toBe(flushes)
    // Not a moment before the flush delay since the first unflushed message.
    await link.clock.advance(39)
    expect(link.stats().flushes).toBe(flushes)
    await link.clock.advance(1)
    await c.waitFor((m) => m.length === 9, 5_000, 'three pods')
    expect(link.stats().flushes).toBe(flushes + 1)
    expect(c.messages.slice(6).map((m) => (m as { uid?: string }).uid)).toEqual(['a', 'b', 'c'])
  })

  it('flushes at once when ~60 KiB are pending', async () => {
    const r = await reducer()
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: 60_000, flushDelayMs: 60_000 })
    await link.event(0)
    const flushes = link.stats().flushes
    const one = (i: number): IngestMessage => ({ ...pod(`uid-${i}`), version: `'${'v'.repeat(1_000)}'` }) as IngestMessage
    const size = encodeMessage(one(100), 0n).length
    const perFlush = Math.ceil((60 * 1024) / size)
    const batch = Array.from({ length: perFlush * 2 + 5 }, (_, i) => one(100 + i))
    link.send(batch)
    // Flushed synchronously each time ~60 KiB were pending; the remainder waits for the (long) delay.
    expect(link.stats().flushes).toBe(flushes + 2)
    const c = await r.connection(0)
    await c.waitFor((m) => m.length === 6 + perFlush * 2, 5_000, 'the first 120 KiB')
    link.flush()
    await c.waitFor((m) => m.length === 6 + batch.length, 5_000, 'all pods')
    expect(c.messages.slice(6).map((m) => (m as { uid?: string }).uid)).toEqual(batch.map((m) => (m as { uid: string }).uid))
  })

  it('flushes pending messages with every heartbeat', async () => {
    const r = await reducer()
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: 60, flushDelayMs: 60_000 })
    await link.event(0)
    link.send([pod('x')])
    await link.clock.advance(60)
    const c = await r.connection(0)
    await c.waitFor((m) => m.some((x) => x.type === 'pod_new_with_name'), 5_000, 'the pod')
    const i = c.messages.findIndex((x) => x.type === 'pod_new_with_name')
    expect(types(c.messages.slice(i, i + 3))).toEqual(['pod_new_with_name', 'heartbeat', 'collector_health'])
  })

  it('shortens oversize fields instead of failing, and counts them', async () => {
    const r = await reducer()
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: 60_000, flushDelayMs: 10 })
    await link.event(0)
    const huge = { ...pod('big'), version: "'".padEnd(70_000, 'é') } as IngestMessage
    link.send([huge, pod('after')])
    await link.clock.advance(10)
    const c = await r.connection(0)
    await c.waitFor((m) => m.length === 8, 5_000, 'both pods')
    const got = c.messages[6] as TimedMessage & { version: string }
    expect(encodeMessage(strip(got), 0n).length).toBeLessThanOrEqual(65_536)
    expect(got.version.length).toBeGreaterThan(30_000)
    expect((huge as { version: string }).version.startsWith(got.version)).toBe(true)
    expect(link.stats().shortenedMessages).toBe(1)
  })
})

describe('reducer link: disconnected and shutdown', () => {
  it('drops messages sent while disconnected instead of queueing them', async () => {
    const link = createReducerLink({ host: '127.0.0.1', port: 1, hostname: 'h' })
    expect(link.send([pod('a'), pod('b')])).toBe(false)
    expect(link.stats()).toMatchObject({ state: 'idle', droppedWhileDisconnected: 2, messagesSent: 0 })
  })

  it('on abort flushes what is pending, ends the LZ4 frame, closes the socket and resolves run()', async () => {
    const r = await reducer()
    const ends: string[] = []
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: 60_000, flushDelayMs: 60_000 }, (ev) => {
      if (ev.type === 'disconnected') ends.push(ev.reason.cause)
    })
    await link.event(0)
    link.send([pod('last')])
    await link.stop()
    expect(link.state).toBe('stopped')
    expect(ends).toEqual(['shutdown'])
    const c = await r.connection(0)
    await c.closedPromise
    expect(c.error).toBeUndefined()
    expect(types(c.messages).at(-1)).toBe('pod_new_with_name')
    const all = Buffer.concat(c.raw)
    expect([...all.subarray(all.length - 4)]).toEqual([0, 0, 0, 0]) // EndMark
    expect(link.send([pod('late')])).toBe(false)
    expect(link.stats().disconnects.shutdown).toBe(1)
  })

  it('runs again once a run ended (one run per leadership term); leaving the iteration closes the session', async () => {
    const r = await reducer()
    const link = createReducerLink({ host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: 60_000 }, { clock: createFakeClock() })
    const seen: string[] = []
    const first = new AbortController()
    for await (const ev of link.run(first.signal)) {
      seen.push(ev.type === 'connected' ? `connected ${ev.connection}` : ev.type === 'disconnected' ? `disconnected ${ev.reason.cause}` : ev.type)
      first.abort()
    }
    expect(link.state).toBe('stopped')
    for await (const ev of link.run(new AbortController().signal)) {
      seen.push(`${ev.type} ${ev.type === 'connected' ? ev.connection : ''}`)
      break
    }
    expect(link.state).toBe('stopped')
    expect(seen).toEqual(['connected 1', 'disconnected shutdown', 'connected 2'])
    for (const i of [0, 1]) {
      const c = await r.connection(i)
      await c.closedPromise
      expect(types(c.messages).slice(0, 2)).toEqual(['version_info', 'connect'])
      expect([...Buffer.concat(c.raw).subarray(-4)]).toEqual([0, 0, 0, 0]) // EndMark: closed cleanly
    }
    expect(link.stats()).toMatchObject({ connects: 2, reconnects: 1 })
    expect(link.stats().disconnects.shutdown).toBe(2)
  })

  it('exposes its counters and the event-to-wire latency as Prometheus metrics', async () => {
    const r = await reducer()
    const registry = createRegistry()
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: 60_000, flushDelayMs: 5 }, undefined, { registry })
    await link.event(0)
    link.send([pod('a'), pod('b')], link.clock.now() - 250)
    await link.clock.advance(5)
    const c = await r.connection(0)
    await c.waitFor((m) => m.length === 8, 5_000, 'pods')
    const text = registry.render()
    expect(text).toContain('\nk8s_collector_link_up 1\n')
    expect(text).toContain('\nk8s_collector_link_connects_total 1\n')
    expect(text).toContain('\nk8s_collector_link_messages_sent_total 8\n')
    expect(text).toContain('k8s_collector_link_connect_errors_total{cause="dns"} 0\n')
    // One send observed, at least 250 ms before its flush.
    expect(text).toContain('k8s_collector_link_event_to_wire_seconds_bucket{le="0.1"} 0\n')
    expect(text).toContain('\nk8s_collector_link_event_to_wire_seconds_count 1\n')
  })
})
