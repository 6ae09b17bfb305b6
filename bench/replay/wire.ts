// Wire-cost analysis of one captured collector → reducer connection: every byte the collector
// sent, split by message type (each compressed byte of an LZ4 block is attributed to the
// decompressed bytes it produced), the incompressible floor of the replay cluster's random ids,
// and the same decompressed stream re-framed by our writer and by the reference lz4 tools.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { compressBlock, createMessageDecoder, messageSize, type TimedMessage } from '../../src/ingest/index.ts'
import { LAYOUT_BY_RPC, TIMESTAMP_BYTES } from '../../src/ingest/layout.ts'

/** A TCP relay collector → tap that keeps a copy of every byte the collector sent. */
export interface CaptureProxy {
  readonly port: number
  /** The bytes of each connection, in connection order. */
  readonly connections: Buffer[][]
  close(): Promise<void>
}

export async function startCaptureProxy(targetPort: number): Promise<CaptureProxy> {
  const connections: Buffer[][] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((inbound) => {
    const chunks: Buffer[] = []
    connections.push(chunks)
    const outbound = connect(targetPort, '127.0.0.1')
    sockets.add(inbound).add(outbound)
    inbound.setNoDelay(true)
    outbound.setNoDelay(true)
    inbound.on('data', (d: Buffer) => {
      chunks.push(d)
      if (!outbound.write(d)) inbound.pause()
    })
    outbound.on('drain', () => inbound.resume())
    outbound.on('data', (d: Buffer) => inbound.write(d))
    const done = (): void => {
      inbound.destroy()
      outbound.destroy()
      sockets.delete(inbound)
      sockets.delete(outbound)
    }
    inbound.on('close', () => outbound.end())
    outbound.on('close', done)
    inbound.on('error', done)
    outbound.on('error', done)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    connections,
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** One LZ4 block as it was on the wire. */
export interface WireBlock {
  /** Decompressed bytes it carries (offset into the decompressed stream, length). */
  readonly rawStart: number
  readonly rawLength: number
  /** Bytes on the wire: 4 (size word) + payload (+ checksum). */
  readonly wireBytes: number
  readonly stored: boolean
}

/** A captured connection taken apart. */
export interface WireCapture {
  /** Every byte the collector sent on the connection. */
  readonly wireBytes: number
  /** The uncompressed first message (version_info). */
  readonly preambleBytes: number
  /** Frame header(s) and EndMark(s). */
  readonly frameBytes: number
  /** The decompressed stream after the first message. */
  readonly raw: Uint8Array
  /** Wire bytes attributed to each decompressed byte (block size words spread over their block). */
  readonly cost: Float32Array
  readonly blocks: readonly WireBlock[]
  readonly linked: boolean
}

/**
 * Parses the bytes of one connection: version_info raw, then LZ4 frames (docs/protocol.md §1.2). Each
 * compressed sequence's overhead (token, length bytes, offset) is spread evenly over the bytes it
 * produces; a literal costs one byte where it lands. So Σ cost = the blocks' bytes on the wire.
 */
export function parseCapture(chunks: readonly Buffer[]): WireCapture {
  const wire = Buffer.concat(chunks)
  const preambleBytes = messageSize(wire, 0) ?? 0
  let at = preambleBytes
  const costParts: Float32Array[] = []
  const blocks: WireBlock[] = []
  let rawLen = 0
  let frameBytes = 0
  let linked = false
  let blockChecksum = false
  // Linked blocks may reach back 64 KiB: keep the whole decompressed stream addressable.
  let out = new Uint8Array(1 << 20)
  const ensure = (n: number): void => {
    if (n <= out.length) return
    let size = out.length
    while (size < n) size *= 2
    const next = new Uint8Array(size)
    next.set(out.subarray(0, rawLen))
    out = next
  }
  while (at < wire.length) {
    if (wire.length - at < 4) throw new Error(`capture ends inside a frame (${wire.length - at} bytes left)`)
    const word = wire.readUInt32LE(at)
    if (word !== 0x184d2204) throw new Error(`not an LZ4 frame at byte ${at}`)
    // A frame header: magic + FLG + BD + HC (no content size, no dict id in what our writer sends).
    const flg = wire[at + 4]!
    if (flg & 0x09) throw new Error('frame with content size or dictionary id: not expected from the collector')
    linked = (flg & 0x20) === 0
    blockChecksum = (flg & 0x10) !== 0
    at += 7
    frameBytes += 7
    for (;;) {
      const size = wire.readUInt32LE(at)
      at += 4
      if (size === 0) {
        frameBytes += 4
        break
      }
      const n = size & 0x7fffffff
      const data = wire.subarray(at, at + n)
      at += n + (blockChecksum ? 4 : 0)
      const start = rawLen
      const wireBytes = 4 + n + (blockChecksum ? 4 : 0)
      if (size & 0x80000000) {
        ensure(rawLen + n)
        out.set(data, rawLen)
        rawLen += n
        costParts.push(new Float32Array(n).fill(1))
      } else {
        ensure(rawLen + 64 * 1024 * 4)
        const { end, cost } = decodeAttributed(data, out, rawLen, linked ? Math.max(0, rawLen - 64 * 1024) : rawLen)
        rawLen = end
        costParts.push(cost)
      }
      const c = costParts[costParts.length - 1]!
      const extra = (wireBytes - n) / Math.max(1, c.length)
      for (let i = 0; i < c.length; i++) c[i]! += extra
      blocks.push({ rawStart: start, rawLength: rawLen - start, wireBytes, stored: (size & 0x80000000) !== 0 })
      if (at >= wire.length) break
    }
  }
  const raw = out.slice(0, rawLen)
  const cost = new Float32Array(rawLen)
  let o = 0
  for (const c of costParts) {
    cost.set(c, o)
    o += c.length
  }
  return { wireBytes: wire.length, preambleBytes, frameBytes, raw, cost, blocks, linked }
}

/** Decodes one LZ4 block like lz4-block-decode.ts, and returns the wire cost of every output byte. */
function decodeAttributed(src: Uint8Array, dst: Uint8Array, dstStart: number, lowest: number): { end: number; cost: Float32Array } {
  const costs: number[] = []
  let i = 0
  let o = dstStart
  for (;;) {
    const seqStart = i
    const outStart = o
    const token = src[i++]!
    let lit = token >>> 4
    if (lit === 15) {
      let b: number
      do {
        b = src[i++]!
        lit += b
      } while (b === 255)
    }
    dst.set(src.subarray(i, i + lit), o)
    i += lit
    o += lit
    let overhead = i - seqStart - lit
    if (i < src.length) {
      const offset = src[i]! | (src[i + 1]! << 8)
      i += 2
      if (offset === 0 || o - offset < lowest) throw new Error(`corrupt block: offset ${offset}`)
      let len = token & 15
      if (len === 15) {
        let b: number
        do {
          b = src[i++]!
          len += b
        } while (b === 255)
      }
      len += 4
      overhead = i - seqStart - lit
      for (let k = 0; k < len; k++, o++) dst[o] = dst[o - offset]!
    }
    const produced = o - outStart
    const spread = overhead / produced
    for (let k = 0; k < produced; k++) costs.push((k < lit ? 1 : 0) + spread)
    if (i >= src.length) return { end: o, cost: Float32Array.from(costs) }
  }
}

/** Per message type: count, decompressed bytes, attributed wire bytes. */
export interface TypeCost {
  count: number
  rawBytes: number
  wireBytes: number
}

export interface StreamAnalysis {
  readonly byType: Map<string, TypeCost>
  readonly messages: number
  /** pod_new_with_name messages and their distinct uids. */
  readonly pods: number
  readonly containers: number
  /** Random characters the replay generator drew for the announced pods (see {@link randomChars}). */
  readonly randomChars: { podNew: number; podContainer: number }
}

/**
 * The random characters of the announced pods, as the replay generator draws them (bench/replay/
 * cluster.ts): 30 random hex digits of each v4 uid (32 minus the fixed `4` and `a`), the 5-char
 * pod name suffix, the first time an owner uid is seen its 30, and 64 hex per container id.
 * LZ4 has no entropy coding: each one costs at least one byte on the wire (a lower bound; the
 * 10-char ReplicaSet hash in pod names and the sequence overheads come on top).
 */
function randomChars(m: TimedMessage, owners: Set<string>): number {
  if (m.type === 'pod_new_with_name') {
    let n = 30 + 5
    if (m.ownerUid && !owners.has(m.ownerUid)) {
      owners.add(m.ownerUid)
      n += 30
    }
    return n
  }
  if (m.type === 'pod_container') return m.containerId.replace(/^[a-z]+:\/\//, '').length
  return 0
}

export function analyseStream(cap: WireCapture): StreamAnalysis {
  const byType = new Map<string, TypeCost>()
  const owners = new Set<string>()
  const random = { podNew: 0, podContainer: 0 }
  const decoder = createMessageDecoder()
  let at = 0
  let messages = 0
  let pods = 0
  let containers = 0
  while (at < cap.raw.length) {
    const size = messageSize(cap.raw, at)
    if (size === undefined || at + size > cap.raw.length) break
    const rpc = cap.raw[at + TIMESTAMP_BYTES]! | (cap.raw[at + TIMESTAMP_BYTES + 1]! << 8)
    const type = LAYOUT_BY_RPC.get(rpc)?.type ?? `rpc_${rpc}`
    let wire = 0
    for (let k = at; k < at + size; k++) wire += cap.cost[k]!
    const t = byType.get(type) ?? { count: 0, rawBytes: 0, wireBytes: 0 }
    t.count++
    t.rawBytes += size
    t.wireBytes += wire
    byType.set(type, t)
    if (type === 'pod_new_with_name' || type === 'pod_container') {
      const [msg] = decoder.push(cap.raw.subarray(at, at + size))
      const r = randomChars(msg!, owners)
      if (type === 'pod_new_with_name') {
        pods++
        random.podNew += r
      } else {
        containers++
        random.podContainer += r
      }
    }
    messages++
    at += size
  }
  return { byType, messages, pods, containers, randomChars: random }
}

/** Our frame writer's bytes for `raw` cut into blocks at `cuts` (raw offsets), each compressed with compressBlock. */
export function reframe(raw: Uint8Array, lengths: readonly number[]): number {
  let total = 7 // frame header
  let at = 0
  for (const n of lengths) {
    for (let o = 0; o < n; o += 64 * 1024) {
      const part = raw.subarray(at + o, at + Math.min(n, o + 64 * 1024))
      const packed = compressBlock(part)
      total += 4 + Math.min(packed.length, part.length)
    }
    at += n
  }
  return total
}

/** Runs the reference `lz4` CLI (liblz4) on `raw` with `args`; undefined when the tool is missing. */
export function lz4Cli(raw: Uint8Array, args: readonly string[]): number | undefined {
  const r = spawnSync('lz4', [...args, '-c', '-q', '--no-frame-crc'], { input: raw, maxBuffer: 1 << 30 })
  if (r.error || r.status !== 0) return undefined
  return r.stdout.length
}

/** python3-lz4 (liblz4 through lz4.frame): `level`, `linked`, 64 KiB blocks, flushed at `cuts`; undefined when missing. */
export function pythonLz4(raw: Uint8Array, lengths: readonly number[], level: number, linked: boolean): number | undefined {
  const script = [
    'import sys, lz4.frame as F',
    'data = sys.stdin.buffer.read()',
    `cuts = [${lengths.join(',')}]`,
    `c = F.LZ4FrameCompressor(block_size=F.BLOCKSIZE_MAX64KB, block_linked=${linked ? 'True' : 'False'}, compression_level=${level}, content_checksum=False, auto_flush=True)`,
    'n = len(c.begin())',
    'at = 0',
    'for k in cuts:',
    '    n += len(c.compress(data[at:at + k]))',
    '    at += k',
    'print(n + len(c.flush()) - 4)',
  ].join('\n')
  // The Debian package (apt-get install python3-lz4) lives with the system interpreter.
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
  const r = spawnSync(python, ['-c', script], { input: raw, maxBuffer: 1 << 20 })
  if (r.error || r.status !== 0) return undefined
  return Number(r.stdout.toString().trim())
}
