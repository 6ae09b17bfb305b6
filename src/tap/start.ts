// `startTap`: the reducer-compatible sink as a library — TCP listener, optional HTTP API, optional
// JSON-lines file, live record stream. The CLI, the e2e suites, the demo and the benchmarks use it.
import { logger } from '../observe/log.ts'
import { describeCloseReason, isReducerRejection } from './close-reason.ts'
import { followLog, type EventPage } from './event-log.ts'
import { listenHttp, type HttpListener } from './http-server.ts'
import { createTapHub, type TapState } from './hub.ts'
import { openJsonlFile, type JsonlFile } from './jsonl-file.ts'
import type { TapRecord } from './record.ts'
import type { ConnectionSnapshot } from './snapshot.ts'
import { listenTcp } from './tcp-server.ts'

/** A `host` + `port` to listen on; port 0 = an ephemeral port (read the bound one from the {@link Tap}). */
export interface ListenAddress {
  readonly host: string
  readonly port: number
}

export interface TapOptions {
  /** Where collectors connect (the reducer's ingest port; the CLI defaults to 0.0.0.0:8000). */
  readonly listen: ListenAddress
  /** The HTTP API (`/state`, `/events`, `/healthz`); none when unset. */
  readonly http?: ListenAddress
  /** Write every record to this file as JSON lines (truncated at start). */
  readonly out?: string
  /** Close a connection after this long without a byte. Default 30,000 ms (docs/protocol.md §1.4). */
  readonly silenceTimeoutMs?: number
  /** Records kept in memory for `/events` (oldest dropped first). Default 100,000. */
  readonly maxEvents?: number
  /** Closed connections kept in `/state` (oldest dropped first). Default 1,000. */
  readonly maxClosedConnections?: number
  /** Called synchronously with every record as it is logged. Must not throw. */
  readonly onRecord?: (record: TapRecord) => void
}

/** Defaults of {@link TapOptions}, in one place. */
export const TAP_DEFAULTS = {
  silenceTimeoutMs: 30_000,
  maxEvents: 100_000,
  maxClosedConnections: 1_000,
} as const

export interface Tap {
  /** The bound TCP port. */
  readonly tcpPort: number
  /** The bound HTTP port; undefined without `http`. */
  readonly httpPort: number | undefined
  /** Everything `/state` returns. */
  state(): TapState
  /** One connection as in `/state` (open, or closed and still listed), by id. */
  connection(id: number): ConnectionSnapshot | undefined
  /** Id of the newest connection from `remote` (`address:port`, as in `/state`). */
  connectionFrom(remote: string): number | undefined
  /** A page of the log: records with `seq > since` (default 0), at most `limit` (default 1,000). */
  events(since?: number, limit?: number): EventPage
  /**
   * The records after `since` (default 0: everything still held), then live ones as they come,
   * until `signal` aborts, or the tap closes (the records logged until then are still yielded).
   */
  records(opts?: { readonly since?: number; readonly signal?: AbortSignal }): AsyncIterable<TapRecord>
  /** Closes every connection (reason `shutdown`), both listeners and the file. Idempotent. */
  close(): Promise<void>
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`)
  return value
}

/** Starts the tap; resolves once both listeners are bound and the file is open. */
export async function startTap(opts: TapOptions): Promise<Tap> {
  // Tagged here, not at import: a consola child copies the level and reporters of the moment.
  const log = logger.withTag('tap')
  const silenceTimeoutMs = positive('silenceTimeoutMs', opts.silenceTimeoutMs, TAP_DEFAULTS.silenceTimeoutMs)
  const maxEvents = Math.floor(positive('maxEvents', opts.maxEvents, TAP_DEFAULTS.maxEvents))
  const maxClosedConnections = Math.floor(positive('maxClosedConnections', opts.maxClosedConnections, TAP_DEFAULTS.maxClosedConnections))

  let file: JsonlFile | undefined
  if (opts.out !== undefined) file = await openJsonlFile(opts.out, (err) => log.error(err.message))
  const onRecord = opts.onRecord
  const hub = createTapHub({
    maxEvents,
    maxClosedConnections,
    now: Date.now,
    sink:
      file || onRecord
        ? (record) => {
            file?.write(record)
            onRecord?.(record)
          }
        : undefined,
  })

  let http: HttpListener | undefined
  const tcp = await listenTcp({
    host: opts.listen.host,
    port: opts.listen.port,
    silenceTimeoutMs,
    hub,
    onOpen: (conn) => log.debug(`#${conn.id} connection from ${conn.remote}`),
    onClose: (conn, reason) => {
      const text = `#${conn.id} ${conn.remote} closed: ${describeCloseReason(reason)}`
      if (isReducerRejection(reason)) log.warn(text)
      else log.debug(text)
    },
  }).catch(async (err: unknown) => {
    await file?.close()
    throw err
  })
  try {
    if (opts.http) http = await listenHttp({ host: opts.http.host, port: opts.http.port, hub })
  } catch (err) {
    await tcp.close()
    await file?.close()
    throw err
  }

  const stopped = new AbortController()
  let closing: Promise<void> | undefined

  return {
    tcpPort: tcp.port,
    httpPort: http?.port,
    state: () => hub.state(),
    connection: (id) => hub.connection(id),
    connectionFrom: (remote) => hub.connectionFrom(remote),
    events: (since = 0, limit = 1000) => hub.log.page(since, limit),
    records(o = {}) {
      return { [Symbol.asyncIterator]: () => followLog(hub.log, o.since ?? 0, { signal: o.signal, finished: stopped.signal }) }
    },
    close() {
      closing ??= (async () => {
        await tcp.close()
        await http?.close()
        stopped.abort()
        await file?.close()
      })()
      return closing
    },
  }
}
