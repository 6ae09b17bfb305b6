// The session's encoder: messages into one LZ4 frame of blocks, oversize fields shortened to fit,
// invalid messages skipped, everything counted (docs/protocol.md §1, docs/behaviour.md §9).
import {
  BLOCK_MAX,
  createLz4FrameWriter,
  createMessageWriter,
  encodeMessage,
  fitMessage,
  IngestEncodeError,
  MAX_MESSAGE_BYTES,
  type IngestMessage,
} from '../ingest/index.ts'
import type { RateLimitedLog } from '../observe/rate-limit.ts'
import type { LinkCounters } from './stats.ts'

// A message whose strings fit in this many UTF-16 units cannot exceed the limit (≤ 3 UTF-8 bytes
// per unit, headers ≤ 28 bytes): the encoder then skips fitMessage's exact UTF-8 measurement.
const SAFE_CHARS = Math.floor((MAX_MESSAGE_BYTES - 64) / 3)

/** UTF-16 units of a message's strings: a cheap size estimate (and an upper bound of a third of its UTF-8 bytes). */
function stringChars(msg: IngestMessage): number {
  let chars = 0
  for (const key in msg) {
    const v = (msg as unknown as Record<string, unknown>)[key]
    if (typeof v === 'string') chars += v.length
  }
  return chars
}

/** Timestamp and the largest fixed header of any message (pod_new_with_name). */
const MAX_FIXED_BYTES = 28

/** Rough raw bytes of a message not yet encoded: its strings plus the largest fixed header. */
export const estimateBytes = (msg: IngestMessage): number => stringChars(msg) + MAX_FIXED_BYTES

export interface FrameEncoder {
  /** `msg` encoded alone and uncompressed (version_info, docs/protocol.md §1.2), counted as handed to the socket. */
  raw(msg: IngestMessage, timestampNs: bigint): Uint8Array
  /**
   * Adds `msg` to the pending block, shortened to fit when needed; an invalid message is skipped
   * and logged. When `msg` would take the pending bytes past one LZ4 block (docs/protocol.md §1.6),
   * what was pending is taken first, as {@link take} does, and returned: the caller writes it
   * before anything else.
   */
  encode(msg: IngestMessage, timestampNs: bigint): Uint8Array | undefined
  /** Uncompressed bytes pending. */
  readonly pendingBytes: number
  /** The pending messages as one LZ4 block of the frame (its header first), counted as one flush; undefined when none. */
  take(): Uint8Array | undefined
  /** The frame's EndMark (a clean end of the stream). */
  end(): Uint8Array
}

export function createFrameEncoder(deps: { readonly counters: LinkCounters; readonly log: RateLimitedLog }): FrameEncoder {
  const c = deps.counters
  const writer = createMessageWriter()
  const frame = createLz4FrameWriter()
  let pendingMessages = 0

  function take(): Uint8Array | undefined {
    if (writer.length === 0) return undefined
    const raw = writer.take()
    const framed = frame.write(raw)
    c.flushes++
    c.messagesSent += pendingMessages
    c.rawBytesSent += raw.length
    c.wireBytesSent += framed.length
    pendingMessages = 0
    return framed
  }

  return {
    raw(msg, ts) {
      const bytes = encodeMessage(msg, ts)
      c.messagesSent++
      c.rawBytesSent += bytes.length
      c.wireBytesSent += bytes.length
      return bytes
    },
    encode(original, ts) {
      let msg = original
      let chars = stringChars(msg)
      if (chars > SAFE_CHARS) {
        const fitted = fitMessage(msg)
        if (fitted.shortened) {
          c.shortenedMessages++
          const uid = (msg as { uid?: string }).uid
          deps.log.warn(`shortened:${msg.type}`, `${msg.type}${uid ? ` of pod ${uid}` : ''} is over ${MAX_MESSAGE_BYTES} bytes: fields shortened to fit`)
          chars = stringChars(fitted.message)
        }
        msg = fitted.message
      }
      let before: Uint8Array | undefined
      try {
        // Measured exactly only near the end of a block (3 UTF-8 bytes per UTF-16 unit at most).
        const pending = writer.length
        if (pending > 0 && pending + 3 * chars + MAX_FIXED_BYTES > BLOCK_MAX && pending + encodeMessage(msg, ts).length > BLOCK_MAX) before = take()
        writer.write(msg, ts)
        pendingMessages++
      } catch (err) {
        if (!(err instanceof IngestEncodeError)) throw err
        c.encodeErrors++
        deps.log.error(`encode:${msg.type}`, `cannot encode ${msg.type}, skipped: ${err.message}`)
      }
      return before
    },
    get pendingBytes() {
      return writer.length
    },
    take,
    end: () => frame.end(),
  }
}
