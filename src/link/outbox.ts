// The session's outbox: messages in, bytes out at the reducer's pace — a queue encoded only while
// the socket is below a low-water mark, the flush policy and the byte limit (docs/behaviour.md §7).
// A reducer that stops reading is found by the session's silence rule (peer-silence.ts).
import type { Socket } from 'node:net'
import type { IngestMessage, OutboundMessage } from '../ingest/index.ts'
import type { HistogramChild } from '../observe/metrics.ts'
import type { RateLimitedLog } from '../observe/rate-limit.ts'
import type { Clock, TimerHandle } from '../util/clock.ts'
import { createFrameEncoder, estimateBytes } from './encoder.ts'
import { BackpressureError } from './errors.ts'
import type { LinkCounters } from './stats.ts'

/**
 * Messages are encoded into the socket only while fewer than this many bytes wait there: a large
 * burst (a resync of a big cluster) stays as message objects, which share the stores' strings,
 * and is encoded as the reducer reads, instead of sitting in the socket as tens of MiB of copies.
 */
const SOCKET_LOW_WATER_BYTES = 256 * 1024

export interface OutboxOptions {
  /** Longest time an encoded message waits before being flushed, ms. */
  readonly flushDelayMs: number
  /** Flush as soon as this many uncompressed bytes are pending. */
  readonly flushBytes: number
  /** {@link Outbox.overflow} reports more than this many bytes waiting. */
  readonly maxBufferedBytes: number
}

export interface OutboxDeps {
  readonly clock: Clock
  readonly counters: LinkCounters
  /** Observes the event-to-wire latency of sends given an `enqueuedAtMs`, seconds. */
  readonly latency: HistogramChild
  readonly log: RateLimitedLog
}

export interface Outbox {
  /** Writes `msg` uncompressed at once, ahead of the LZ4 frame (version_info). */
  writeRaw(msg: IngestMessage): void
  /**
   * Queues `messages` in order, stamped with the clock when encoded; they are encoded while the
   * socket holds less than the low-water mark, the rest as the reducer reads ('drain'). Flushed
   * when `flushBytes` are pending, else within `flushDelayMs`. False (nothing queued) once closed.
   */
  send(messages: readonly OutboundMessage[], enqueuedAtMs?: number): boolean
  /** Writes what is encoded to the socket now, as one LZ4 block (docs/protocol.md §1.6). */
  flush(): void
  /**
   * The byte limit (docs/behaviour.md §7), for the owner to check from time to time: an error when
   * more than `maxBufferedBytes` wait in the socket and the queue. A queued resync is not counted:
   * it is bounded by the cluster, shares the stores' strings, and is encoded only as the reducer
   * reads (the silence rule still ends a reducer that stopped reading).
   */
  overflow(): BackpressureError | undefined
  /** Bytes waiting in the socket plus {@link queuedBytes}; 0 once closed. */
  readonly bufferedBytes: number
  /** Estimated bytes of the queued messages not yet encoded (resyncs included); 0 once closed. */
  readonly queuedBytes: number
  /** Bytes handed to the socket so far (version_info, LZ4 blocks and EndMark). */
  readonly handedBytes: number
  /** Clean end: encodes everything queued, flushes, writes the frame's EndMark, then closes. */
  end(): void
  /** Stops the timers and drops the queue; later sends return false. */
  close(): void
}

/** A batch given to `send`, waiting for the socket. */
interface Queued {
  readonly messages: readonly OutboundMessage[]
  /** Next message to encode. */
  at: number
  /** Next item of `messages[at]` to expand, when it is deferred. */
  item: number
  readonly enqueuedAtMs: number | undefined
  /** Starts with `pod_resync`: a full re-announcement, bounded by the cluster, exempt from the byte limit. */
  readonly resync: boolean
  /** Estimated raw bytes of the batch (0 for a resync), counted until it is wholly encoded. */
  readonly bytes: number
}

function estimateRest(q: Queued): number {
  let bytes = 0
  const add = (m: IngestMessage): void => {
    bytes += estimateBytes(m)
  }
  for (let i = q.at; i < q.messages.length; i++) {
    const m = q.messages[i]!
    if (m.type !== 'deferred') add(m)
    else for (let k = i === q.at ? q.item : 0; k < m.count; k++) m.expand(k, add)
  }
  return bytes
}

/** Estimated raw bytes of messages given to `send` (deferred ones expanded). */
function estimateAll(messages: readonly OutboundMessage[]): number {
  return estimateRest({ messages, at: 0, item: 0, enqueuedAtMs: undefined, resync: false, bytes: 0 })
}

