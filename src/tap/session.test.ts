// The acceptance state machine on its own: docs/protocol.md §1.2–§1.4 rule by rule, input split anywhere.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { createLz4FrameWriter, createMessageWriter, encodeMessage, type IngestMessage } from '../ingest/index.ts'
import { CONNECT, HANDSHAKE, SESSION, TS, VERSION, collectorBytes, container, createCollectorStream, podNew } from '../../e2e/harness/tap-fixtures.ts'
import { createTapSession, type ReceivedMessage, type TapSession } from './session.ts'
import type { CloseReason } from './close-reason.ts'
import { concatBytes } from '../bytes.ts'

function feed(session: TapSession, chunks: Iterable<Uint8Array>): { messages: ReceivedMessage[]; close?: CloseReason } {
  const messages: ReceivedMessage[] = []
  let close: CloseReason | undefined
  for (const chunk of chunks) {
    const out = session.push(chunk)
    messages.push(...out.messages)
    if (out.close) close ??= out.close
  }
  return close ? { messages, close } : { messages }
}

const types = (ms: readonly ReceivedMessage[]): string[] => ms.map((m) => m.msg.type)
const concat = (...parts: Uint8Array[]): Uint8Array => concatBytes(parts)
/** LZ4-frames already encoded message bytes (for hand-made, invalid messages). */
const lz4 = (raw: Uint8Array): Uint8Array => createLz4FrameWriter().write(raw)
const encodeAll = (messages: readonly IngestMessage[]): Uint8Array => {
  const w = createMessageWriter()
  for (const m of messages) w.write(m, TS)
  return w.take()
}

describe('a well-formed session', () => {
  const bytes = collectorBytes(VERSION, SESSION)
  const expected = [VERSION, ...SESSION].map((m, i) => ({ ...m, timestamp: TS + BigInt(i) }))

  it('accepts every message in order, with its timestamp and size', () => {
    const s = createTapSession()
    const out = feed(s, [bytes])
    expect(out.close).toBeUndefined()
    expect(out.messages.map((m) => m.msg)).toEqual(expected)
    const sizes = out.messages.map((m) => m.size)
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(encodeMessage(VERSION, TS).length + encodeAll(SESSION).length)
    expect(s.state.step).toBe('connected')
    expect(s.compressedBytes).toBe(bytes.length - 24)
  })

  it('gives the same messages however the input is split in two', () => {
    for (let k = 0; k <= bytes.length; k++) {
      const out = feed(createTapSession(), [bytes.subarray(0, k), bytes.subarray(k)])
      expect(out.close, `split at ${k}`).toBeUndefined()
      expect(out.messages.map((m) => m.msg), `split at ${k}`).toEqual(expected)
    }
  })

  it('gives the same messages fed one byte at a time', () => {
    const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))
    const out = feed(createTapSession(), chunks)
    expect(out.close).toBeUndefined()
    expect(out.messages.map((m) => m.msg)).toEqual(expected)
  })

  it('accepts concatenated frames (one complete frame per flush)', () => {
    const c = createCollectorStream()
    const chunks = [c.first(VERSION), c.send(HANDSHAKE), c.endFrame(), c.send([{ type: 'heartbeat' }]), c.endFrame(), c.endFrame()]
    const out = feed(createTapSession(), chunks)
    expect(out.close).toBeUndefined()
    expect(types(out.messages)).toEqual(['version_info', ...HANDSHAKE.map((m) => m.type), 'heartbeat'])
  })

  it('accepts connect as the raw first message (the reducer only needs connect before the rest)', () => {
    const out = feed(createTapSession(), [collectorBytes(CONNECT, [{ type: 'heartbeat' }])])
    expect(out.close).toBeUndefined()
    expect(types(out.messages)).toEqual(['connect', 'heartbeat'])
  })

  it('waits for more bytes without closing while a message is incomplete', () => {
    const s = createTapSession()
    const first = encodeMessage(VERSION, TS)
    expect(feed(s, [first.subarray(0, 9)])).toEqual({ messages: [] })
    expect(s.state).toMatchObject({ step: 'awaitFirst' })
    expect(s.end()).toEqual({ kind: 'peerClosed', trailingBytes: 9 })
  })
})

