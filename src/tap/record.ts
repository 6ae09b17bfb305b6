// The tap's log records (`/events`, `--out` JSON lines): one per decoded message, plus one when a
// connection opens and one when it closes.
import type { IngestMessageType, TimedMessage } from '../ingest/index.ts'
import { describeCloseReason, type CloseReason } from './close-reason.ts'
import { ipJson, isoFromNs, isoTime, u64Json } from './json.ts'
import type { CloseReasonSnapshot } from './snapshot.ts'

/** A field value of a decoded message: strings, numbers (u64 as a string past 2^53), booleans. */
export type FieldValue = string | number | boolean

/** One decoded, accepted message. */
export interface MessageRecord {
  /** Position in the tap's log, from 1, across all connections. */
  readonly seq: number
  /** Connection id (from 1, in accept order). */
  readonly conn: number
  readonly type: IngestMessageType
  /** The message's timestamp, ns since the Unix epoch, as a decimal string (a u64 does not fit a JSON number). */
  readonly timestamp: string
  /** The same timestamp as ISO-8601 (ms precision); `null` if out of range. */
  readonly time: string | null
  /** When the tap decoded it. */
  readonly receivedAt: string
  /** Bytes on the decompressed wire, timestamp included. */
  readonly size: number
  /** The message's fields by their camelCase names; `ip` as a dotted string. */
  readonly fields: Readonly<Record<string, FieldValue>>
  /** `pod_container`/`pod_delete`: `namespace/name` of the pod the uid names, when the connection holds it. */
  readonly pod?: string
  /** The reducer drops this one harmlessly: a container for an unknown pod, a delete of an unknown uid. */
  readonly ignored?: true
  /** `pod_container`: the pod already has a container with this stripped id; the first report wins. */
  readonly duplicate?: true
  /** `pod_resync`: how many pods it cleared. */
  readonly podsCleared?: number
}

export interface ConnectionOpenRecord {
  readonly seq: number
  readonly conn: number
  readonly type: 'connection_open'
  readonly receivedAt: string
  readonly remote: string
}

export interface ConnectionCloseRecord {
  readonly seq: number
  readonly conn: number
  readonly type: 'connection_close'
  readonly receivedAt: string
  readonly reason: CloseReasonSnapshot
}

/** One entry of the tap's log, tagged by `type`. */
export type TapRecord = MessageRecord | ConnectionOpenRecord | ConnectionCloseRecord

/** Context the tap adds to a message record from the connection's state before applying it. */
export interface MessageContext {
  readonly pod?: string
  readonly ignored?: true
  readonly duplicate?: true
  readonly podsCleared?: number
}

/** Converts a decoded message to its record; `receivedAt` is an ISO time (shared by a chunk's messages). */
export function messageRecord(seq: number, conn: number, msg: TimedMessage, size: number, receivedAt: string, context: MessageContext): MessageRecord {
  const fields: Record<string, FieldValue> = {}
  for (const key in msg) {
    if (key === 'type' || key === 'timestamp') continue
    const v = (msg as unknown as Record<string, unknown>)[key]
    if (key === 'ip' && typeof v === 'number') fields.ip = ipJson(v)
    else if (typeof v === 'bigint') fields[key] = u64Json(v)
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[key] = v
  }
  return {
    seq,
    conn,
    type: msg.type,
    timestamp: msg.timestamp.toString(),
    time: isoFromNs(msg.timestamp),
    receivedAt,
    size,
    fields,
    ...context,
  }
}

export function openRecord(seq: number, conn: number, remote: string, nowMs: number): ConnectionOpenRecord {
  return { seq, conn, type: 'connection_open', receivedAt: isoTime(nowMs), remote }
}

export function closeRecord(seq: number, conn: number, reason: CloseReason, nowMs: number): ConnectionCloseRecord {
  return { seq, conn, type: 'connection_close', receivedAt: isoTime(nowMs), reason: { ...reason, message: describeCloseReason(reason) } }
}
