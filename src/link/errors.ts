// The link's error types, one per failure site (style.md §7); all are retryable: the link backs off
// and reconnects (docs/behaviour.md §7).

/** Why a connection attempt failed, as counted in the stats and metrics. */
export type ConnectErrorCause = 'dns' | 'timeout' | 'refused' | 'unreachable' | 'other'

/** Why an established connection ended. */
export type DisconnectCause = 'peer_closed' | 'socket_error' | 'peer_silent' | 'buffer_overflow' | 'shutdown'

/** The reducer host name did not resolve (docs/protocol.md §1.1: retryable, never a crash). */
export class DnsLookupError extends Error {
  override name = 'DnsLookupError'
  constructor(
    readonly host: string,
    cause: unknown,
  ) {
    super(`cannot resolve ${host}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
}

/** The TCP connection could not be opened (refused, unreachable …); `code` is the system error code. */
export class ConnectError extends Error {
  override name = 'ConnectError'
  readonly code: string | undefined
  constructor(target: string, cause: unknown) {
    super(`cannot connect to ${target}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.code = (cause as { code?: unknown } | null)?.code as string | undefined
  }
}

/** Resolving and connecting took longer than the connect timeout. */
export class ConnectTimeoutError extends Error {
  override name = 'ConnectTimeoutError'
  constructor(target: string, timeoutMs: number) {
    super(`connecting to ${target} timed out after ${timeoutMs} ms`)
  }
}

/** An established connection was closed by the reducer or failed. */
export class ConnectionLostError extends Error {
  override name = 'ConnectionLostError'
}

/** The reducer does not read fast enough: more bytes wait to be written than the limit. */
export class BackpressureError extends Error {
  override name = 'BackpressureError'
}

/** Where the bytes not acknowledged by the reducer wait, in bytes. */
export interface WaitingBytes {
  /** In the kernel's send queue (0 when the kernel's view is not available). */
  readonly kernel: number
  /** In the socket's user-space buffer. */
  readonly socket: number
  /** Estimated, as messages not yet encoded. */
  readonly queue: number
}

/** The reducer acknowledged nothing for the silence limit while bytes waited (docs/behaviour.md §7). */
export class PeerSilentError extends Error {
  override name = 'PeerSilentError'
  constructor(
    /** Time since the acknowledged bytes last moved, ms. */
    readonly silentMs: number,
    readonly waiting: WaitingBytes,
    /** `socket`: the kernel's view was not available; what counted was what the kernel took. */
    readonly source: 'kernel' | 'socket',
  ) {
    const what = source === 'kernel' ? 'the reducer acknowledged nothing' : 'the socket took nothing (the kernel\'s view is not available)'
    super(
      `${what} for ${(silentMs / 1000).toFixed(1)} s: ${waiting.kernel} bytes wait in the kernel, ${waiting.socket} in the socket, ${waiting.queue} in the queue`,
    )
  }
}

const UNREACHABLE = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'ENETDOWN', 'EHOSTDOWN'])

/** Classifies a connection attempt's failure for the stats. */
export function connectErrorCause(err: unknown): ConnectErrorCause {
  if (err instanceof DnsLookupError) return 'dns'
  if (err instanceof ConnectTimeoutError) return 'timeout'
  if (err instanceof ConnectError) {
    if (err.code === 'ECONNREFUSED') return 'refused'
    if (err.code === 'ETIMEDOUT') return 'timeout'
    if (err.code && UNREACHABLE.has(err.code)) return 'unreachable'
  }
  return 'other'
}
