// The reducer link: one TCP + LZ4 session at a time to the reducer, reconnecting (docs/behaviour.md §7).
export { createReducerLink, type LinkDeps, type LinkState, type ReducerLink } from './link.ts'
export { LinkConfigError, resolveLinkConfig, type DisconnectReason, type LinkConfig, type LinkOptions, type SessionInfo } from './config.ts'
export { ConnectAbortedError, systemLookup, type Lookup, type ResolvedAddress } from './connect.ts'
export {
  BackpressureError,
  ConnectError,
  connectErrorCause,
  ConnectionLostError,
  ConnectTimeoutError,
  DnsLookupError,
  type ConnectErrorCause,
  type DisconnectCause,
} from './errors.ts'
export { backoffDelay, type BackoffPolicy } from './backoff.ts'
export { handshakeMessages, HEARTBEAT_MESSAGES, versionInfo, type HandshakeInfo } from './handshake.ts'
export { LATENCY_BUCKETS, type LinkPhase, type LinkStats } from './stats.ts'