describe('closing rules (docs/protocol.md §1.4)', () => {
  const unknownRpc = (rpc: number): Uint8Array => {
    const b = encodeMessage({ type: 'heartbeat' }, TS)
    b[8] = rpc & 0xff
    b[9] = rpc >> 8
    return b
  }
  // pod_delete with `_len` 2: shorter than its 4-byte header.
  const shortLen = (): Uint8Array => {
    const b = encodeMessage({ type: 'pod_delete', uid: 'abc' }, TS)
    b[10] = 2
    b[11] = 0
    return b
  }
  // pod_delete claiming `_len` 65,535: 65,543 bytes with its timestamp, past the reducer's 64 KiB buffer.
  const oversize = (): Uint8Array => {
    const b = encodeMessage({ type: 'pod_delete', uid: 'x'.repeat(65_000) }, TS)
    const big = new Uint8Array(8 + 65_535)
    big.set(b.subarray(0, 12))
    big[10] = 0xff
    big[11] = 0xff
    return big
  }
  const head = encodeMessage(VERSION, TS)

  it.each<[string, () => Uint8Array, CloseReason, string[]]>([
    ['uncompressed bytes after the first message', () => concat(head, encodeMessage(CONNECT, TS)), { kind: 'lz4', detail: expect.stringContaining('not an LZ4 frame') as unknown as string }, ['version_info']],
    [
      'a corrupt LZ4 frame header',
      () => {
        const framed = lz4(encodeAll([CONNECT]))
        framed[6] ^= 0xff // header checksum byte
        return concat(head, framed)
      },
      { kind: 'lz4', detail: expect.stringContaining('checksum') as unknown as string },
      ['version_info'],
    ],
    ['an unknown rpc_id in the LZ4 stream', () => concat(head, lz4(concat(encodeAll([CONNECT]), unknownRpc(999)))), { kind: 'unknownRpc', rpcId: 999 }, ['version_info', 'connect']],
    ['an unknown rpc_id as the raw first message', () => unknownRpc(0x1234), { kind: 'unknownRpc', rpcId: 0x1234 }, []],
    ['a pod message before connect', () => collectorBytes(VERSION, [{ type: 'pod_resync', resyncCount: 1n }, CONNECT]), { kind: 'notConnected', messageType: 'pod_resync' }, ['version_info']],
    ['an agent message before connect', () => collectorBytes(VERSION, [{ type: 'report_cpu_cores', cpuCoreCount: 1 }]), { kind: 'notConnected', messageType: 'report_cpu_cores' }, ['version_info']],
    ['a pod message as the raw first message', () => encodeMessage({ type: 'pod_delete', uid: 'a' }, TS), { kind: 'notConnected', messageType: 'pod_delete' }, []],
    ['version_info 0.8.99', () => collectorBytes({ type: 'version_info', major: 0, minor: 8, patch: 99 }, [CONNECT]), { kind: 'oldVersion', version: '0.8.99' }, []],
    ['a late version_info below 0.9.0', () => collectorBytes(VERSION, [CONNECT, { type: 'version_info', major: 0, minor: 0, patch: 1 }, { type: 'heartbeat' }]), { kind: 'oldVersion', version: '0.0.1' }, ['version_info', 'connect']],
    ['a _len shorter than the header', () => concat(head, lz4(concat(encodeAll([CONNECT]), shortLen()))), { kind: 'malformed', detail: expect.stringContaining('_len') as unknown as string }, ['version_info', 'connect']],
    ['a message larger than 65,536 bytes', () => concat(head, lz4(concat(encodeAll([CONNECT]), oversize().subarray(0, 20)))), { kind: 'oversize', size: 65_543 }, ['version_info', 'connect']],
  ])('closes on %s, after accepting what came before', (_, make, reason, before) => {
    const bytes = make()
    for (const chunks of [[bytes], Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))]) {
      const s = createTapSession()
      const out = feed(s, chunks)
      expect(out.close).toEqual(reason)
      expect(types(out.messages)).toEqual(before)
      expect(s.state).toEqual({ step: 'closed', reason: out.close })
    }
  })

  it.each([
    [0, 9, 0],
    [0, 10, 0],
    [0, 11, 0],
    [1, 0, 0],
    [0, 9, 7],
  ])('accepts version %i.%i.%i (compared as numbers)', (major, minor, patch) => {
    const out = feed(createTapSession(), [collectorBytes({ type: 'version_info', major, minor, patch }, [CONNECT])])
    expect(out.close).toBeUndefined()
    expect(types(out.messages)).toEqual(['version_info', 'connect'])
  })

  it('ignores everything after closing, and end() keeps the first reason', () => {
    const s = createTapSession()
    const out = s.push(concat(head, encodeMessage(CONNECT, TS)))
    expect(out.close?.kind).toBe('lz4')
    expect(s.push(lz4(encodeAll([CONNECT])))).toEqual({ messages: [] })
    expect(s.end()).toEqual(out.close)
  })

  it('reports the bytes of an unfinished message when the peer ends inside it', () => {
    const s = createTapSession()
    const c = createCollectorStream()
    expect(s.push(c.first(VERSION)).close).toBeUndefined()
    expect(types(s.push(c.send([CONNECT])).messages)).toEqual(['connect'])
    const delete1 = encodeAll([{ type: 'pod_delete', uid: 'abcdef' }])
    expect(s.push(c.sendEncoded(delete1.subarray(0, 10)))).toEqual({ messages: [] })
    expect(s.end()).toEqual({ kind: 'peerClosed', trailingBytes: 10 })
  })
})

