// The link against a reducer that stops reading, on fake time: dropped by the byte limit or as
// silent (the real kernel's view of the socket), then reconnected.
import { beforeAll, describe, expect, it } from 'vitest'
import type { IngestMessage } from '../ingest/index.ts'
import { logger } from '../observe/log.ts'
import type { DisconnectReason, LinkSession } from './events.ts'
import { types } from '../../e2e/harness/fake-reducer.ts'
import { fakeReducer, noisyContainer, runLink } from '../../e2e/harness/link-fixtures.ts'
import { waitFor } from '../../e2e/harness/wait.ts'

beforeAll(() => {
  logger.level = -999
})

const timings = { heartbeatIntervalMs: 25, flushDelayMs: 5, backoffInitialMs: 10, backoffMaxMs: 20 }

/** A link to `port` with fast timings; records how its sessions ended; stopped after the test. */
function startLink(port: number, opts: { peerSilentMs: number; maxBufferedBytes: number; onSession: (session: LinkSession) => void }) {
  const ended: DisconnectReason[] = []
  const { peerSilentMs, maxBufferedBytes } = opts
  const link = runLink({ host: '127.0.0.1', port, hostname: 'h', ...timings, peerSilentMs, maxBufferedBytes }, (ev) => {
    if (ev.type === 'connected') opts.onSession(ev.session)
    else if (ev.type === 'disconnected') ended.push(ev.reason)
  })
  return { link, ended }
}

/** Runs a link against a reducer that never reads its first connection; returns how that session ended. */
async function stuckFirstConnection(limits: { peerSilentMs: number; maxBufferedBytes: number }) {
  const r = await fakeReducer({ reads: (i) => i > 0 })
  let sessions = 0
  const { link, ended } = startLink(r.port, {
    ...limits,
    onSession(session) {
      sessions++
      // Far more than the kernel buffers of a loopback connection whose reader is stuck.
      if (sessions === 1) for (let i = 0; i < 600; i++) session.send([noisyContainer(i)])
      else session.send([{ type: 'pod_resync', resyncCount: BigInt(sessions) }])
    },
  })
  await link.event(0)
  // Heartbeat by heartbeat until the stuck session is dropped (no real I/O is awaited meanwhile).
  for (let ms = 0; link.events.length < 2 && ms < 600_000; ms += timings.heartbeatIntervalMs) await link.clock.advance(timings.heartbeatIntervalMs)
  await link.event(1)
  await link.clock.advance(timings.backoffMaxMs)
  await link.event(2)
  await link.clock.advance(timings.flushDelayMs)
  const second = await r.connection(1, 10_000)
  await second.waitFor((m) => m.some((x) => x.type === 'pod_resync'), 5_000, 'the second session')
  expect(types(second.messages).slice(0, 2)).toEqual(['version_info', 'connect'])
  return { ended, link }
}

describe('reducer link: stuck reducer (docs/behaviour.md §7)', () => {
  it('drops the connection when too many bytes wait to be written, then reconnects', async () => {
    const { ended, link } = await stuckFirstConnection({ peerSilentMs: 60_000, maxBufferedBytes: 256 * 1024 })
    expect(ended[0]).toMatchObject({ cause: 'buffer_overflow' })
    expect(ended[0]!.error?.name).toBe('BackpressureError')
    expect(link.stats().disconnects.buffer_overflow).toBe(1)
    expect(link.stats().connects).toBe(2)
    // Nothing of the first session is replayed: the new session starts from its handshake.
    expect(link.stats().bufferedBytes).toBeLessThan(256 * 1024)
  })

  it('drops the connection when the reducer has acknowledged nothing for peerSilentMs', async () => {
    const { ended, link } = await stuckFirstConnection({ peerSilentMs: 150, maxBufferedBytes: 1024 ** 3 })
    expect(ended[0]).toMatchObject({ cause: 'peer_silent' })
    expect(ended[0]!.error).toMatchObject({ name: 'PeerSilentError', source: 'kernel' })
    expect(link.stats().disconnects.peer_silent).toBe(1)
  })
})

describe('reducer link: a resync larger than the byte limit (docs/behaviour.md §6, §7)', () => {
  it('is encoded as the reducer reads: no overflow, no reconnect, everything in order', async () => {
    const r = await fakeReducer({ reads: () => false })
    // ~6 MB that LZ4 cannot shrink: far above the limit and the loopback kernel buffers.
    const burst: IngestMessage[] = [{ type: 'pod_resync', resyncCount: 1n }]
    for (let i = 0; i < 400; i++) burst.push(noisyContainer(i))
    const { link, ended } = startLink(r.port, { peerSilentMs: 60_000, maxBufferedBytes: 256 * 1024, onSession: (s) => void s.send(burst) })
    await link.event(0)
    const conn = await r.connection(0, 10_000)
    // The reducer does not read for 20 heartbeats: the old behaviour (the whole burst in the
    // socket) ended the session here with buffer_overflow.
    for (let i = 0; i < 20; i++) await link.clock.advance(timings.heartbeatIntervalMs)
    expect(ended).toEqual([])
    // Most of the burst still waits as messages, not as bytes in the socket.
    expect(link.stats().bufferedBytes).toBeGreaterThan(1_000_000)
    conn.socket.resume()
    // Encoded as the reducer reads ('drain'), on real time; the last block goes at the flush delay.
    await waitFor('the burst encoded and written', () => (link.stats().bufferedBytes === 0 ? true : undefined), { timeoutMs: 20_000 })
    await link.clock.advance(timings.flushDelayMs)
    await conn.waitFor((m) => m.filter((x) => x.type === 'pod_container').length === 400, 20_000, 'the whole resync')
    const containers = conn.messages.filter((x) => x.type === 'pod_container').map((x) => (x as unknown as { uid: string }).uid)
    expect(containers).toEqual(burst.slice(1).map((m) => (m as { uid: string }).uid))
    expect(ended).toEqual([])
    expect(link.stats().connects).toBe(1)
  })
})
