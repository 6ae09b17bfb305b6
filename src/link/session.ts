// One connection to the reducer: handshake, message encoding and flushing, heartbeats, and the
// watchdogs that end it (peer close, stuck reducer) — docs/protocol.md §6, docs/behaviour.md §7.
import type { Socket } from 'node:net'
import {
  createLz4FrameWriter,
  createMessageWriter,
  encodeMessage,
  fitMessage,
  IngestEncodeError,
  MAX_MESSAGE_BYTES,
  type IngestMessage,
} from '../ingest/index.ts'
import type { HistogramChild } from '../observe/metrics.ts'
import type { RateLimitedLog } from '../observe/rate-limit.ts'
import type { LinkConfig } from './config.ts'
import { BackpressureError, ConnectionLostError, type DisconnectCause } from './errors.ts'
import { HEARTBEAT_MESSAGES, handshakeMessages, versionInfo } from './handshake.ts'
import type { LinkCounters } from './stats.ts'

/** How a session ended. */
export interface SessionEnd {
  readonly cause: DisconnectCause
  readonly error?: Error
}

export interface SessionDeps {
  readonly counters: LinkCounters
  /** Wall clock, ms (timestamps, latency). */
  readonly now: () => number
  readonly latency: HistogramChild
  readonly log: RateLimitedLog
}

// A message whose strings fit in this many UTF-16 units cannot exceed the limit (≤ 3 UTF-8 bytes
// per unit, headers ≤ 28 bytes): the link then skips fitMessage's exact UTF-8 measurement.
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

/** Rough raw bytes of a queued message: its strings plus the largest fixed header. */
const estimateBytes = (msg: IngestMessage): number => stringChars(msg) + 28

/**
 * Messages are encoded into the socket only while fewer than this many bytes wait there: a large
 * burst (a resync of a big cluster) stays as message objects, which share the stores' strings,
 * and is encoded as the reducer reads, instead of sitting in the socket as tens of MiB of copies.
 */
const SOCKET_LOW_WATER_BYTES = 256 * 1024

function estimateRest(q: Queued): number {
  let bytes = 0
  for (let i = q.at; i < q.messages.length; i++) bytes += estimateBytes(q.messages[i]!)
  return bytes
}

/** A batch given to `send`, waiting for the socket. */
interface Queued {
  readonly messages: readonly IngestMessage[]
  /** Next message to encode. */
  at: number
  readonly enqueuedAtMs: number | undefined
  /** Starts with `pod_resync`: a full re-announcement, bounded by the cluster, exempt from the byte limit. */
  readonly resync: boolean
  /** Estimated raw bytes of the batch (0 for a resync), counted until it is wholly encoded. */
  readonly bytes: number
}

/**
 * A session over a connected socket. `start()` writes the handshake; the session then lives until
 * `ended` resolves: the reducer closed the socket or it failed, the socket did not drain for
 * `drainTimeoutMs`, more than `maxBufferedBytes` were waiting at a heartbeat, or `shutdown()`.
 */
