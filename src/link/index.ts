// The reducer link: one TCP + LZ4 session at a time to the reducer, reconnecting (docs/behaviour.md §7).
export { createReducerLink, type LinkDeps, type LinkState, type ReducerLink } from './link.ts'
export type { DisconnectReason, LinkEvent, LinkSession } from './events.ts'
export { LinkConfigError, resolveLinkConfig, type LinkConfig, type LinkOptions } from './config.ts'
export { ConnectAbortedError, systemLookup, type Lookup, type ResolvedAddress } from './connect.ts'
export {
  BackpressureError,
  ConnectError,
  connectErrorCause,
  ConnectionLostError,
  ConnectTimeoutError,
  DnsLookupError,
  PeerSilentError,
  type ConnectErrorCause,
  type DisconnectCause,
  type WaitingBytes,
} from './errors.ts'
export { KernelProbeError, type KernelProbe } from './proc-net-tcp.ts'
export { handshakeMessages, versionInfo, type HandshakeInfo } from './handshake.ts'
export { HEARTBEAT_MESSAGES } from './heartbeat.ts'
export { LATENCY_BUCKETS, type LinkPhase, type LinkStats } from './stats.ts'
