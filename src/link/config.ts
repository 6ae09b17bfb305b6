// The reducer link's configuration: every duration and limit with its default in one place
// (docs/behaviour.md §7, docs/protocol.md §6); tests shrink the durations to milliseconds.
import { availableParallelism, cpus } from 'node:os'
import type { HandshakeInfo } from './handshake.ts'

export interface LinkConfig extends HandshakeInfo {
  /** Reducer host: an IP address or a DNS name (resolved on every attempt). */
  readonly host: string
  /** Reducer port (the reducer's default is 8000). */
  readonly port: number
  /** heartbeat + collector_health period, ms. Default 2,000 (the reducer drops a connection silent for 30 s). */
  readonly heartbeatIntervalMs: number
  /** Longest time a message waits before being flushed, ms. Default 100. */
  readonly flushDelayMs: number
  /** Flush as soon as this many uncompressed bytes are pending. Default 61,440 (~60 KiB). A flush is also made before a message that would take it past one 64 KiB LZ4 block. */
  readonly flushBytes: number
  /** Limit for resolving + connecting one attempt, ms. Default 10,000. */
  readonly connectTimeoutMs: number
  /** First reconnect delay ceiling, ms. Default 1,000. */
  readonly backoffInitialMs: number
  /** Largest reconnect delay ceiling, ms. Default 30,000. */
  readonly backoffMaxMs: number
  /** A session that stayed up this long resets the backoff, ms. Default 120,000. */
  readonly backoffResetAfterMs: number
  /**
   * Drop the connection when the reducer has acknowledged nothing for this long while bytes wait,
   * ms (docs/behaviour.md §7, docs/dead-links.md). Checked at every heartbeat. Default 20,000.
   */
  readonly peerSilentMs: number
  /** Drop the connection when more than this many bytes wait to be written (checked at every heartbeat). Default 16 MiB. */
  readonly maxBufferedBytes: number
  /** How long a clean shutdown waits for the socket to close before destroying it, ms. Default 2,000. */
  readonly closeTimeoutMs: number
}

/** Required fields; everything else defaults (see {@link LinkConfig}). */
export type LinkOptions = Pick<LinkConfig, 'host' | 'port' | 'hostname'> & Partial<Omit<LinkConfig, 'host' | 'port' | 'hostname'>>

/** A link configuration value is out of range. */
export class LinkConfigError extends Error {
  override name = 'LinkConfigError'
}

function cpuCount(): number {
  try {
    return typeof availableParallelism === 'function' ? availableParallelism() : Math.max(1, cpus().length)
  } catch {
    return 1
  }
}

/** Fills in the defaults and validates; throws {@link LinkConfigError}. */
export function resolveLinkConfig(opts: LinkOptions): LinkConfig {
  const config: LinkConfig = {
    labels: [],
    cpuCores: cpuCount(),
    version: { major: 0, minor: 11, patch: 0 },
    heartbeatIntervalMs: 2_000,
    flushDelayMs: 100,
    flushBytes: 60 * 1024,
    connectTimeoutMs: 10_000,
    backoffInitialMs: 1_000,
    backoffMaxMs: 30_000,
    backoffResetAfterMs: 120_000,
    peerSilentMs: 20_000,
    maxBufferedBytes: 16 * 1024 * 1024,
    closeTimeoutMs: 2_000,
    ...stripUndefined(opts),
    host: opts.host,
    port: opts.port,
    hostname: opts.hostname,
  }
  if (!config.host) throw new LinkConfigError('the reducer host is empty')
  if (!Number.isInteger(config.port) || config.port < 1 || config.port > 65_535) throw new LinkConfigError(`reducer port ${config.port} is not in 1…65535`)
  const positive = ['heartbeatIntervalMs', 'flushBytes', 'connectTimeoutMs', 'backoffMaxMs', 'peerSilentMs', 'maxBufferedBytes'] as const
  for (const key of positive) {
    if (!(config[key] > 0)) throw new LinkConfigError(`${key} must be > 0 (got ${config[key]})`)
  }
  for (const key of ['flushDelayMs', 'backoffInitialMs', 'backoffResetAfterMs', 'closeTimeoutMs'] as const) {
    if (!(config[key] >= 0)) throw new LinkConfigError(`${key} must be ≥ 0 (got ${config[key]})`)
  }
  if (!Number.isInteger(config.cpuCores) || config.cpuCores < 0 || config.cpuCores > 0xffffffff) {
    throw new LinkConfigError(`cpuCores ${config.cpuCores} is not a u32`)
  }
  return config
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
