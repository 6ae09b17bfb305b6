// One connection to the reducer: the handshake, then the outbox and the heartbeat over the socket,
// and what ends it (peer close, socket error, silent or stuck reducer) — docs/protocol.md §6,
// docs/behaviour.md §7.
import type { Socket } from 'node:net'
import type { IngestMessage, OutboundMessage } from '../ingest/index.ts'
import type { HistogramChild } from '../observe/metrics.ts'
import type { RateLimitedLog } from '../observe/rate-limit.ts'
import { sleep, type Clock } from '../util/clock.ts'
import type { LinkConfig } from './config.ts'
import { ConnectionLostError, PeerSilentError, type DisconnectCause } from './errors.ts'
import { handshakeMessages, versionInfo } from './handshake.ts'
import { HEARTBEAT_MESSAGES, startHeartbeat } from './heartbeat.ts'
import { createOutbox } from './outbox.ts'
import { createSilenceRule, type AckMeter } from './peer-silence.ts'
import type { LinkCounters } from './stats.ts'

/** How a session ended. */
export interface SessionEnd {
  readonly cause: DisconnectCause
  readonly error?: Error
}

export interface SessionDeps {
  readonly clock: Clock
  readonly counters: LinkCounters
  readonly latency: HistogramChild
  readonly log: RateLimitedLog
  /** Measures what the reducer acknowledged (the link's, so that a fallback is logged once). */
  readonly acks: AckMeter
}

export interface Session {
  /** Resolves once, when the session is over (the socket is closed or being closed). */
  readonly ended: Promise<SessionEnd>
  /** Queues `messages` after everything sent before, flushed within `flushDelayMs`; false once ended. */
  send(messages: readonly OutboundMessage[], enqueuedAtMs?: number): boolean
  /** Flushes what is encoded now. */
  flush(): void
  /** Bytes waiting to be written (0 once ended). */
  readonly bufferedBytes: number
  /**
   * Clean close: what is queued goes out, the LZ4 frame ends, the socket is half-closed and
   * destroyed once closed or after `closeTimeoutMs`. `ended` resolves with cause `shutdown`.
   */
  shutdown(): Promise<void>
}

/**
 * Starts a session over a connected socket: writes version_info raw and the LZ4 handshake,
 * flushed, and starts the heartbeat. The session lives until the reducer closes the socket or it
 * fails, the reducer acknowledges nothing for `peerSilentMs` while bytes wait, more than
 * `maxBufferedBytes` wait, or `shutdown()`; the heartbeat checks the last two.
 */
export function openSession(socket: Socket, config: LinkConfig, deps: SessionDeps): Session {
  let resolveEnded!: (end: SessionEnd) => void
  const ended = new Promise<SessionEnd>((resolve) => (resolveEnded = resolve))
  let done = false
  const outbox = createOutbox(socket, config, deps)
  const silence = createSilenceRule(config.peerSilentMs)

  socket.on('error', (err) => end('socket_error', new ConnectionLostError(`reducer connection failed: ${err.message}`, { cause: err })))
  // The reducer never writes; 'end' is its FIN, seen at once rather than at the next write.
  socket.on('end', () => end('peer_closed', new ConnectionLostError('the reducer closed the connection')))
  socket.on('close', () => end('peer_closed', new ConnectionLostError('the reducer connection closed')))
  // Reading (and discarding) is what makes 'end' fire.
  socket.resume()

  outbox.writeRaw(versionInfo(config))
  outbox.send(handshakeMessages(config))
  outbox.flush()
  // The byte limit is checked here rather than at every flush: a burst may legitimately buffer a
  // lot for a moment; what must not happen is staying above the limit (docs/behaviour.md §7).
  // Acknowledgements are sampled before this beat's bytes are written.
  const heartbeat = startHeartbeat(deps.clock, config.heartbeatIntervalMs, () => {
    const overflow = outbox.overflow()
    if (overflow) return end('buffer_overflow', overflow)
    const now = deps.clock.now()
    // A destroyed socket has no row in /proc/net/tcp any more; its 'close' ends the session.
    const sample = !socket.destroyed && silence.due(now)
    const silent = sample ? silence.observe(deps.acks.sample(socket, outbox.handedBytes), now) : undefined
    if (silent) {
      const { inKernel, inSocket, source } = silent.sample
      return end('peer_silent', new PeerSilentError(silent.silentMs, { kernel: inKernel, socket: inSocket, queue: outbox.queuedBytes }, source))
    }
    outbox.send(HEARTBEAT_MESSAGES)
    outbox.flush()
  })

  function finish(how: SessionEnd): void {
    done = true
    heartbeat.stop()
    outbox.close()
    resolveEnded(how)
  }

  /** Ends the session at once: the socket is destroyed, pending bytes are lost. */
  function end(cause: DisconnectCause, error: Error): void {
    if (done) return
    finish({ cause, error })
    socket.destroy()
  }

  return {
    ended,
    send: (messages, enqueuedAtMs) => outbox.send(messages, enqueuedAtMs),
    flush: () => outbox.flush(),
    get bufferedBytes() {
      return outbox.bufferedBytes
    },
    async shutdown() {
      if (done) return
      outbox.end()
      finish({ cause: 'shutdown' })
      const closed = new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve()
        socket.once('close', () => resolve())
      })
      socket.end()
      const waited = new AbortController()
      await Promise.race([closed, sleep(deps.clock, config.closeTimeoutMs, waited.signal)])
      waited.abort()
      socket.destroy()
    },
  }
}
