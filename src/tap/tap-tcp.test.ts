// The tap over real TCP sockets: every closing condition, silence, input split at every byte
// boundary, many collectors at once, shutdown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeMessage, type IngestMessage } from '../ingest/index.ts'
import { logger } from '../observe/log.ts'
import { CONNECT, SESSION, TS, VERSION, collectorBytes, createCollectorStream, podNew } from '../../e2e/harness/tap-fixtures.ts'
import { rawClient, until } from '../../e2e/harness/net.ts'
import type { ConnectionSnapshot } from './snapshot.ts'
import { startTap, type Tap } from './start.ts'
import { concatBytes } from '../bytes.ts'

const SILENCE_MS = 300
let tap: Tap

beforeAll(async () => {
  logger.level = -999 // rejections are logged as warnings; the assertions below check them
  tap = await startTap({ listen: { host: '127.0.0.1', port: 0 }, silenceTimeoutMs: SILENCE_MS })
})
afterAll(() => tap.close())

/** The newest connection from this client port (ports are reused across the suite). */
const byPort = (port: number): ConnectionSnapshot | undefined => {
  const id = tap.connectionFrom(`127.0.0.1:${port}`)
  return id === undefined ? undefined : tap.connection(id)
}
const closedByPort = (port: number): ConnectionSnapshot | undefined => {
  const c = byPort(port)
  return c && !c.open ? c : undefined
}

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => concatBytes([a, b])

describe('closing conditions (docs/protocol.md §1.4)', () => {
  const unknownRpc = (() => {
    const b = encodeMessage({ type: 'heartbeat' }, TS)
    b[8] = 0xe7
    b[9] = 0x03
    return b
  })()
  const afterConnect = (bytes: Uint8Array): Uint8Array => {
    const s = createCollectorStream()
    return concat(concat(s.first(VERSION), s.send([CONNECT])), s.sendEncoded(bytes))
  }

  it.each<[string, Uint8Array, string, string[]]>([
    ['uncompressed bytes after the first message', concat(encodeMessage(VERSION, TS), encodeMessage(CONNECT, TS)), 'lz4', ['version_info']],
    ['an unknown rpc_id', afterConnect(unknownRpc), 'unknownRpc', ['version_info', 'connect']],
    ['a message needing connect before it', collectorBytes(VERSION, [{ type: 'heartbeat' }]), 'notConnected', ['version_info']],
    ['version_info below 0.9.0', collectorBytes({ type: 'version_info', major: 0, minor: 8, patch: 0 }), 'oldVersion', []],
    ['a message over 65,536 bytes', afterConnect(Uint8Array.from([...encodeMessage({ type: 'pod_delete', uid: 'a' }, TS).subarray(0, 10), 0xff, 0xff])), 'oversize', ['version_info', 'connect']],
    ['a malformed _len', afterConnect(Uint8Array.from([...encodeMessage({ type: 'pod_delete', uid: 'a' }, TS).subarray(0, 10), 1, 0])), 'malformed', ['version_info', 'connect']],
  ])('closes the connection on %s and records why', async (_, bytes, kind, accepted) => {
    const client = await rawClient(tap.tcpPort)
    await client.write(bytes)
    await client.closed // the tap closed it: the collector sees the connection end
    const conn = await until(() => closedByPort(client.localPort), 'the close')
    expect(conn.closeReason?.kind).toBe(kind)
    expect(conn.closeReason?.message.length).toBeGreaterThan(0)
    expect(Object.keys(conn.counters.byType)).toEqual(accepted)
    const last = tap.events(0, 100_000).events.filter((e) => e.conn === conn.id).at(-1)
    expect(last).toMatchObject({ type: 'connection_close', reason: { kind } })
  })

  it('closes a connection that sends nothing after the silence timeout', async () => {
    const client = await rawClient(tap.tcpPort)
    await client.closed
    const conn = await until(() => closedByPort(client.localPort), 'the close')
    expect(conn.closeReason).toEqual({ kind: 'silence', timeoutMs: SILENCE_MS, message: `no data for ${SILENCE_MS} ms` })
    expect(Date.parse(conn.closedAt!) - Date.parse(conn.openedAt)).toBeGreaterThanOrEqual(SILENCE_MS - 5)
  })

  it('keeps a connection open while heartbeats arrive, and closes it once they stop', async () => {
    const client = await rawClient(tap.tcpPort)
    const s = createCollectorStream()
    await client.write(concat(s.first(VERSION), s.send([CONNECT])))
    const stopAt = Date.now() + 3 * SILENCE_MS
    while (Date.now() < stopAt) {
      await client.write(s.send([{ type: 'heartbeat' }]))
      await new Promise((r) => setTimeout(r, SILENCE_MS / 6))
    }
    expect(byPort(client.localPort)?.open).toBe(true)
    expect(byPort(client.localPort)?.counters.byType.heartbeat).toBeGreaterThanOrEqual(6)
    await client.closed
    expect(closedByPort(client.localPort)?.closeReason?.kind).toBe('silence')
  })

  it('records a collector closing its side, including bytes left inside a message', async () => {
    const client = await rawClient(tap.tcpPort)
    await client.write(encodeMessage(VERSION, TS).subarray(0, 13))
    await until(() => (byPort(client.localPort)?.counters.bytesReceived === 13 ? true : undefined), 'the bytes')
    client.socket.end()
    const conn = await until(() => closedByPort(client.localPort), 'the close')
    expect(conn.closeReason).toMatchObject({ kind: 'peerClosed', trailingBytes: 13 })
  })
})

