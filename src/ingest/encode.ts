// Encoding of ingest messages: explicit little-endian, zero padding, exact `_len` (docs/protocol.md §2).
import { IngestEncodeError } from './errors.ts'
import { field, LAYOUT_BY_TYPE, MAX_LEN, TIMESTAMP_BYTES, type Layout } from './layout.ts'
import type { IngestMessage, PodContainer, PodDelete, PodNewWithName } from './messages.ts'

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

// Node's Buffer writes a string's UTF-8 natively straight into any Uint8Array at an offset, with no
// view to allocate (TextEncoder#encodeInto needs a subarray); it replaces lone surrogates with
// U+FFFD as TextEncoder does (codec.test.ts compares the two on every UTF-8 band). It is used only
// where a probe shows exactly that (another runtime's Buffer may differ); elsewhere TextEncoder.
const utf8Write = (globalThis as { Buffer?: { prototype?: { utf8Write?: unknown } } }).Buffer?.prototype?.utf8Write as
  | ((this: Uint8Array, s: string, offset: number) => number)
  | undefined
const nativeUtf8Write = ((probe: Uint8Array) =>
  typeof utf8Write === 'function' && utf8Write.call(probe, 'h\u00e9\ud800', 1) === 6 && probe[4] === 0xef && probe[5] === 0xbf && probe[6] === 0xbd)(new Uint8Array(8))

/**
 * Writes `s` as UTF-8 at `at` (room for 3 bytes per code unit is assured); returns the bytes
 * written. Short ASCII strings, most of those sent, are copied here (a native call costs more);
 * long ones, and from the first other character on, the runtime does it (lone surrogates become
 * U+FFFD).
 */
function writeUtf8(buf: Uint8Array, at: number, s: string): number {
  const n = s.length
  if (n <= 32) {
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i)
      if (c >= 0x80) return i + writeNative(buf, at + i, s.slice(i))
      buf[at + i] = c
    }
    return n
  }
  return writeNative(buf, at, s)
}

function writeNative(buf: Uint8Array, at: number, s: string): number {
  return nativeUtf8Write ? utf8Write!.call(buf, s, at) : utf8.encodeInto(s, buf.subarray(at)).written
}

function uint(value: unknown, name: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new IngestEncodeError(`${name}=${String(value)} is not an integer in 0…${max}`)
  }
  return value
}

// The pod messages, nearly everything sent, have writers of their own that read the message's
// properties directly (the generic path looks every field up by name). Their offsets come from the
// layout table, and their shape is checked against it here, once: the table stays the one truth.
function podLayout(type: 'pod_new_with_name' | 'pod_container' | 'pod_delete', blobs: string[], fixed: string): Layout {
  const l = LAYOUT_BY_TYPE.get(type)!
  const shape = JSON.stringify([l.blobs, l.fixed.map(([name, kind]) => `${name}:${kind}`).join(',')])
  if (shape !== JSON.stringify([blobs, fixed]) || l.blobLenOffsets.length !== blobs.length - 1) {
    throw new Error(`encode.ts: the ${type} writer does not match its layout ${shape}`)
  }
  return l
}
const NEW = podLayout('pod_new_with_name', ['uid', 'ownerName', 'podName', 'ownerUid', 'ns', 'version'], 'ip:ipv4,ownerKind:u8,isHostNetwork:bool8')
const CONTAINER = podLayout('pod_container', ['uid', 'containerId', 'containerName', 'containerImage'], '')
const DELETE = podLayout('pod_delete', ['uid'], '')
const [NEW_IP, NEW_KIND, NEW_HOST] = NEW.fixed.map((f) => f[2]) as [number, number, number]
const NEW_LENS = NEW.blobLenOffsets
const CONTAINER_LENS = CONTAINER.blobLenOffsets
// Header bytes no field covers (zeroed by the generic path's fill): none in these three.
for (const l of [NEW, CONTAINER, DELETE]) {
  const covered = 4 + 2 * l.blobLenOffsets.length + l.fixed.reduce((n, [, kind]) => n + ({ u8: 1, bool8: 1, u16: 2, u32: 4, ipv4: 4, u64: 8 })[kind], 0)
  if (covered !== l.headerSize) throw new Error(`encode.ts: ${l.type} has header padding; its writer does not zero it`)
}

const isU32 = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 0xffffffff && Number.isInteger(v)

class Writer implements MessageWriter {
  private buf: Uint8Array
  private view: DataView
  private pos = 0
  /** The message's blob strings, read once per write. */
  private readonly strings: string[] = []
  /** The last timestamp, split into its little-endian u32 halves (a batch shares one). */
  private tsLast: bigint | undefined
  private tsLo = 0
  private tsHi = 0

  /** `specialized`: false forces the generic path for every message (tests compare the two). */
  constructor(
    capacity: number,
    private readonly specialized = true,
  ) {
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
    if (this.specialized && typeof timestampNs === 'bigint') {
      // Each returns -1 for anything unusual (a wrong type, a message too long), writing nothing:
      // the generic path then throws its precise error.
      let n = -1
      switch (msg.type) {
        case 'pod_new_with_name':
          n = this.podNew(msg, timestampNs)
          break
        case 'pod_container':
          n = this.podContainer(msg, timestampNs)
          break
        case 'pod_delete':
          n = this.podDelete(msg, timestampNs)
          break
      }
      if (n >= 0) return n
    }
    return this.generic(msg, timestampNs)
  }

