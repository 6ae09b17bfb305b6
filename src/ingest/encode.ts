// Encoding of ingest messages: explicit little-endian, zero padding, exact `_len` (protocol.md §2).
import { IngestEncodeError } from './errors.ts'
import { field, LAYOUT_BY_TYPE, MAX_LEN, TIMESTAMP_BYTES, type Layout } from './layout.ts'
import type { IngestMessage } from './messages.ts'

const utf8 = new TextEncoder()

/** Appends encoded messages into one growing buffer; `take()` hands out what is pending. */
export interface MessageWriter {
  /** Encodes `msg` stamped with `timestampNs`; returns the bytes written. Throws {@link IngestEncodeError} (nothing written). */
  write(msg: IngestMessage, timestampNs: bigint): number
  /** Bytes pending. */
  readonly length: number
  /** The pending bytes as a fresh array; the writer is empty afterwards. */
  take(): Uint8Array
}

function layoutOf(msg: IngestMessage): Layout {
  const layout = LAYOUT_BY_TYPE.get(msg.type)
  if (!layout) throw new IngestEncodeError(`unknown message type ${JSON.stringify((msg as { type: unknown }).type)}`)
  return layout
}

/**
 * Writes `s` as UTF-8 at `at` (room for 3 bytes per code unit is assured); returns the bytes
 * written. Short ASCII strings, most of those sent, are copied here (a call into TextEncoder costs
 * more); long ones, and from the first other character on, TextEncoder does it (lone surrogates
 * become U+FFFD).
 */
function writeUtf8(buf: Uint8Array, at: number, s: string): number {
  const n = s.length
  if (n > 32) return utf8.encodeInto(s, buf.subarray(at)).written // long: the native copy is faster
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x80) return i + utf8.encodeInto(s.slice(i), buf.subarray(at + i)).written
    buf[at + i] = c
  }
  return n
}

function uint(value: unknown, name: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new IngestEncodeError(`${name}=${String(value)} is not an integer in 0…${max}`)
  }
  return value
}

class Writer implements MessageWriter {
  private buf: Uint8Array
  private view: DataView
  private pos = 0
  /** The message's blob strings, read once per write. */
  private readonly strings: string[] = []

  constructor(capacity: number) {
    this.buf = new Uint8Array(capacity)
    this.view = new DataView(this.buf.buffer)
  }

  get length(): number {
    return this.pos
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.pos + extra) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.pos))
    this.buf = next
    this.view = new DataView(next.buffer)
  }

  write(msg: IngestMessage, timestampNs: bigint): number {
    const layout = layoutOf(msg)
    const start = this.pos
    const H = layout.headerSize
    const blobs = layout.blobs
    const strings = this.strings
    let chars = 0
    for (let i = 0; i < blobs.length; i++) {
      const s = field(msg, blobs[i]!)
      if (typeof s !== 'string') throw new IngestEncodeError(`${msg.type}.${blobs[i]} is not a string`)
      strings[i] = s
      chars += s.length
    }
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    this.ensure(TIMESTAMP_BYTES + H + chars * 3)
    const buf = this.buf
    const view = this.view
    buf.fill(0, start, start + TIMESTAMP_BYTES + H)
    view.setBigUint64(start, BigInt.asUintN(64, timestampNs), true)
    const h = start + TIMESTAMP_BYTES
    view.setUint16(h, layout.rpcId, true)

    // Blobs first (their lengths go in the header), straight into the buffer.
    let at = h + H
    for (let i = 0; i < blobs.length; i++) {
      const written = writeUtf8(buf, at, strings[i]!)
      if (i < blobs.length - 1) {
        if (written > 0xffff) throw new IngestEncodeError(`${msg.type}.${blobs[i]} is ${written} bytes, over the u16 limit of 65,535`)
        view.setUint16(h + layout.blobLenOffsets[i]!, written, true)
      }
      at += written
    }
    if (layout.hasLen) {
      const len = at - h
      if (len > MAX_LEN) {
        throw new IngestEncodeError(`${msg.type} is ${len + TIMESTAMP_BYTES} bytes, over the 65,536-byte message limit`)
      }
      view.setUint16(h + 2, len, true)
    }
    for (const [name, kind, offset] of layout.fixed) {
      const value = field(msg, name)
      const o = h + offset
      switch (kind) {
        case 'u8':
          buf[o] = uint(value, name, 0xff)
          break
        case 'bool8':
          buf[o] = value ? 1 : 0
          break
        case 'u16':
          view.setUint16(o, uint(value, name, 0xffff), true)
          break
        case 'u32':
          view.setUint32(o, uint(value, name, 0xffffffff), true)
          break
        case 'ipv4':
          // The octets in network order, as inet_addr() stores them (protocol.md §3).
          view.setUint32(o, uint(value, name, 0xffffffff), false)
          break
        case 'u64':
          if (typeof value !== 'bigint' || value < 0n || value > 0xffffffffffffffffn) {
            throw new IngestEncodeError(`${name}=${String(value)} is not a u64 bigint`)
          }
          view.setBigUint64(o, value, true)
          break
      }
    }
    this.pos = at
    return at - start
  }

  take(): Uint8Array {
    const out = this.buf.slice(0, this.pos)
    this.pos = 0
    return out
  }
}

/** A writer with room for `initialCapacity` bytes (it grows as needed). */
export function createMessageWriter(initialCapacity = 64 * 1024): MessageWriter {
  return new Writer(Math.max(64, initialCapacity))
}

const single = new Writer(4096)

/** Encodes one message (8-byte LE timestamp + body) into a new array. Throws {@link IngestEncodeError}. */
export function encodeMessage(msg: IngestMessage, timestampNs: bigint): Uint8Array {
  try {
    single.write(msg, timestampNs)
    return single.take()
  } catch (err) {
    single.take()
    throw err
  }
}