// An independent encoder: Debian's lz4 (liblz4) compresses the stream after the raw first message.
const hasLz4 = spawnSync('lz4', ['--version']).status === 0

describe.skipIf(!hasLz4)('streams compressed by liblz4 (the lz4 command)', () => {
  const pods: IngestMessage[] = [CONNECT, { type: 'pod_resync', resyncCount: 1n }]
  for (let i = 0; i < 1500; i++) {
    pods.push(podNew(`uid-${i}`, 'default', `web-7d9f-${i}`, 0x0a000000 + i, { kind: 1, uid: 'd-web', name: 'web' }, "'nginx:1.25'"))
    pods.push(container(`uid-${i}`, `containerd://${i.toString(16).padStart(64, '0')}`, 'nginx', 'nginx:1.25'))
  }
  const body = encodeAll(pods)

  it.each([
    ['independent 64 KiB blocks, no checksums', ['-B4', '--no-frame-crc']],
    ['linked 64 KiB blocks, content checksum', ['-B4', '-BD']],
    ['the defaults (larger blocks, content checksum)', []],
  ])('accepts %s', (_, flags) => {
    expect(body.length).toBeGreaterThan(3 * 65_536)
    const run = spawnSync('lz4', [...flags, '-c', '-q'], { input: body, maxBuffer: 64 << 20 })
    expect(run.status).toBe(0)
    const bytes = concat(encodeMessage(VERSION, TS), new Uint8Array(run.stdout))
    for (const chunkSize of [bytes.length, 1000, 7]) {
      const chunks: Uint8Array[] = []
      for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize))
      const out = feed(createTapSession(), chunks)
      expect(out.close).toBeUndefined()
      expect(out.messages.map((m) => m.msg)).toEqual([VERSION, ...pods].map((m) => ({ ...m, timestamp: TS })))
    }
  })
})
