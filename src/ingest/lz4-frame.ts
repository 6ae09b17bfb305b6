// LZ4 frame format (magic 04 22 4D 18): the writer the collector sends with, and the reader the tap
// decodes with — accepting what liblz4's LZ4F_decompress accepts (docs/protocol.md §1.2).
import { Lz4FrameError } from './errors.ts'
import { compressBlock } from './lz4-block.ts'
import { decodeBlock } from './lz4-block-decode.ts'
import { Xxh32, xxh32 } from './xxh32.ts'

const MAGIC = 0x184d2204
const SKIPPABLE_MASK = 0xfffffff0
const SKIPPABLE = 0x184d2a50
const WINDOW = 64 * 1024
/** The block size the writer declares (BD = 0x40: 64 KiB). */
export const BLOCK_MAX = 64 * 1024
const RAW_BIT = 0x80000000

export interface Lz4FrameWriterOptions {
  /** Append an xxh32 to every block (FLG bit 4). Default off. */
  readonly blockChecksum?: boolean
  /** Append an xxh32 of all content after the EndMark (FLG bit 2). Default off. */
  readonly contentChecksum?: boolean
}

/** One never-ending LZ4 frame: `write` returns bytes to send (the header the first time). */
export interface Lz4FrameWriter {
  /** Frames `data` as blocks of ≤ 64 KiB, each compressed or stored raw when that is not smaller. */
  write(data: Uint8Array): Uint8Array
  /** Ends the frame: EndMark (plus the content checksum when enabled); the header too if nothing was written. */
  end(): Uint8Array
}

/** The 7-byte frame header for the given flags (independent blocks, 64 KiB max block). */
export function frameHeader(opts: Lz4FrameWriterOptions = {}): Uint8Array {
  const flg = 0x40 | 0x20 | (opts.blockChecksum ? 0x10 : 0) | (opts.contentChecksum ? 0x04 : 0)
  const bd = 0x40
  const hc = (xxh32(new Uint8Array([flg, bd])) >>> 8) & 0xff
  return new Uint8Array([0x04, 0x22, 0x4d, 0x18, flg, bd, hc])
}

export function createLz4FrameWriter(opts: Lz4FrameWriterOptions = {}): Lz4FrameWriter {
  let started = false
  let content = opts.contentChecksum ? new Xxh32() : undefined
  return {
    write(data) {
      const parts: Uint8Array[] = []
      let total = 0
      if (!started) {
        started = true
        const header = frameHeader(opts)
        parts.push(header)
        total += header.length
      }
      content?.update(data)
      for (let at = 0; at < data.length; at += BLOCK_MAX) {
        const raw = data.subarray(at, Math.min(at + BLOCK_MAX, data.length))
        const packed = compressBlock(raw)
        const stored = packed.length < raw.length ? packed : raw
        const head = new Uint8Array(4)
        new DataView(head.buffer).setUint32(0, stored === raw ? (raw.length | RAW_BIT) >>> 0 : packed.length, true)
        parts.push(head, stored)
        total += 4 + stored.length
        if (opts.blockChecksum) {
          const sum = new Uint8Array(4)
          new DataView(sum.buffer).setUint32(0, xxh32(stored), true)
          parts.push(sum)
          total += 4
        }
      }
      const out = new Uint8Array(total)
      let o = 0
      for (const p of parts) {
        out.set(p, o)
        o += p.length
      }
      return out
    },
    end() {
      // A frame that never carried data still needs its header before the EndMark.
      const header = started ? new Uint8Array(0) : frameHeader(opts)
      const out = new Uint8Array(header.length + (content ? 8 : 4))
      out.set(header)
      if (content) new DataView(out.buffer).setUint32(header.length + 4, content.digest(), true)
      started = false
      content = opts.contentChecksum ? new Xxh32() : undefined // a later write starts a new frame
      return out
    },
  }
}

/** Reads an LZ4 frame stream incrementally: concatenated frames, endless frames, skippable frames. */
export interface Lz4FrameReader {
  /** Returns the data decompressed from what `chunk` completes. Throws {@link Lz4FrameError}; unusable afterwards. */
  push(chunk: Uint8Array): Uint8Array[]
}

type ReaderState =
  | { readonly step: 'magic' }
  | { readonly step: 'skip'; remaining: number }
  | { readonly step: 'descriptor' }
  | { readonly step: 'blockSize' }
  | { readonly step: 'block'; readonly size: number; readonly raw: boolean }
  | { readonly step: 'contentChecksum' }

interface Frame {
  readonly linked: boolean
  readonly blockChecksum: boolean
  readonly contentChecksum: boolean
  readonly blockMax: number
  readonly contentSize: bigint | undefined
  produced: bigint
  readonly hash: Xxh32 | undefined
  /** Output window: history (linked blocks) followed by the block being decoded. */
  window: Uint8Array
  windowLen: number
}

const BLOCK_MAX_BY_ID: Record<number, number> = { 4: 64 * 1024, 5: 256 * 1024, 6: 1024 * 1024, 7: 4 * 1024 * 1024 }

