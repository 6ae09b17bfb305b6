// The link's counters (one mutable record, snapshot by `stats()`) and their Prometheus metrics.
import { DEFAULT_SECONDS_BUCKETS, type HistogramChild, type Registry } from '../observe/metrics.ts'
import type { ConnectErrorCause, DisconnectCause } from './errors.ts'

/** The link's phase (see link.ts's `LinkState`). */
export type LinkPhase = 'idle' | 'connecting' | 'connected' | 'backoff' | 'stopped'

/** Counters since the link was created. */
export interface LinkCounters {
  /** Sessions established (handshake written). */
  connects: number
  /** Sessions established after the first one. */
  reconnects: number
  connectErrors: Record<ConnectErrorCause, number>
  disconnects: Record<DisconnectCause, number>
  /** Messages handed to the socket (handshake and heartbeats included). */
  messagesSent: number
  /** Uncompressed message bytes handed to the socket (version_info included). */
  rawBytesSent: number
  /** Bytes handed to the socket: version_info + LZ4 frame bytes. */
  wireBytesSent: number
  flushes: number
  /** Messages with a blob shortened to fit 65,536 bytes (docs/behaviour.md §9). */
  shortenedMessages: number
  /** Messages that could not be encoded (invalid field values), skipped. */
  encodeErrors: number
  /** Messages given to `send` while no session was up (docs/behaviour.md §7: never queued). */
  droppedWhileDisconnected: number
}

/** A snapshot of the link. */
export interface LinkStats extends Readonly<Omit<LinkCounters, 'connectErrors' | 'disconnects'>> {
  readonly state: LinkPhase
  readonly connectErrors: Readonly<Record<ConnectErrorCause, number>>
  readonly disconnects: Readonly<Record<DisconnectCause, number>>
  /** Age of the current session, ms (0 while not connected). */
  readonly connectionAgeMs: number
  /** Bytes waiting in the socket to be written (0 while not connected). */
  readonly bufferedBytes: number
  /** Consecutive attempts without a session that lasted the backoff reset time (sizes the next backoff). */
  readonly consecutiveFailures: number
}

export function createCounters(): LinkCounters {
  return {
    connects: 0,
    reconnects: 0,
    connectErrors: { dns: 0, timeout: 0, refused: 0, unreachable: 0, other: 0 },
    disconnects: { peer_closed: 0, socket_error: 0, peer_silent: 0, buffer_overflow: 0, shutdown: 0 },
    messagesSent: 0,
    rawBytesSent: 0,
    wireBytesSent: 0,
    flushes: 0,
    shortenedMessages: 0,
    encodeErrors: 0,
    droppedWhileDisconnected: 0,
  }
}

/** Buckets of the event-to-wire latency, seconds (the flush delay is 100 ms). */
export const LATENCY_BUCKETS: readonly number[] = DEFAULT_SECONDS_BUCKETS

/**
 * Registers the `k8s_collector_link_*` metrics on `registry`, read from `read()` at scrape time,
 * and returns the event-to-wire latency histogram the link observes into.
 */
export function registerLinkMetrics(registry: Registry, read: () => LinkStats): HistogramChild {
  const p = 'k8s_collector_link_'
  const counter = (name: string, help: string, pick: (s: LinkStats) => number): void => {
    registry.counter({ name: p + name, help, collect: () => pick(read()) })
  }
  const byCause = (record: Readonly<Record<string, number>>) => Object.entries(record).map(([k, v]) => [[k], v] as const)
  registry.gauge({ name: `${p}up`, help: '1 while a session with the reducer is established (handshake written), 0 while connecting, in backoff or stopped.', collect: () => (read().state === 'connected' ? 1 : 0) })
  registry.gauge({ name: `${p}connection_age_seconds`, help: 'Age of the current reducer session, seconds (0 while disconnected).', collect: () => read().connectionAgeMs / 1000 })
  registry.gauge({ name: `${p}buffered_bytes`, help: 'Bytes waiting to be written to the reducer: unwritten in the socket plus queued messages not yet encoded (0 while disconnected).', collect: () => read().bufferedBytes })
  counter('connects_total', 'Reducer sessions established (the first one included).', (s) => s.connects)
  counter('reconnects_total', 'Reducer sessions established after the first one; each starts a new epoch (docs/behaviour.md §6).', (s) => s.reconnects)
  registry.counter({
    name: `${p}connect_errors_total`,
    help:
      'Failed connection attempts to the reducer, by cause: dns (the host did not resolve), timeout (no answer in time), ' +
      'refused (ECONNREFUSED), unreachable (host or network unreachable), other (docs/behaviour.md §7).',
    labelNames: ['cause'],
    collect: () => byCause(read().connectErrors),
  })
  registry.counter({
    name: `${p}disconnects_total`,
    help:
      'Ended reducer sessions, by cause: peer_closed (the reducer closed the connection), socket_error (reset or other socket failure), ' +
      'peer_silent (the reducer acknowledged nothing for the silence limit, docs/behaviour.md §12), buffer_overflow (more unwritten bytes ' +
      'than the limit, docs/behaviour.md §7), shutdown (the collector stopped).',
    labelNames: ['cause'],
    collect: () => byCause(read().disconnects),
  })
  counter('messages_sent_total', 'Messages handed to the reducer socket, handshake and heartbeats included.', (s) => s.messagesSent)
  counter('raw_bytes_sent_total', 'Message bytes handed to the reducer socket before LZ4 (version_info included).', (s) => s.rawBytesSent)
  counter('wire_bytes_sent_total', 'Bytes handed to the reducer socket: version_info and the LZ4 frames (docs/protocol.md §1.4).', (s) => s.wireBytesSent)
  counter('flushes_total', 'Writes of buffered messages to the reducer socket (LZ4 blocks).', (s) => s.flushes)
  counter('shortened_messages_total', 'Messages sent with a field shortened to fit 65,536 bytes (docs/behaviour.md §9).', (s) => s.shortenedMessages)
  counter('encode_errors_total', 'Messages skipped because a field value could not be encoded.', (s) => s.encodeErrors)
  counter('dropped_messages_total', 'Messages dropped because no reducer session was up; the next session resyncs (docs/behaviour.md §7).', (s) => s.droppedWhileDisconnected)
  return registry.histogram({
    name: `${p}event_to_wire_seconds`,
    help:
      'Time from an event being handed to the link (a watch line held for its size: from when it was read, docs/behaviour.md §14) ' +
      'until the flush that wrote it to the reducer socket, seconds.',
    buckets: LATENCY_BUCKETS,
  })
}
