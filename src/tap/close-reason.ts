// Why the tap closed (or lost) a collector connection: the reducer's closing rules (docs/protocol.md §1.4)
// plus the ordinary ends of a TCP connection, as one tagged union.

/** Why a connection ended. Every kind but `peerClosed`, `socketError` and `shutdown` is a reducer rule. */
export type CloseReason =
  /** Bytes after the first message are not a valid LZ4 frame stream (docs/protocol.md §1.2). */
  | { readonly kind: 'lz4'; readonly detail: string }
  /** A message with an rpc_id the reducer does not know (docs/protocol.md §1.4). */
  | { readonly kind: 'unknownRpc'; readonly rpcId: number }
  /** A message the decoder cannot read (a `_len` shorter than its header, blob lengths past `_len`). */
  | { readonly kind: 'malformed'; readonly detail: string }
  /**
   * A message larger than 65,536 bytes (docs/protocol.md §1.3). The reducer would silently corrupt its
   * stream; the tap, being a test tool, closes and says so.
   */
  | { readonly kind: 'oversize'; readonly size: number }
  /** A message other than `version_info`/`connect` before `connect` (docs/protocol.md §1.4). */
  | { readonly kind: 'notConnected'; readonly messageType: string }
  /** `version_info` lower than 0.9.0 (docs/protocol.md §1.4). */
  | { readonly kind: 'oldVersion'; readonly version: string }
  /** No bytes received for `timeoutMs` (docs/protocol.md §1.4: 30 s). */
  | { readonly kind: 'silence'; readonly timeoutMs: number }
  /** The collector closed the connection; `trailingBytes` were left inside an unfinished message. */
  | { readonly kind: 'peerClosed'; readonly trailingBytes: number }
  /** The socket failed (reset by peer …). */
  | { readonly kind: 'socketError'; readonly detail: string }
  /** The tap itself is shutting down. */
  | { readonly kind: 'shutdown' }

export type CloseReasonKind = CloseReason['kind']

/** The lowest `version_info` the reducer accepts (docs/protocol.md §1.4). */
export const MINIMUM_VERSION = { major: 0, minor: 9, patch: 0 } as const

/** One human sentence for a close reason, as printed and as `closeReason.message` in `/state`. */
export function describeCloseReason(reason: CloseReason): string {
  switch (reason.kind) {
    case 'lz4':
      return `LZ4 error: ${reason.detail}`
    case 'unknownRpc':
      return `unknown rpc_id ${reason.rpcId}`
    case 'malformed':
      return `malformed message: ${reason.detail}`
    case 'oversize':
      return `message of ${reason.size} bytes exceeds the reducer's 65,536-byte buffer`
    case 'notConnected':
      return `${reason.messageType} before connect`
    case 'oldVersion':
      return `version ${reason.version} is lower than the minimum 0.9.0`
    case 'silence':
      return `no data for ${reason.timeoutMs} ms`
    case 'peerClosed':
      return reason.trailingBytes > 0
        ? `closed by the collector inside a message (${reason.trailingBytes} bytes left over)`
        : 'closed by the collector'
    case 'socketError':
      return `socket error: ${reason.detail}`
    case 'shutdown':
      return 'tap shutting down'
  }
}

/** Whether the reducer itself would have closed the connection for this reason. */
export function isReducerRejection(reason: CloseReason): boolean {
  switch (reason.kind) {
    case 'lz4':
    case 'unknownRpc':
    case 'malformed':
    case 'oversize':
    case 'notConnected':
    case 'oldVersion':
    case 'silence':
      return true
    case 'peerClosed':
    case 'socketError':
    case 'shutdown':
      return false
  }
}
