// One WATCH request (or streaming list, which is a watch): framing, parsing and converting each
// line as it arrives (docs/kube-api.md "WATCH", "Streaming lists"). Lines are framed as bytes;
// resources with a byte-level scanner (pods) scan them, the others decode and JSON.parse them.
// Lines of 64 KiB or more wait in a held queue (fair-order.ts) while others are waiting.
import { systemClock, type Clock } from '../util/clock.ts'
import type { KubeClient } from './client.ts'
import { KubeDecodeError, KubeInitialEventsTimeoutError, KubeTransportError } from './errors.ts'
import { EventUidReader } from './event-uid.ts'
import { FAIR_ORDER_LIMITS, FairOrder, type FairOrderLimits, type FairOrderStats } from './fair-order.ts'
import { ByteFrameFramer } from './frames.ts'
import { ByteLineFramer, lineText } from './lines.ts'
import { isProtobuf, type ProtoScanner } from './pod-proto.ts'
import { ProtoDecodeError } from './proto-wire.ts'
import { acceptOf, type KubeObject, type ResourceSpec } from './resources.ts'
import { JsonScanError } from './json-skip.ts'
import type { ByteScanner, ScannedLine } from './pod-scanner.ts'
import type { WatchItem } from './watch-item.ts'
import { responseError, statusError } from './status.ts'
import { startWatchdog, type Watchdog } from './watchdog.ts'

export type { WatchItem } from './watch-item.ts'

/** The parameters of one watch request. */
export interface WatchRequest {
  /** Start after this revision; unset for a streaming list (resourceVersionMatch=NotOlderThan, RV unset). */
  readonly resourceVersion?: string
  /** Ask for a streaming list: `sendInitialEvents=true&resourceVersionMatch=NotOlderThan`. */
  readonly streamingList: boolean
  /** `timeoutSeconds`: the server ends the body cleanly after this long. */
  readonly timeoutSeconds: number
  /**
   * No bytes for this long → torn down, KubeIdleTimeoutError (the silence rule, docs/behaviour.md §12).
   * It must exceed `timeoutSeconds`: a live server ends the body then.
   */
  readonly idleTimeoutMs: number
  /** Streaming list only: no initial event and no end bookmark for this long → KubeInitialEventsTimeoutError. */
  readonly initialEventsTimeoutMs?: number
  readonly signal?: AbortSignal
  /** The clock of both timeouts, of a `Retry-After` date and of held lines' waits. Default: the system clock. */
  readonly clock?: Clock
  /**
   * When a line is held apart for its size (fair-order.ts, docs/behaviour.md §14 "Large lines").
   * Default {@link FAIR_ORDER_LIMITS}; `stats` counts held lines.
   */
  readonly largeLines?: { readonly limits?: FairOrderLimits; readonly stats?: FairOrderStats }
}

/** An open watch body. It closes itself at the end, on any error, or by `close()`. */
export interface WatchConnection<T> {
  /** The next item; null at the clean end of the body. Rejects with a KubeError (then it is closed). */
  next(): Promise<WatchItem<T> | null>
  close(): void
  /** Non-empty lines received so far. */
  readonly lines: number
}

type Json = Record<string, unknown>
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end'
const IDLE = Symbol('idle')

/**
 * Resolves after a timer turn (≥ 1 ms): a read still pending then has nothing waiting. One
 * `setImmediate` turn is too short on Deno, whose reads take more than one turn to resolve even
 * with bytes waiting (bench/README.md, issue 22). Not the injected clock: this is about the event
 * loop, not time.
 */
function idle(): Promise<typeof IDLE> {
  return new Promise((resolve) => setTimeout(resolve, 0, IDLE))
}

function metadataOf(obj: unknown): Json | undefined {
  const m = typeof obj === 'object' && obj !== null ? (obj as Json).metadata : undefined
  return typeof m === 'object' && m !== null ? (m as Json) : undefined
}

/** A bounded description of a `type` that is not one of ours (it may be a 1 MB string or an array nested a million deep). */
function describeType(type: unknown): string {
  if (typeof type === 'string') return JSON.stringify(type.length > 60 ? `${type.slice(0, 60)}…` : type)
  if (typeof type === 'object' && type !== null) return Array.isArray(type) ? 'an array' : 'an object'
  return String(type)
}

