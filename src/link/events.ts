// What the link reports to its owner, as the events of `run()` (nats.js `status()` style): a
// session is up, with the means to send on it; a session is over, and why.
import type { OutboundMessage } from '../ingest/index.ts'
import type { ConnectErrorCause, DisconnectCause } from './errors.ts'

/** Sending on one session: messages never go to another one (false, dropped and counted, once it is over). */
export interface LinkSession {
  /** Queues `messages` after everything sent before on this session; flushed within the flush delay. */
  send(messages: readonly OutboundMessage[], enqueuedAtMs?: number): boolean
  /** Flushes what this session has encoded now (a no-op once it is over). */
  flush(): void
}

/** Why a session ended. */
export interface DisconnectReason {
  readonly cause: DisconnectCause
  /** The failure, absent for `shutdown`. */
  readonly error?: Error
  /** How long the session was up, ms. */
  readonly uptimeMs: number
}

export type LinkEvent =
  | {
      /** The handshake is flushed; what `session.send` queues follows it on the wire. */
      readonly type: 'connected'
      readonly session: LinkSession
      /** 1 for the first session of the link, then 2, 3 … */
      readonly connection: number
      /** The address connected to (the resolved one when the host is a name). */
      readonly address: string
      readonly port: number
    }
  | {
      /** A connection attempt failed; the link backs off and tries again (no session began). */
      readonly type: 'connectFailed'
      readonly cause: ConnectErrorCause
      readonly error: Error
      /** `host:port` as configured. */
      readonly target: string
    }
  | {
      /** The session of the last `connected` event is over; the link backs off and reconnects, or stops. */
      readonly type: 'disconnected'
      readonly reason: DisconnectReason
    }
