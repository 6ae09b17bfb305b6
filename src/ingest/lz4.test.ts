// LZ4 framing: our writer checked by liblz4 (Debian's lz4 CLI), liblz4's frames read by our reader.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createLz4FrameReader, createLz4FrameWriter, createMessageDecoder, createMessageWriter, frameHeader, Lz4FrameError, type IngestMessage } from './index.ts'
import { LZ4_WASM_BASE64 } from './lz4-wasm.generated.ts'
import { xxh32, Xxh32 } from './xxh32.ts'
import { concatBytes } from '../bytes.ts'

const concat = (parts: Uint8Array[]): Uint8Array => concatBytes(parts)
const readAll = (bytes: Uint8Array, cut?: number): Uint8Array => {
  const r = createLz4FrameReader()
  if (cut === undefined) return concat(r.push(bytes))
  return concat([...r.push(bytes.subarray(0, cut)), ...r.push(bytes.subarray(cut))])
}
const lz4 = (args: string[], input: Uint8Array): Uint8Array => new Uint8Array(execFileSync('lz4', args, { input, maxBuffer: 1 << 28 }))

/** Realistic compressible content: a stream of pod messages. */
function podStream(n: number): Uint8Array {
  const w = createMessageWriter()
  for (let i = 0; i < n; i++) {
    w.write(
      { type: 'pod_new_with_name', uid: `0f0e${i.toString(16).padStart(4, '0')}-7c2a-4b1e-9d3f-5a6b7c8d9e0f`, ip: 0x0af40000 + i, ownerName: `web-${i % 50}`, podName: `web-${i % 50}-7d9f8c6b5-${(i * 7919).toString(36)}`, ownerKind: 1, ownerUid: `d-${i % 50}`, isHostNetwork: false, ns: `team-${i % 7}`, version: "'nginx:1.25.3'" },
      1700000000000000000n + BigInt(i),
    )
    w.write({ type: 'pod_container', uid: `uid-${i}`, containerId: `containerd://${(i * 2654435761).toString(16).padStart(64, '0')}`, containerName: 'nginx', containerImage: 'nginx:1.25.3' }, 1700000000000000000n)
  }
  return w.take()
}

beforeAll(() => {
  const probe = spawnSync('lz4', ['--version'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) {
    throw new Error('Debian\'s `lz4` CLI (liblz4) is required for these tests: apt-get install lz4 (.ci/run installs it)')
  }
})

describe('xxh32', () => {
  it.each([
    ['', 0x02cc5d05],
    ['a', 0x550d7456],
    ['abc', 0x32d153ff],
    ['Nobody inspects the spammish repetition', 0xe2293b2f],
  ])('xxh32(%j)', (text, expected) => expect(xxh32(new TextEncoder().encode(text))).toBe(expected))

  it('streaming equals one-shot for any split', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat({ max: 200 }), { maxLength: 5 }), (data, cuts) => {
        const h = new Xxh32()
        let at = 0
        for (const c of [...cuts].sort((a, b) => a - b)) {
          h.update(data.subarray(at, Math.max(at, Math.min(c, data.length))))
          at = Math.max(at, Math.min(c, data.length))
        }
        h.update(data.subarray(at))
        expect(h.digest()).toBe(xxh32(data))
      }),
    )
  })
})

describe('frame writer', () => {
  it('writes the header of docs/protocol.md §1.2 (FLG 0x60, BD 0x40, HC 0x82)', () => {
    expect(Array.from(frameHeader())).toEqual([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82])
    const first = createLz4FrameWriter().write(new Uint8Array([1, 2, 3]))
    expect(Array.from(first.subarray(0, 7))).toEqual([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82])
  })

  it('stores an incompressible block raw (bit 31) and compresses a compressible one', () => {
    const w = createLz4FrameWriter()
    const random = new Uint8Array(randomBytes(1000))
    const out = w.write(random)
    const size = new DataView(out.buffer, out.byteOffset + 7, 4).getUint32(0, true)
    expect(size >>> 31).toBe(1)
    expect(size & 0x7fffffff).toBe(1000)
    const text = podStream(100)
    const packed = w.write(text)
    const psize = new DataView(packed.buffer, packed.byteOffset, 4).getUint32(0, true)
    expect(psize >>> 31).toBe(0)
    expect(psize).toBeLessThan(text.length / 2)
  })

  it('splits data into blocks of at most 64 KiB', () => {
    const w = createLz4FrameWriter()
    const data = new Uint8Array(randomBytes(200_000))
    const out = w.write(data)
    let at = 7
    const sizes: number[] = []
    while (at < out.length) {
      const s = new DataView(out.buffer, out.byteOffset + at, 4).getUint32(0, true) & 0x7fffffff
      sizes.push(s)
      at += 4 + s
    }
    expect(sizes).toEqual([65536, 65536, 65536, 200_000 - 3 * 65536])
  })

  it.each([
    ['no checksums', {}],
    ['block checksums', { blockChecksum: true }],
    ['content checksum', { contentChecksum: true }],
    ['both checksums', { blockChecksum: true, contentChecksum: true }],
  ])('liblz4 decodes our never-ending frame, flushed many times (%s)', (_name, opts) => {
    const w = createLz4FrameWriter(opts)
    const content = podStream(3000)
    const parts: Uint8Array[] = []
    for (let at = 0, i = 0; at < content.length; i++) {
      const n = [1, 100, 5000, 70_000, 300][i % 5]!
      parts.push(w.write(content.subarray(at, at + n)))
      at += n
    }
    parts.push(w.end())
    const decoded = lz4(['-d', '-c'], concat(parts))
    expect(Buffer.from(decoded).equals(Buffer.from(content))).toBe(true)
  })

  it('liblz4 decodes concatenated frames (one frame per flush)', () => {
    const content = podStream(500)
    const parts: Uint8Array[] = []
    for (let at = 0; at < content.length; at += 10_000) {
      const w = createLz4FrameWriter()
      parts.push(w.write(content.subarray(at, at + 10_000)), w.end())
    }
    expect(Buffer.from(lz4(['-d', '-c'], concat(parts))).equals(Buffer.from(content))).toBe(true)
  })
})

