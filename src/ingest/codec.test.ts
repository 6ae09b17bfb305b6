import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { concatBytes } from '../bytes.ts'
import { createGenericMessageWriter } from './encode.ts'
import {
  createMessageDecoder,
  createMessageWriter,
  encodeMessage,
  fitMessage,
  IngestDecodeError,
  IngestEncodeError,
  MAX_MESSAGE_BYTES,
  messageSize,
  truncateUtf8,
  type IngestMessage,
  type PodNewWithName,
} from './index.ts'

const TS = 1700000000123456789n
const pod = (over: Partial<PodNewWithName> = {}): PodNewWithName => ({
  type: 'pod_new_with_name',
  uid: 'u-1',
  ip: 0x0a000001,
  ownerName: 'web',
  podName: 'web-1',
  ownerKind: 1,
  ownerUid: 'd-1',
  isHostNetwork: false,
  ns: 'default',
  version: "'nginx'",
  ...over,
})
const utf8Len = (s: string) => new TextEncoder().encode(s).length

const anyString = fc.string({ unit: 'binary', maxLength: 40 })
const arbMessage: fc.Arbitrary<IngestMessage> = fc.oneof(
  fc.record({
    type: fc.constant('pod_new_with_name' as const),
    uid: anyString,
    ip: fc.nat({ max: 0xffffffff }),
    ownerName: anyString,
    podName: anyString,
    ownerKind: fc.constantFrom(0, 1, 2, 3, 254, 255),
    ownerUid: anyString,
    isHostNetwork: fc.boolean(),
    ns: anyString,
    version: fc.string({ unit: 'binary', maxLength: 300 }),
  }),
  fc.record({ type: fc.constant('pod_container' as const), uid: anyString, containerId: anyString, containerName: anyString, containerImage: anyString }),
  fc.record({ type: fc.constant('pod_delete' as const), uid: anyString }),
  fc.record({ type: fc.constant('pod_resync' as const), resyncCount: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) }),
  fc.record({ type: fc.constant('set_config_label' as const), key: anyString, value: anyString }),
  fc.record({ type: fc.constant('connect' as const), collectorType: fc.nat({ max: 255 }), hostname: anyString }),
  fc.constant({ type: 'heartbeat' as const }),
)