describe('input split at every byte boundary, many connections at once', () => {
  const bytes = collectorBytes(VERSION, SESSION)

  it('builds the same state whatever the split', async () => {
    // The reference: the whole session in one write.
    const ref = await rawClient(tap.tcpPort)
    await ref.write(bytes)
    const expected = await until(() => {
      const c = byPort(ref.localPort)
      return c && c.counters.messages === SESSION.length + 1 ? c : undefined
    }, 'the reference session')
    expect(expected.pods.map((p) => p.uid)).toEqual(['u-web'])
    ref.destroy()

    const splits = Array.from({ length: bytes.length + 1 }, (_, k) => k)
    const batch = 24
    for (let i = 0; i < splits.length; i += batch) {
      await Promise.all(
        splits.slice(i, i + batch).map(async (k) => {
          const client = await rawClient(tap.tcpPort)
          if (k > 0) {
            await client.write(bytes.subarray(0, k))
            // Make sure the tap read the first part on its own before the second goes out.
            await until(() => (byPort(client.localPort)?.counters.bytesReceived === k ? true : undefined), `part 1 of split ${k}`)
          }
          if (k < bytes.length) await client.write(bytes.subarray(k))
          const got = await until(() => {
            const c = byPort(client.localPort)
            return c && c.counters.bytesReceived === bytes.length ? c : undefined
          }, `split ${k}`)
          client.destroy()
          expect(got.open, `split ${k}`).toBe(true)
          expect(got.counters, `split ${k}`).toEqual(expected.counters)
          expect(got.pods, `split ${k}`).toEqual(expected.pods)
          expect(got.epochs, `split ${k}`).toEqual([1, 2])
        }),
      )
    }
  })

  it('keeps each connection to its own pods and drops them when it closes', async () => {
    const n = 12
    const clients = await Promise.all(Array.from({ length: n }, () => rawClient(tap.tcpPort)))
    const streams = clients.map(() => createCollectorStream())
    const podsOf = (i: number): IngestMessage[] =>
      Array.from({ length: i + 1 }, (_, j) => podNew(`c${i}-p${j}`, `ns${i}`, `pod-${j}`, 0x0a000000 + j, { kind: 254, uid: '', name: `pod-${j}` }, ''))
    // Interleave: every client's handshake, then every client's pods, in small writes.
    await Promise.all(clients.map((c, i) => c.write(concat(streams[i]!.first(VERSION), streams[i]!.send([{ type: 'connect', collectorType: 3, hostname: `host-${i}` }])))))
    for (let j = 0; j < n; j++) {
      await Promise.all(clients.map((c, i) => (j <= i ? c.write(streams[i]!.send([podsOf(i)[j]!])) : undefined)))
    }
    const conns = await until(() => {
      const cs = clients.map((c) => byPort(c.localPort))
      return cs.every((c, i) => c && c.pods.length === i + 1) ? (cs as ConnectionSnapshot[]) : undefined
    }, 'every pod')
    conns.forEach((c, i) => {
      expect(c.hostname).toBe(`host-${i}`)
      expect(new Set(c.pods.map((p) => p.ns))).toEqual(new Set([`ns${i}`]))
    })
    clients[3]!.destroy()
    const gone = await until(() => closedByPort(clients[3]!.localPort), 'the close')
    expect(gone).toMatchObject({ pods: [], podsAtClose: 4, closeReason: { kind: 'peerClosed' } })
    expect(byPort(clients[4]!.localPort)?.pods).toHaveLength(5)
    for (const c of clients) c.destroy()
  })
})

describe('shutdown', () => {
  it('closes open connections with reason shutdown and ends the live record stream', async () => {
    const own = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const client = await rawClient(own.tcpPort)
    await client.write(collectorBytes(VERSION, [CONNECT]))
    await until(() => (own.state().totals.messages === 2 ? true : undefined), 'the handshake')
    const seen: string[] = []
    const reading = (async () => {
      for await (const r of own.records()) seen.push(r.type)
    })()
    await own.close()
    await client.closed
    await reading
    expect(seen).toEqual(['connection_open', 'version_info', 'connect', 'connection_close'])
    expect(own.state().connections[0]?.closeReason?.kind).toBe('shutdown')
    await own.close() // idempotent
  })
})