describe('frame reader', () => {
  const content = podStream(4000) // ~900 KB: many blocks
  const random = new Uint8Array(randomBytes(150_000))

  it.each([
    ['independent blocks (default)', ['-c', '-BI']],
    ['linked blocks', ['-c', '-BD']],
    ['linked blocks, 256 KiB', ['-c', '-BD', '-B5']],
    ['independent 4 MiB blocks', ['-c', '-B7']],
    ['block checksums', ['-c', '-BX', '-BD']],
    ['no content checksum', ['-c', '--no-frame-crc']],
    ['content size', ['-c', '--content-size']],
    ['level 9 linked', ['-c', '-9', '-BD']],
  ])('reads liblz4 frames: %s', (_name, args) => {
    for (const data of [content, random, new Uint8Array(0)]) {
      const framed = lz4(args, data)
      expect(Buffer.from(readAll(framed)).equals(Buffer.from(data))).toBe(true)
    }
  })

  it('reads liblz4 linked-block frames split at many byte boundaries', () => {
    const framed = lz4(['-c', '-BD', '-BX'], content.subarray(0, 200_000))
    for (let cut = 0; cut < framed.length; cut += 997) {
      expect(Buffer.from(readAll(framed, cut)).equals(Buffer.from(content.subarray(0, 200_000)))).toBe(true)
    }
  })

  it('reads our own frame split at every byte boundary, then decodes the messages', () => {
    const msgs: IngestMessage[] = [
      { type: 'connect', collectorType: 3, hostname: 'host' },
      { type: 'pod_delete', uid: 'abc' },
      { type: 'heartbeat' },
    ]
    const w = createMessageWriter()
    for (const m of msgs) w.write(m, 1n)
    const fw = createLz4FrameWriter({ blockChecksum: true })
    const framed = concat([fw.write(w.take()), fw.end()])
    for (let cut = 0; cut <= framed.length; cut++) {
      const decoded = createMessageDecoder().push(readAll(framed, cut))
      expect(decoded.map((m) => m.type)).toEqual(['connect', 'pod_delete', 'heartbeat'])
    }
  })

  it('reads concatenated frames with a skippable frame between them', () => {
    const a = lz4(['-c'], content.subarray(0, 1000))
    const skippable = new Uint8Array([0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9])
    const b = lz4(['-c', '-BD'], content.subarray(1000, 5000))
    expect(Buffer.from(readAll(concat([a, skippable, b]))).equals(Buffer.from(content.subarray(0, 5000)))).toBe(true)
  })

  it('property: writer → reader round-trips any data in any chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 8 }), fc.nat(), (chunks, cutSeed) => {
        const w = createLz4FrameWriter({ contentChecksum: true })
        const framed = concat([...chunks.map((c) => w.write(c)), w.end()])
        const data = concat(chunks)
        expect(Buffer.from(readAll(framed, framed.length ? cutSeed % framed.length : 0)).equals(Buffer.from(data))).toBe(true)
      }),
      { numRuns: 100 },
    )
  })

  it.each([
    ['a bad magic number', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), /not an LZ4 frame/],
    ['a bad header checksum', new Uint8Array([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x83]), /header checksum/],
    ['an unsupported version', new Uint8Array([0x04, 0x22, 0x4d, 0x18, 0xa0, 0x40, 0x00]), /version/],
    ['a block larger than the maximum', new Uint8Array([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82, 0x01, 0x00, 0x01, 0x00]), /exceeds the frame's maximum/],
    ['a corrupt compressed block', new Uint8Array([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82, 0x03, 0x00, 0x00, 0x00, 0x1f, 0x41, 0x05]), /corrupt block/],
    ['uncompressed bytes after the first message', new TextEncoder().encode('\x15\xcd\x85\x3d heartbeat'), /not an LZ4 frame/],
  ])('rejects %s with a clear Lz4FrameError', (_name, bytes, message) => {
    const r = createLz4FrameReader()
    expect(() => r.push(bytes)).toThrowError(Lz4FrameError)
    expect(() => r.push(new Uint8Array(0))).toThrowError(message)
  })

  it('rejects a corrupted liblz4 frame (checksum on)', () => {
    const framed = lz4(['-c', '-BX'], content.subarray(0, 20_000))
    framed[40] = framed[40]! ^ 0xff
    expect(() => readAll(framed)).toThrowError(Lz4FrameError)
  })
})

describe('inlined lz4-wasm', () => {
  it('matches the installed package byte for byte (regenerate with scripts/gen-lz4-wasm.mjs)', () => {
    const dir = dirname(createRequire(import.meta.url).resolve('lz4-wasm/package.json'))
    const wasm = readFileSync(join(dir, 'lz4_wasm_bg.wasm'))
    expect(Buffer.from(LZ4_WASM_BASE64, 'base64').equals(wasm)).toBe(true)
  })
})