  /** Timestamp and rpc_id of a message at `start`; returns where the header starts. */
  private head(start: number, timestampNs: bigint, rpcId: number): number {
    if (timestampNs !== this.tsLast) {
      const ts = BigInt.asUintN(64, timestampNs)
      this.tsLo = Number(ts & 0xffffffffn)
      this.tsHi = Number(ts >> 32n)
      this.tsLast = timestampNs
    }
    const view = this.view
    view.setUint32(start, this.tsLo, true)
    view.setUint32(start + 4, this.tsHi, true)
    const h = start + TIMESTAMP_BYTES
    view.setUint16(h, rpcId, true)
    return h
  }

  /**
   * A blob that is not the last, its u16 length at `lenAt`. One over 65,535 bytes makes the message
   * too long for {@link end}, so the generic path reports it.
   */
  private blob(s: string, at: number, lenAt: number): number {
    const n = writeUtf8(this.buf, at, s)
    this.view.setUint16(lenAt, n & 0xffff, true)
    return n
  }

  /** The message's `_len` and new end; -1 when over the limit. */
  private end(h: number, at: number): number {
    const len = at - h
    if (len > MAX_LEN) return -1
    this.view.setUint16(h + 2, len, true)
    const start = h - TIMESTAMP_BYTES
    this.pos = at
    return at - start
  }

  private podNew(msg: PodNewWithName, timestampNs: bigint): number {
    const { uid, ownerName, podName, ownerUid, ns, version, ip, ownerKind } = msg
    if (typeof uid !== 'string' || typeof ownerName !== 'string' || typeof podName !== 'string') return -1
    if (typeof ownerUid !== 'string' || typeof ns !== 'string' || typeof version !== 'string') return -1
    if (!isU32(ip) || !isU32(ownerKind) || ownerKind > 0xff) return -1
    this.ensure(TIMESTAMP_BYTES + NEW.headerSize + 3 * (uid.length + ownerName.length + podName.length + ownerUid.length + ns.length + version.length))
    const h = this.head(this.pos, timestampNs, NEW.rpcId)
    this.view.setUint32(h + NEW_IP, ip, false) // network order, as inet_addr() stores it (docs/protocol.md §3)
    this.buf[h + NEW_KIND] = ownerKind
    this.buf[h + NEW_HOST] = msg.isHostNetwork ? 1 : 0
    let at = h + NEW.headerSize
    at += this.blob(uid, at, h + NEW_LENS[0]!)
    at += this.blob(ownerName, at, h + NEW_LENS[1]!)
    at += this.blob(podName, at, h + NEW_LENS[2]!)
    at += this.blob(ownerUid, at, h + NEW_LENS[3]!)
    at += this.blob(ns, at, h + NEW_LENS[4]!)
    at += writeUtf8(this.buf, at, version)
    return this.end(h, at)
  }

  private podContainer(msg: PodContainer, timestampNs: bigint): number {
    const { uid, containerId, containerName, containerImage } = msg
    if (typeof uid !== 'string' || typeof containerId !== 'string' || typeof containerName !== 'string' || typeof containerImage !== 'string') return -1
    this.ensure(TIMESTAMP_BYTES + CONTAINER.headerSize + 3 * (uid.length + containerId.length + containerName.length + containerImage.length))
    const h = this.head(this.pos, timestampNs, CONTAINER.rpcId)
    let at = h + CONTAINER.headerSize
    at += this.blob(uid, at, h + CONTAINER_LENS[0]!)
    at += this.blob(containerId, at, h + CONTAINER_LENS[1]!)
    at += this.blob(containerName, at, h + CONTAINER_LENS[2]!)
    at += writeUtf8(this.buf, at, containerImage)
    return this.end(h, at)
  }

  private podDelete(msg: PodDelete, timestampNs: bigint): number {
    const uid = msg.uid
    if (typeof uid !== 'string') return -1
    this.ensure(TIMESTAMP_BYTES + DELETE.headerSize + 3 * uid.length)
    const h = this.head(this.pos, timestampNs, DELETE.rpcId)
    return this.end(h, writeUtf8(this.buf, h + DELETE.headerSize, uid) + h + DELETE.headerSize)
  }

  /** Any message, by its layout. */
  private generic(msg: IngestMessage, timestampNs: bigint): number {
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
    const h = this.head(start, timestampNs, layout.rpcId)

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
          // The octets in network order, as inet_addr() stores them (docs/protocol.md §3).
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

/** A writer that encodes every message by its layout alone (tests compare it with the specialised paths). */
export function createGenericMessageWriter(initialCapacity = 64 * 1024): MessageWriter {
  return new Writer(Math.max(64, initialCapacity), false)
}

/** Encodes one message (8-byte LE timestamp + body) into a new array. Throws {@link IngestEncodeError}. */
export function encodeMessage(msg: IngestMessage, timestampNs: bigint): Uint8Array {
  const writer = new Writer(4096)
  writer.write(msg, timestampNs)
  return writer.take()
}