describe('encoder', () => {
  it('writes blobs as UTF-8 bytes with byte lengths (multi-byte and astral characters)', () => {
    const bytes = encodeMessage(pod({ uid: 'ü', ownerName: '日本', version: '😀' }), TS)
    // _len = H + Σ blob bytes: 20 + 2 + 6 + 5 + 3 + 7 + 4
    expect(bytes[10]! | (bytes[11]! << 8)).toBe(20 + 2 + 6 + 5 + 3 + 7 + 4)
    expect(bytes[16]).toBe(2) // len(uid)
    expect(bytes[18]).toBe(6) // len(owner_name)
  })

  it('writes every string exactly as TextEncoder does (ASCII copied by hand, the rest natively, lone surrogates)', () => {
    const te = new TextEncoder()
    const unit = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c))
    const ascii = fc.string({ unit: unit(0, 0x7f), maxLength: 70 })
    // Every UTF-8 length band, lone and paired surrogates, mostly after an ASCII run of any length.
    const other = fc.string({ unit: fc.oneof(unit(0x80, 0x7ff), unit(0x800, 0xffff), unit(0xd800, 0xdfff), fc.constant('😀')), minLength: 1, maxLength: 5 })
    const text = fc.oneof(ascii, fc.tuple(ascii, other, ascii).map((p) => p.join('')))
    fc.assert(
      fc.property(text, text, (a, b) => {
        const bytes = encodeMessage({ type: 'set_config_label', key: a, value: b }, TS)
        const ka = te.encode(a)
        expect(bytes[12]! | (bytes[13]! << 8)).toBe(ka.length)
        expect(bytes.subarray(14)).toEqual(concatBytes([ka, te.encode(b)]))
      }),
      { numRuns: 500 },
    )
  })

  it('writes the pod messages exactly as their layouts alone do (the specialised paths, property)', () => {
    const unit = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c))
    // Short and long strings (the two copy paths), ASCII or not.
    const text = fc.oneof(
      fc.string({ unit: unit(0x20, 0x7e), maxLength: 90 }),
      fc.string({ unit: fc.oneof(unit(0x20, 0x7e), unit(0x80, 0xffff), fc.constant('😀')), maxLength: 90 }),
    )
    const odd = fc.oneof(fc.constant(undefined), fc.constant(-1), fc.constant(1.5), fc.constant(2 ** 32), fc.constant('7'), fc.constant(256))
    const arbPod: fc.Arbitrary<IngestMessage> = fc.oneof(
      fc.record({
        type: fc.constant('pod_new_with_name' as const),
        uid: text,
        ip: fc.oneof(fc.nat({ max: 0xffffffff }), odd),
        ownerName: text,
        podName: text,
        ownerKind: fc.oneof(fc.constantFrom(0, 1, 2, 3, 254, 255), odd),
        ownerUid: fc.oneof(text, odd),
        isHostNetwork: fc.oneof(fc.boolean(), fc.constant(0), fc.constant('yes')),
        ns: text,
        version: fc.oneof(text, fc.constant('v'.repeat(70_000))),
      }) as fc.Arbitrary<IngestMessage>,
      fc.record({ type: fc.constant('pod_container' as const), uid: text, containerId: fc.oneof(text, odd, fc.constant('x'.repeat(66_000))), containerName: text, containerImage: text }) as fc.Arbitrary<IngestMessage>,
      fc.record({ type: fc.constant('pod_delete' as const), uid: fc.oneof(text, odd) }) as fc.Arbitrary<IngestMessage>,
    )
    const outcome = (writer: ReturnType<typeof createMessageWriter>, msgs: IngestMessage[], ts: bigint[]) =>
      msgs.map((m, i) => {
        try {
          writer.write(m, ts[i]!)
          return writer.take()
        } catch (err) {
          return `${(err as Error).name}: ${(err as Error).message} (pending ${writer.length})`
        }
      })
    fc.assert(
      fc.property(fc.array(arbPod, { maxLength: 8 }), fc.array(fc.bigInt({ min: -1n, max: 2n ** 64n }), { minLength: 8, maxLength: 8 }), (msgs, ts) => {
        expect(outcome(createMessageWriter(64), msgs, ts)).toEqual(outcome(createGenericMessageWriter(64), msgs, ts))
      }),
      { numRuns: 400 },
    )
  })

  it.each([
    ['a non-last blob over 65,535 bytes', pod({ uid: 'x'.repeat(70_000) }), /u16 limit/],
    ['a message over 65,536 bytes', pod({ version: 'v'.repeat(MAX_MESSAGE_BYTES) }), /65,536-byte message limit/],
    ['an owner kind over u8', pod({ ownerKind: 256 }), /ownerKind=256/],
    ['a negative ip', pod({ ip: -1 }), /ip=-1/],
    ['a non-string blob', pod({ uid: 5 as unknown as string }), /not a string/],
  ])('throws IngestEncodeError for %s, writing nothing', (_what, msg, message) => {
    const writer = createMessageWriter()
    writer.write({ type: 'heartbeat' }, TS)
    expect(() => writer.write(msg, TS)).toThrowError(IngestEncodeError)
    expect(() => writer.write(msg, TS)).toThrowError(message)
    expect(writer.length).toBe(10)
    expect(() => encodeMessage(msg, TS)).toThrowError(IngestEncodeError)
    // the shared single-message writer is clean after a failure
    expect(encodeMessage({ type: 'heartbeat' }, TS)).toHaveLength(10)
  })

  it('accepts a message of exactly 65,536 bytes', () => {
    const fixed = 8 + 20 + utf8Len('u-1web') + utf8Len('web-1') + utf8Len('d-1default')
    const msg = pod({ version: 'v'.repeat(MAX_MESSAGE_BYTES - fixed) })
    expect(encodeMessage(msg, TS)).toHaveLength(MAX_MESSAGE_BYTES)
    expect(() => encodeMessage(pod({ version: msg.version + 'v' }), TS)).toThrow(IngestEncodeError)
  })

  it('writer.take() returns what was written and empties the writer; it grows past its capacity', () => {
    const writer = createMessageWriter(64)
    let total = 0
    for (let i = 0; i < 1000; i++) total += writer.write(pod({ uid: `uid-${i}` }), TS)
    const bytes = writer.take()
    expect(bytes).toHaveLength(total)
    expect(writer.length).toBe(0)
    expect(createMessageDecoder().push(bytes)).toHaveLength(1000)
  })
})