/** An outbox writing to `socket` (which it owns the 'drain' events of, not its life). */
export function createOutbox(socket: Socket, options: OutboxOptions, deps: OutboxDeps): Outbox {
  const { clock } = deps
  const encoder = createFrameEncoder(deps)
  /** The socket length below which queued messages are encoded (a quarter of the limit at most). */
  const lowWater = Math.min(SOCKET_LOW_WATER_BYTES, Math.floor(options.maxBufferedBytes / 4))
  /** Batches waiting for the socket to go below the low-water mark, in order. */
  const queue: Queued[] = []
  /** Estimated raw bytes of the queued messages that count against `maxBufferedBytes`. */
  let countedBytes = 0
  /** `enqueuedAtMs` of the sends waiting for the next flush. */
  const pendingSince: number[] = []
  let handed = 0
  let closed = false
  let flushTimer: TimerHandle | undefined

  /** Estimated bytes of everything queued, resyncs included (0 once closed: the queue is dropped). */
  function queuedEstimate(): number {
    let bytes = 0
    for (const q of queue) bytes += q.resync ? estimateRest(q) : q.bytes
    return bytes
  }

  const timestampNs = (): bigint => BigInt(Math.round(clock.now() * 1000)) * 1000n

  function write(bytes: Uint8Array): void {
    handed += bytes.length
    socket.write(bytes)
  }

  /** Encodes queued batches while the socket is below the low-water mark. */
  function pump(): void {
    if (closed) return
    const ts = timestampNs()
    while (queue.length > 0) {
      const q = queue[0]!
      const n = q.messages.length
      // Message by message: a flush (every flushBytes) is what raises the socket's length.
      while (q.at < n && socket.writableLength < lowWater) {
        const m = q.messages[q.at]!
        if (m.type !== 'deferred') {
          encode(m, ts)
          q.at++
        } else if (q.item < m.count) {
          expandAt = ts
          m.expand(q.item++, encodeExpanded)
        } else {
          q.at++
          q.item = 0
        }
      }
      if (q.at < n) break
      queue.shift()
      countedBytes -= q.bytes
      if (q.enqueuedAtMs !== undefined) pendingSince.push(q.enqueuedAtMs)
    }
    if (encoder.pendingBytes > 0 && flushTimer === undefined) flushTimer = clock.setTimeout(flush, options.flushDelayMs)
  }

  /** The timestamp of the deferred messages being expanded. */
  let expandAt = 0n
  const encodeExpanded = (msg: IngestMessage): void => encode(msg, expandAt)

  function encode(msg: IngestMessage, ts: bigint): void {
    const before = encoder.encode(msg, ts)
    if (before) written(before)
    if (encoder.pendingBytes >= options.flushBytes) flush()
  }

  function flush(): void {
    clock.clearTimeout(flushTimer)
    flushTimer = undefined
    if (closed) return
    const block = encoder.take()
    if (block) written(block)
  }

  /** Writes one flush's block and observes the latency of the sends it completes. */
  function written(block: Uint8Array): void {
    write(block)
    if (pendingSince.length > 0) {
      const t = clock.now()
      for (const since of pendingSince) deps.latency.observe(Math.max(0, t - since) / 1000)
      pendingSince.length = 0
    }
  }

  // The socket fell below its high-water mark: encode more of the queue.
  const onDrain = (): void => pump()
  socket.on('drain', onDrain)

  function close(): void {
    if (closed) return
    closed = true
    clock.clearTimeout(flushTimer)
    flushTimer = undefined
    socket.off('drain', onDrain)
    pendingSince.length = 0
    queue.length = 0
    countedBytes = 0
  }

  return {
    writeRaw(msg) {
      if (!closed) write(encoder.raw(msg, timestampNs()))
    },
    send(messages, enqueuedAtMs) {
      if (closed) return false
      if (messages.length === 0) return true
      const resync = messages[0]!.type === 'pod_resync'
      const bytes = resync ? 0 : estimateAll(messages)
      queue.push({ messages, at: 0, item: 0, enqueuedAtMs, resync, bytes })
      countedBytes += bytes
      pump()
      return true
    },
    flush,
    overflow() {
      const waiting = socket.writableLength + countedBytes
      if (closed || waiting <= options.maxBufferedBytes) return undefined
      return new BackpressureError(`${waiting} bytes wait to be written to the reducer (limit ${options.maxBufferedBytes})`)
    },
    get bufferedBytes() {
      return closed ? 0 : socket.writableLength + queuedEstimate()
    },
    get queuedBytes() {
      return queuedEstimate()
    },
    get handedBytes() {
      return handed
    },
    end() {
      if (closed) return
      // What is queued still goes out (bounded: queued bytes are checked at every heartbeat).
      const ts = timestampNs()
      expandAt = ts
      for (const q of queue.splice(0)) {
        for (let i = q.at; i < q.messages.length; i++) {
          const m = q.messages[i]!
          if (m.type !== 'deferred') encode(m, ts)
          else for (let k = i === q.at ? q.item : 0; k < m.count; k++) m.expand(k, encodeExpanded)
        }
      }
      flush()
      write(encoder.end())
      close()
    },
    close,
  }
}
