// Streaming decoder of ingest messages (the already-decompressed stream), fed chunks split at any
// byte boundary.
import { IngestDecodeError } from './errors.ts'
import { LAYOUT_BY_RPC, TIMESTAMP_BYTES, type Layout } from './layout.ts'
import type { TimedMessage } from './messages.ts'

// Lenient: invalid UTF-8 in a blob decodes to U+FFFD instead of failing, as the reducer keeps the
// bytes as they are.
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true })

function layoutAt(bytes: Uint8Array, offset: number): Layout {
  const rpcId = bytes[offset + TIMESTAMP_BYTES]! | (bytes[offset + TIMESTAMP_BYTES + 1]! << 8)
  const layout = LAYOUT_BY_RPC.get(rpcId)
  if (!layout) throw new IngestDecodeError(`unknown rpc_id ${rpcId}`)
  return layout
}

/**
 * Size in bytes (timestamp included) of the message starting at `bytes[offset]`, or `undefined`
 * when not enough bytes are there to tell. Throws {@link IngestDecodeError} for an unknown rpc id
 * or a `_len` shorter than the message's fixed header.
 */
export function messageSize(bytes: Uint8Array, offset = 0): number | undefined {
  if (bytes.length - offset < TIMESTAMP_BYTES + 2) return undefined
  const layout = layoutAt(bytes, offset)
  if (!layout.hasLen) return TIMESTAMP_BYTES + layout.headerSize
  if (bytes.length - offset < TIMESTAMP_BYTES + 4) return undefined
  const len = bytes[offset + TIMESTAMP_BYTES + 2]! | (bytes[offset + TIMESTAMP_BYTES + 3]! << 8)
  if (len < layout.headerSize) {
    throw new IngestDecodeError(`${layout.type}: _len ${len} is shorter than its ${layout.headerSize}-byte header`)
  }
  return TIMESTAMP_BYTES + len
}

/** Decodes the complete message of `size` bytes at `bytes[offset]`. */
function decodeAt(bytes: Uint8Array, offset: number, size: number): TimedMessage {
  const layout = layoutAt(bytes, offset)
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, size)
  const out: Record<string, unknown> = { type: layout.type, timestamp: view.getBigUint64(0, true) }
  const h = TIMESTAMP_BYTES
  for (const [name, kind, o] of layout.fixed) {
    switch (kind) {
      case 'u8':
        out[name] = view.getUint8(h + o)
        break
      case 'bool8':
        out[name] = view.getUint8(h + o) !== 0
        break
      case 'u16':
        out[name] = view.getUint16(h + o, true)
        break
      case 'u32':
        out[name] = view.getUint32(h + o, true)
        break
      case 'ipv4':
        out[name] = view.getUint32(h + o, false)
        break
      case 'u64':
        out[name] = view.getBigUint64(h + o, true)
        break
    }
  }
  if (layout.hasLen) {
    const blobs = layout.blobs
    let at = offset + h + layout.headerSize
    const end = offset + size
    for (let i = 0; i < blobs.length; i++) {
      const n = i < blobs.length - 1 ? view.getUint16(h + layout.blobLenOffsets[i]!, true) : end - at
      if (at + n > end) {
        throw new IngestDecodeError(`${layout.type}: blob lengths exceed _len ${size - TIMESTAMP_BYTES}`)
      }
      out[blobs[i]!] = n === 0 ? '' : utf8.decode(bytes.subarray(at, at + n))
      at += n
    }
  }
  return out as unknown as TimedMessage
}

/** An incremental decoder: push chunks, get the messages completed so far. */
export interface MessageDecoder {
  /** Decodes what `chunk` completes. Throws {@link IngestDecodeError}; the decoder is unusable afterwards. */
  push(chunk: Uint8Array): TimedMessage[]
  /** Bytes held back as the start of an incomplete message. */
  readonly buffered: number
  /** Declares the end of input; throws {@link IngestDecodeError} if a partial message is left. */
  end(): void
}

export function createMessageDecoder(): MessageDecoder {
  let pending: Uint8Array = new Uint8Array(0)
  let failed: IngestDecodeError | undefined
  return {
    get buffered() {
      return pending.length
    },
    push(chunk) {
      if (failed) throw failed
      let bytes = chunk
      if (pending.length > 0) {
        bytes = new Uint8Array(pending.length + chunk.length)
        bytes.set(pending)
        bytes.set(chunk, pending.length)
      }
      const out: TimedMessage[] = []
      let at = 0
      try {
        for (;;) {
          const size = messageSize(bytes, at)
          if (size === undefined || bytes.length - at < size) break
          out.push(decodeAt(bytes, at, size))
          at += size
        }
      } catch (err) {
        failed = err instanceof IngestDecodeError ? err : new IngestDecodeError(String(err), { cause: err })
        throw failed
      }
      pending = at === bytes.length ? new Uint8Array(0) : bytes.slice(at)
      return out
    },
    end() {
      if (failed) throw failed
      if (pending.length > 0) throw new IngestDecodeError(`input ends inside a message (${pending.length} bytes left over)`)
    },
  }
}