function rvOf(obj: unknown): string {
  const rv = metadataOf(obj)?.resourceVersion
  return typeof rv === 'string' ? rv : ''
}

/**
 * Opens a watch on `spec`'s collection. Throws a KubeApiError for a non-200 status (422 for an
 * unsupported streaming list, 410 for a too-old RV on some servers, 403/404/429/5xx).
 */
export async function openWatch<T extends KubeObject>(
  client: KubeClient,
  spec: ResourceSpec<T>,
  req: WatchRequest,
): Promise<WatchConnection<T>> {
  let query = `?watch=1&allowWatchBookmarks=true&timeoutSeconds=${req.timeoutSeconds}`
  if (req.streamingList) query += '&sendInitialEvents=true&resourceVersionMatch=NotOlderThan'
  if (req.resourceVersion) query += `&resourceVersion=${encodeURIComponent(req.resourceVersion)}`
  const clock = req.clock ?? systemClock
  const what = req.streamingList
    ? `${spec.name} streaming list (timeoutSeconds ${req.timeoutSeconds})`
    : `${spec.name} watch from resourceVersion ${req.resourceVersion ?? ''} (timeoutSeconds ${req.timeoutSeconds})`
  const accept = acceptOf(spec, client.encoding, spec.watchAccept)
  const res = await client.get(spec.path + query, { accept, signal: req.signal, idleTimeoutMs: req.idleTimeoutMs, what, clock, bulk: req.streamingList })
  if (res.status !== 200) throw await responseError(res, clock.now())

  // Lines framed as bytes: scanned without decoding (pod-scanner.ts) when the resource has a scanner, else decoded and JSON.parsed;
  // a protobuf body (pods, when asked for) is length-prefixed frames read by the resource's protobuf reader.
  const scanner = spec.scan
  const proto = spec.proto !== undefined && isProtobuf(res.header('content-type')) ? spec.proto : undefined
  const bytes = proto ? new ByteFrameFramer() : new ByteLineFramer()
  let lines = 0
  let initialDog: Watchdog | undefined
  if (req.streamingList && req.initialEventsTimeoutMs !== undefined) {
    const ms = req.initialEventsTimeoutMs
    initialDog = startWatchdog(clock, ms, () =>
      res.close(new KubeInitialEventsTimeoutError(`${spec.name}: no initial event and no end bookmark for ${ms} ms`)),
    )
  }
  const close = (): void => {
    initialDog?.stop()
    res.close()
  }

  const parse = (line: string): WatchItem<T> => {
    let ev: Json
    try {
      ev = JSON.parse(line) as Json
    } catch (err) {
      throw new KubeDecodeError(`${spec.name} watch: malformed line (${line.length} chars, ${JSON.stringify(line.slice(0, 60))}…): ${(err as Error).message}`)
    }
    const obj = ev?.object
    switch (ev?.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        initialDog?.kick()
        const meta = spec.convert(obj, false)
        return { type: ev.type, object: meta, resourceVersion: meta !== undefined ? meta.resourceVersion : rvOf(obj) }
      }
      case 'BOOKMARK': {
        const annotations = metadataOf(obj)?.annotations as Json | undefined
        const initialEventsEnd = annotations?.[INITIAL_EVENTS_END] === 'true'
        if (initialEventsEnd) initialDog?.stop()
        return { type: 'BOOKMARK', resourceVersion: rvOf(obj), initialEventsEnd }
      }
      case 'ERROR':
        return { type: 'ERROR', error: statusError(obj, 500, { inStream: true }) }
      default:
        throw new KubeDecodeError(`${spec.name} watch: unknown event type ${describeType(ev?.type)}`)
    }
  }

  /** The line `buf[start, end)`: scanned; BOOKMARK, ERROR and unknown types take the JSON.parse path. */
  const scanLine = (buf: Uint8Array, start: number, end: number, scan: ByteScanner<T>): WatchItem<T> => {
    let line: ScannedLine<T>
    try {
      line = scan.watchLine(buf, start, end)
    } catch (err) {
      // Anything else (a string past the engine's length limit, a bug) is this line's failure too.
      if (!(err instanceof JsonScanError)) throw new KubeDecodeError(`${spec.name} watch: line of ${end - start} bytes cannot be read: ${String(err)}`, { cause: err })
      // JSON.parse gives the error (and its usual message); should it accept the line, its result stands, counted.
      const item = parse(lineText(buf, start, end))
      scan.stats.fallbacks++
      return item
    }
    const type = line.type
    if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') {
      initialDog?.kick()
      return { type, object: line.object, resourceVersion: line.object !== undefined ? line.object.resourceVersion : line.resourceVersion }
    }
    scan.stats.parsedLines++
    return parse(lineText(buf, start, end))
  }

  /** The protobuf frame `buf[start, end)` (docs/kube-api.md "Protobuf responses"). */
  const frameItem = (buf: Uint8Array, start: number, end: number, reader: ProtoScanner<T>): WatchItem<T> => {
    let f
    try {
      f = reader.frame(buf, start, end)
    } catch (err) {
      const why = err instanceof ProtoDecodeError ? err.message : String(err)
      throw new KubeDecodeError(`${spec.name} watch: protobuf frame of ${end - start} bytes cannot be read: ${why}`, { cause: err })
    }
    switch (f.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
        initialDog?.kick()
        return { type: f.type, object: f.object, resourceVersion: f.object !== undefined ? f.object.resourceVersion : f.resourceVersion }
      case 'BOOKMARK':
        if (f.initialEventsEnd) initialDog?.stop()
        return { type: 'BOOKMARK', resourceVersion: f.resourceVersion, initialEventsEnd: f.initialEventsEnd }
      case 'ERROR':
        return { type: 'ERROR', error: statusError(f.status, 500, { inStream: true }) }
      default:
        throw new KubeDecodeError(`${spec.name} watch: unknown event type ${describeType(f.type)}`)
    }
  }

  // A line far larger than an ordinary object is held and converted when the input is idle (fair-order.ts).
  const uids = new EventUidReader()
  const order = new FairOrder<T>(
    {
      item: proto
        ? (buf, start, end) => frameItem(buf, start, end, proto)
        : scanner
          ? (buf, start, end) => scanLine(buf, start, end, scanner)
          : (buf, start, end) => parse(lineText(buf, start, end)),
      eventUid: proto ? (buf, start, end) => proto.frameUid(buf, start, end) : (buf, start, end) => uids.read(buf, start, end),
      uidOf: (object) => object.uid,
    },
    clock,
    req.largeLines?.limits ?? FAIR_ORDER_LIMITS,
    req.largeLines?.stats,
  )
  /** A read started while held lines were served; the body's end (null) or failure is kept until they are through. */
  let pending: Promise<Uint8Array | null> | undefined
  let ended: { readonly error: unknown } | null | undefined

  const next = async (): Promise<WatchItem<T> | null> => {
    for (;;) {
      if (order.due) return order.serve()
      while (bytes.next()) {
        const n = bytes.end - bytes.start
        if (n === 0 || (proto === undefined && n === 1 && bytes.buf[bytes.start] === 13)) continue
        lines++
        const item = order.offer(bytes.buf, bytes.start, bytes.end)
        if (item !== undefined) return item
        if (order.due) return order.serve()
      }
      let chunk: Uint8Array | null
      if (ended !== undefined) {
        // The body is over: the held lines first, then its end or failure.
        if (order.holding) return order.serve()
        if (ended !== null) throw ended.error
        chunk = null
      } else if (order.holding) {
        // Held lines are served while the input has nothing waiting.
        pending ??= res.read()
        let got: Uint8Array | null | typeof IDLE
        try {
          got = await Promise.race([pending, idle()])
        } catch (error) {
          pending = undefined
          ended = { error }
          continue
        }
        if (got === IDLE) return order.serve()
        pending = undefined
        if (got === null) {
          ended = null
          continue
        }
        chunk = got
      } else {
        const read = pending ?? res.read()
        pending = undefined
        chunk = await read
      }
      if (chunk === null) {
        close()
        const rest = bytes.rest()
        if (proto !== undefined && rest !== '') throw new KubeTransportError(`${spec.name} watch: body ended inside a frame (${rest})`)
        if (rest.trim() !== '') throw new KubeTransportError(`${spec.name} watch: body ended inside a line`)
        return null
      }
      bytes.push(chunk)
    }
  }

  return {
    async next() {
      try {
        return await next()
      } catch (err) {
        close()
        throw err
      }
    },
    close,
    get lines() {
      return lines
    },
  }
}