export function createLz4FrameReader(): Lz4FrameReader {
  let state: ReaderState = { step: 'magic' }
  let frame: Frame | undefined
  let buf: Uint8Array = new Uint8Array(0)
  let at = 0
  let failed: Lz4FrameError | undefined

  const u32 = (i: number): number => (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)) >>> 0

  function parseDescriptor(): boolean {
    if (buf.length - at < 2) return false
    const flg = buf[at]!
    const bd = buf[at + 1]!
    if (flg >>> 6 !== 1) throw new Lz4FrameError(`unsupported frame version ${flg >>> 6}`)
    if (flg & 0x02 || bd & 0x8f) throw new Lz4FrameError('reserved bits set in the frame descriptor')
    const blockMax = BLOCK_MAX_BY_ID[(bd >>> 4) & 7]
    if (!blockMax) throw new Lz4FrameError(`invalid maximum block size id ${(bd >>> 4) & 7}`)
    const hasSize = (flg & 0x08) !== 0
    const hasDict = (flg & 0x01) !== 0
    const length = 2 + (hasSize ? 8 : 0) + (hasDict ? 4 : 0) + 1
    if (buf.length - at < length) return false
    const hc = (xxh32(buf.subarray(at, at + length - 1)) >>> 8) & 0xff
    if (hc !== buf[at + length - 1]) throw new Lz4FrameError('frame header checksum mismatch')
    if (hasDict) throw new Lz4FrameError('frames with a dictionary id are not supported')
    const linked = (flg & 0x20) === 0
    frame = {
      linked,
      blockChecksum: (flg & 0x10) !== 0,
      contentChecksum: (flg & 0x04) !== 0,
      blockMax,
      contentSize: hasSize ? new DataView(buf.buffer, buf.byteOffset + at + 2, 8).getBigUint64(0, true) : undefined,
      produced: 0n,
      hash: (flg & 0x04) !== 0 ? new Xxh32() : undefined,
      window: new Uint8Array((linked ? WINDOW : 0) + blockMax),
      windowLen: 0,
    }
    at += length
    return true
  }

  function emitBlock(data: Uint8Array, raw: boolean, out: Uint8Array[]): void {
    const f = frame!
    if (!f.linked) f.windowLen = 0
    const start = f.windowLen
    let end: number
    if (raw) {
      f.window.set(data, start)
      end = start + data.length
    } else {
      end = decodeBlock(data, f.window, start, f.linked ? 0 : start, start + f.blockMax)
    }
    const produced = f.window.slice(start, end)
    f.hash?.update(produced)
    f.produced += BigInt(produced.length)
    if (produced.length > 0) out.push(produced)
    if (f.linked) {
      // Keep the last 64 KiB as history for the next block.
      if (end > WINDOW) {
        f.window.copyWithin(0, end - WINDOW, end)
        f.windowLen = WINDOW
      } else {
        f.windowLen = end
      }
    }
  }

  function step(out: Uint8Array[]): boolean {
    switch (state.step) {
      case 'magic': {
        if (buf.length - at < 4) return false
        const magic = u32(at)
        at += 4
        if (magic === MAGIC) state = { step: 'descriptor' }
        else if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE) state = { step: 'skip', remaining: -1 }
        else throw new Lz4FrameError(`not an LZ4 frame (magic 0x${magic.toString(16).padStart(8, '0')})`)
        return true
      }
      case 'skip': {
        if (state.remaining < 0) {
          if (buf.length - at < 4) return false
          state.remaining = u32(at)
          at += 4
        }
        const n = Math.min(state.remaining, buf.length - at)
        at += n
        state.remaining -= n
        if (state.remaining > 0) return false
        state = { step: 'magic' }
        return true
      }
      case 'descriptor':
        if (!parseDescriptor()) return false
        state = { step: 'blockSize' }
        return true
      case 'blockSize': {
        if (buf.length - at < 4) return false
        const word = u32(at)
        at += 4
        if (word === 0) {
          state = frame!.contentChecksum ? { step: 'contentChecksum' } : { step: 'magic' }
          if (state.step === 'magic') finishFrame()
          return true
        }
        const size = word & 0x7fffffff
        if (size > frame!.blockMax) throw new Lz4FrameError(`block of ${size} bytes exceeds the frame's maximum of ${frame!.blockMax}`)
        state = { step: 'block', size, raw: (word & RAW_BIT) !== 0 }
        return true
      }
      case 'block': {
        const f = frame!
        const need = state.size + (f.blockChecksum ? 4 : 0)
        if (buf.length - at < need) return false
        const data = buf.subarray(at, at + state.size)
        if (f.blockChecksum && xxh32(data) !== u32(at + state.size)) throw new Lz4FrameError('block checksum mismatch')
        emitBlock(data, state.raw, out)
        at += need
        state = { step: 'blockSize' }
        return true
      }
      case 'contentChecksum': {
        if (buf.length - at < 4) return false
        if (frame!.hash!.digest() !== u32(at)) throw new Lz4FrameError('content checksum mismatch')
        at += 4
        finishFrame()
        state = { step: 'magic' }
        return true
      }
    }
  }

  function finishFrame(): void {
    const f = frame!
    if (f.contentSize !== undefined && f.contentSize !== f.produced) {
      throw new Lz4FrameError(`frame content size ${f.contentSize} does not match the ${f.produced} bytes decoded`)
    }
    frame = undefined
  }

  return {
    push(chunk) {
      if (failed) throw failed
      if (at < buf.length) {
        const next = new Uint8Array(buf.length - at + chunk.length)
        next.set(buf.subarray(at))
        next.set(chunk, buf.length - at)
        buf = next
      } else {
        buf = chunk
      }
      at = 0
      const out: Uint8Array[] = []
      try {
        while (step(out));
      } catch (err) {
        failed = err instanceof Lz4FrameError ? err : new Lz4FrameError(String(err), { cause: err })
        throw failed
      }
      return out
    },
  }
}