export class Session {
  /** Resolves once, when the session is over (the socket is closed or being closed). */
  readonly ended: Promise<SessionEnd>
  private resolveEnded!: (end: SessionEnd) => void
  private done = false
  private readonly writer = createMessageWriter()
  private readonly frame = createLz4FrameWriter()
  private pendingMessages = 0
  /** `enqueuedAtMs` of the sends waiting for the next flush. */
  private readonly pendingSince: number[] = []
  /** Batches waiting for the socket to go below the low-water mark, in order. */
  private readonly queue: Queued[] = []
  /** Estimated raw bytes of the queued messages that count against `maxBufferedBytes`. */
  private queuedBytes = 0
  /** The socket length below which queued messages are encoded (a quarter of the limit at most). */
  private readonly lowWater: number
  private flushTimer: ReturnType<typeof setTimeout> | undefined
  private drainTimer: ReturnType<typeof setTimeout> | undefined
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly socket: Socket,
    private readonly config: LinkConfig,
    private readonly deps: SessionDeps,
  ) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve))
    this.lowWater = Math.min(SOCKET_LOW_WATER_BYTES, Math.floor(config.maxBufferedBytes / 4))
    socket.on('error', (err) => this.end('socket_error', new ConnectionLostError(`reducer connection failed: ${err.message}`, { cause: err })))
    // The reducer never writes; 'end' is its FIN, seen at once rather than at the next write.
    socket.on('end', () => this.end('peer_closed', new ConnectionLostError('the reducer closed the connection')))
    socket.on('close', () => this.end('peer_closed', new ConnectionLostError('the reducer connection closed')))
    socket.on('drain', () => {
      clearTimeout(this.drainTimer)
      this.drainTimer = undefined
      this.pump()
    })
    // Reading (and discarding) is what makes 'end' fire.
    socket.resume()
  }

  /** Bytes waiting in the socket plus the estimated bytes of queued messages (resyncs included). */
  get bufferedBytes(): number {
    if (this.done) return 0
    let queued = 0
    for (const q of this.queue) queued += q.resync ? estimateRest(q) : q.bytes
    return this.socket.writableLength + queued
  }

  /** Writes version_info raw, then the LZ4 handshake, flushed; starts the heartbeat. */
  start(): void {
    const raw = encodeMessage(versionInfo(this.config), this.timestampNs())
    const c = this.deps.counters
    c.messagesSent++
    c.rawBytesSent += raw.length
    c.wireBytesSent += raw.length
    this.socket.write(raw)
    this.send(handshakeMessages(this.config))
    this.flush()
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.config.heartbeatIntervalMs)
  }

  /**
   * Encodes `messages` (shortened to fit when needed) stamped with the wall clock; flushes when
   * `flushBytes` are pending, else within `flushDelayMs`. Batches are queued in order and encoded
   * while the socket holds less than the low-water mark; the rest as the reducer reads ('drain').
   * Returns false (nothing written) once the session has ended.
   */
  send(messages: readonly IngestMessage[], enqueuedAtMs?: number): boolean {
    if (this.done) return false
    if (messages.length === 0) return true
    const resync = messages[0]!.type === 'pod_resync'
    let bytes = 0
    if (!resync) for (const m of messages) bytes += estimateBytes(m)
    this.queue.push({ messages, at: 0, enqueuedAtMs, resync, bytes })
    this.queuedBytes += bytes
    this.pump()
    return true
  }

  /** Encodes queued batches while the socket is below the low-water mark (called on 'drain'). */
  private pump(): void {
    if (this.done) return
    const ts = this.timestampNs()
    const socket = this.socket
    while (this.queue.length > 0) {
      const q = this.queue[0]!
      const n = q.messages.length
      // Message by message: a flush (every flushBytes) is what raises the socket's length.
      while (q.at < n && socket.writableLength < this.lowWater) this.encode(q.messages[q.at++]!, ts)
      if (q.at < n) break
      this.queue.shift()
      this.queuedBytes -= q.bytes
      if (q.enqueuedAtMs !== undefined) this.pendingSince.push(q.enqueuedAtMs)
    }
    this.scheduleFlush()
  }

  /** Encodes one message (shortened to fit when needed); flushes every `flushBytes`. */
  private encode(original: IngestMessage, ts: bigint): void {
    const c = this.deps.counters
    let msg = original
    if (stringChars(msg) > SAFE_CHARS) {
      const fitted = fitMessage(msg)
      if (fitted.shortened) {
        c.shortenedMessages++
        const uid = (msg as { uid?: string }).uid
        this.deps.log.warn(`shortened:${msg.type}`, `${msg.type}${uid ? ` of pod ${uid}` : ''} is over ${MAX_MESSAGE_BYTES} bytes: fields shortened to fit`)
      }
      msg = fitted.message
    }
    try {
      this.writer.write(msg, ts)
      this.pendingMessages++
    } catch (err) {
      if (!(err instanceof IngestEncodeError)) throw err
      c.encodeErrors++
      this.deps.log.error(`encode:${msg.type}`, `cannot encode ${msg.type}, skipped: ${err.message}`)
    }
    if (this.writer.length >= this.config.flushBytes) this.flush()
  }

  private scheduleFlush(): void {
    if (this.writer.length > 0 && this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => this.flush(), this.config.flushDelayMs)
    }
  }

  /** Writes what is pending as LZ4 block(s) to the socket. */
  flush(): void {
    clearTimeout(this.flushTimer)
    this.flushTimer = undefined
    if (this.done || this.writer.length === 0) return
    const raw = this.writer.take()
    const framed = this.frame.write(raw)
    const c = this.deps.counters
    c.flushes++
    c.messagesSent += this.pendingMessages
    c.rawBytesSent += raw.length
    c.wireBytesSent += framed.length
    this.pendingMessages = 0
    const drained = this.socket.write(framed)
    if (this.pendingSince.length > 0) {
      const t = this.deps.now()
      for (const since of this.pendingSince) this.deps.latency.observe(Math.max(0, t - since) / 1000)
      this.pendingSince.length = 0
    }
    if (!drained && this.drainTimer === undefined) {
      this.drainTimer = setTimeout(() => {
        const ms = this.config.drainTimeoutMs
        this.end('drain_timeout', new BackpressureError('drain_timeout', `the reducer has not read for ${ms} ms (${this.socket.writableLength} bytes waiting)`))
      }, this.config.drainTimeoutMs)
    }
  }

  /**
   * Clean close: flushes, ends the LZ4 frame, half-closes and waits up to `closeTimeoutMs` for the
   * socket to close before destroying it. `ended` resolves with cause `shutdown`.
   */
  async shutdown(): Promise<void> {
    if (this.done) return
    // What is queued still goes out (bounded: queued bytes are checked at every heartbeat).
    const ts = this.timestampNs()
    for (const q of this.queue.splice(0)) for (let i = q.at; i < q.messages.length; i++) this.encode(q.messages[i]!, ts)
    this.flush()
    this.socket.write(this.frame.end())
    this.finish({ cause: 'shutdown' })
    const closed = new Promise<void>((resolve) => {
      if (this.socket.destroyed) return resolve()
      this.socket.once('close', () => resolve())
    })
    this.socket.end()
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.config.closeTimeoutMs)))])
    clearTimeout(timer)
    this.socket.destroy()
  }

  private heartbeat(): void {
    if (this.done) return
    // Checked here rather than at every flush: a burst may legitimately buffer a lot for a moment;
    // what must not happen is staying above the limit (docs/behaviour.md §7). A queued resync is not
    // counted: it is bounded by the cluster, shares the stores' strings, and is encoded only as the
    // reducer reads (the drain timeout still ends a reducer that stopped reading).
    const waiting = this.socket.writableLength + this.queuedBytes
    if (waiting > this.config.maxBufferedBytes) {
      this.end('buffer_overflow', new BackpressureError('buffer_overflow', `${waiting} bytes wait to be written to the reducer (limit ${this.config.maxBufferedBytes})`))
      return
    }
    this.send(HEARTBEAT_MESSAGES)
    this.flush()
  }

  /** Ends the session at once: the socket is destroyed, pending bytes are lost. */
  private end(cause: DisconnectCause, error: Error): void {
    if (this.done) return
    this.finish({ cause, error })
    this.socket.destroy()
  }

  private finish(end: SessionEnd): void {
    this.done = true
    clearTimeout(this.flushTimer)
    clearTimeout(this.drainTimer)
    clearInterval(this.heartbeatTimer)
    this.flushTimer = this.drainTimer = this.heartbeatTimer = undefined
    this.pendingSince.length = 0
    this.queue.length = 0
    this.queuedBytes = 0
    this.resolveEnded(end)
  }

  private timestampNs(): bigint {
    return BigInt(Math.round(this.deps.now() * 1000)) * 1000n
  }
}