describe('decoder', () => {
  const stream = (() => {
    const w = createMessageWriter()
    const msgs: IngestMessage[] = [
      { type: 'connect', collectorType: 3, hostname: 'h' },
      pod(),
      { type: 'pod_container', uid: 'u-1', containerId: 'containerd://ab', containerName: 'c', containerImage: 'nginx' },
      { type: 'pod_resync', resyncCount: 7n },
      { type: 'pod_delete', uid: 'u-1' },
      { type: 'heartbeat' },
    ]
    for (const m of msgs) w.write(m, TS)
    return { msgs, bytes: w.take() }
  })()

  it('decodes a stream split at every byte boundary', () => {
    for (let cut = 0; cut <= stream.bytes.length; cut++) {
      const d = createMessageDecoder()
      const got = [...d.push(stream.bytes.subarray(0, cut)), ...d.push(stream.bytes.subarray(cut))]
      expect(got.map(({ timestamp, ...m }) => m)).toEqual(stream.msgs)
      d.end()
    }
  })

  it('decodes a stream fed one byte at a time', () => {
    const d = createMessageDecoder()
    const got = []
    for (const b of stream.bytes) got.push(...d.push(new Uint8Array([b])))
    expect(got).toHaveLength(stream.msgs.length)
  })

  it.each([
    ['an unknown rpc id', '15 cd 85 3d fe 9c 97 17 39 05', /unknown rpc_id 1337/],
    ['a _len shorter than the header', '15 cd 85 3d fe 9c 97 17 03 02 05 00' + ' 00'.repeat(30), /shorter than its 20-byte header/],
    ['blob lengths beyond _len', '15 cd 85 3d fe 9c 97 17 67 01 04 00 ' + '15 cd 85 3d fe 9c 97 17 ee 01 0a 00 05 00 00 00 00 00', /exceed _len/],
  ])('rejects %s with a clear IngestDecodeError', (_what, hexText, message) => {
    const bytes = new Uint8Array(hexText.trim().split(/\s+/).map((x) => parseInt(x, 16)))
    const d = createMessageDecoder()
    expect(() => d.push(bytes)).toThrowError(message)
    expect(() => d.push(new Uint8Array(0))).toThrowError(IngestDecodeError)
  })

  it('end() reports input that stops inside a message', () => {
    const d = createMessageDecoder()
    expect(d.push(stream.bytes.subarray(0, 14 + 5))).toHaveLength(1) // connect, then 5 bytes of the next
    expect(d.buffered).toBe(5)
    expect(() => d.end()).toThrowError(/5 bytes left over/)
  })

  it('messageSize tells the size once known', () => {
    expect(messageSize(stream.bytes.subarray(0, 9))).toBeUndefined()
    expect(messageSize(stream.bytes.subarray(0, 11))).toBeUndefined() // connect has a _len
    expect(messageSize(stream.bytes)).toBe(8 + 5 + 1)
  })

  it('property: encode → decode is the identity for any strings and numbers', () => {
    fc.assert(
      fc.property(fc.array(arbMessage, { maxLength: 20 }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.nat(), (msgs, ts, cutSeed) => {
        const w = createMessageWriter(64)
        for (const m of msgs) w.write(m, ts)
        const bytes = w.take()
        const cut = bytes.length ? cutSeed % bytes.length : 0
        const d = createMessageDecoder()
        const got = [...d.push(bytes.subarray(0, cut)), ...d.push(bytes.subarray(cut))]
        const wellFormed = msgs.map((m) => JSON.parse(JSON.stringify({ ...m, timestamp: ts }, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))))
        // Lone surrogates cannot be UTF-8; they are encoded as U+FFFD, like TextEncoder does.
        const fix = (v: unknown) => (typeof v === 'string' ? new TextDecoder().decode(new TextEncoder().encode(v)) : v)
        const expected = wellFormed.map((m: Record<string, unknown>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, fix(v)])))
        const actual = got.map((m) => JSON.parse(JSON.stringify(m, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))))
        expect(actual).toEqual(expected)
      }),
      { numRuns: 300 },
    )
  })
})

describe('fitMessage', () => {
  it('leaves a fitting message untouched', () => {
    const msg = pod()
    expect(fitMessage(msg)).toEqual({ message: msg, shortened: false })
  })

  it('shortens version first, at a UTF-8 boundary, to exactly fit', () => {
    const msg = pod({ version: '€'.repeat(30_000) }) // 90,000 bytes
    const { message, shortened } = fitMessage(msg)
    expect(shortened).toBe(true)
    expect(message.uid).toBe(msg.uid)
    expect(message.version.length).toBeLessThan(msg.version.length)
    expect(msg.version.startsWith(message.version)).toBe(true)
    const bytes = encodeMessage(message, TS)
    expect(bytes.length).toBeLessThanOrEqual(MAX_MESSAGE_BYTES)
    expect(bytes.length).toBeGreaterThan(MAX_MESSAGE_BYTES - 3)
  })

  it('then the longest other blob when version alone is not enough', () => {
    const { message, shortened } = fitMessage(pod({ version: 'v'.repeat(100), ownerName: 'o'.repeat(70_000) }))
    expect(shortened).toBe(true)
    expect(message.version).toBe('')
    expect(encodeMessage(message, TS).length).toBeLessThanOrEqual(MAX_MESSAGE_BYTES)
  })

  it('property: any message fits after fitMessage', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30_000 }), fc.string({ maxLength: 80_000 }), (version, owner) => {
        const { message } = fitMessage(pod({ version, ownerName: owner }))
        expect(encodeMessage(message, TS).length).toBeLessThanOrEqual(MAX_MESSAGE_BYTES)
      }),
      { numRuns: 40 },
    )
  })

  it('truncateUtf8 never splits a character', () => {
    expect(truncateUtf8('a€😀', 4)).toBe('a€')
    expect(truncateUtf8('a€😀', 7)).toBe('a€')
    expect(truncateUtf8('a€😀', 8)).toBe('a€😀')
  })
})
