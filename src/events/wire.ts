// Event objects and series updates as the API server takes them, through events.k8s.io/v1 or, where
// that group is not served, core/v1 (docs/events.md "On the wire").
import { formatMicroTime } from '../lease/index.ts'
import type { EventSpec } from './types.ts'

/** The API group/version events are written through. */
export type EventsApi = 'events.k8s.io/v1' | 'v1'

/** `reportingController` (events.k8s.io) / `reportingComponent` (core/v1). */
export const REPORTING_CONTROLLER = 'k8s-collector'

// pkg/apis/core/validation/events.go: note/message, reportingInstance (characters, counted as bytes).
const NOTE_LIMIT = 1024
const INSTANCE_LIMIT = 128
const NAME_LIMIT = 253

/** An object to create: the spec, its name and its series so far. */
export interface EventObject {
  readonly spec: EventSpec
  readonly name: string
  /** ms: the first observation. */
  readonly firstAt: number
  /** ≥ 1; from 2 on the object carries a series. */
  readonly count: number
  /** ms: the last observation. */
  readonly lastAt: number
}

type Json = Record<string, unknown>

/** The collection path of events in `namespace` through `api` (append `/name` for one). */
export function eventsPath(api: EventsApi, namespace: string): string {
  const root = api === 'v1' ? '/api/v1' : '/apis/events.k8s.io/v1'
  return `${root}/namespaces/${encodeURIComponent(namespace)}/events`
}

/**
 * The body of the POST that creates `ev`. events.k8s.io/v1: eventTime and series as MicroTime, no
 * deprecated* field (the server refuses them). core/v1: the same fields under their core names plus
 * count, first/lastTimestamp and source, which older kubectl versions read.
 */
export function createBody(api: EventsApi, ev: EventObject, reportingInstance: string): Json {
  const s = ev.spec
  const metadata = { name: ev.name, namespace: s.regarding.namespace }
  const instance = truncateBytes(reportingInstance, INSTANCE_LIMIT)
  const note = truncateBytes(s.note, NOTE_LIMIT)
  const series = ev.count >= 2 ? { series: seriesOf(ev.count, ev.lastAt) } : {}
  if (api === 'events.k8s.io/v1') {
    return {
      apiVersion: api, kind: 'Event', metadata, eventTime: micro(ev.firstAt),
      reportingController: REPORTING_CONTROLLER, reportingInstance: instance,
      action: s.action, reason: s.reason, regarding: s.regarding, note, type: s.type, ...series,
    }
  }
  return {
    apiVersion: api, kind: 'Event', metadata, eventTime: micro(ev.firstAt),
    reportingComponent: REPORTING_CONTROLLER, reportingInstance: instance,
    action: s.action, reason: s.reason, involvedObject: s.regarding, message: note, type: s.type, ...series,
    source: { component: REPORTING_CONTROLLER },
    firstTimestamp: seconds(ev.firstAt), lastTimestamp: seconds(ev.lastAt), count: ev.count,
  }
}

/** The merge patch that updates a series to `count` (≥ 2) observations, the last at `lastAt` ms. */
export function seriesPatch(api: EventsApi, count: number, lastAt: number): Json {
  // events.k8s.io: only the series may change after create.
  if (api === 'events.k8s.io/v1') return { series: seriesOf(count, lastAt) }
  return { series: seriesOf(count, lastAt), count, lastTimestamp: seconds(lastAt) }
}

/**
 * A new object's name: `<regarding name>.<hex>` as client-go writes it, the hex from the time and a
 * sequence number (unique within the process, and across restarts by the time), within 253 characters.
 */
export function eventName(regardingName: string, nowMs: number, seq: number): string {
  const suffix = (BigInt(Math.floor(nowMs)) * 1_000_000n + BigInt(seq % 1_000_000)).toString(16)
  const prefix = regardingName.slice(0, NAME_LIMIT - suffix.length - 1).replace(/[-.]+$/, '')
  return `${prefix}.${suffix}`
}

const seriesOf = (count: number, lastAt: number) => ({ count, lastObservedTime: micro(lastAt) })

/** MicroTime: six fractional digits; Date.toISOString()'s three are refused. */
const micro = (ms: number): string => formatMicroTime(Math.floor(ms) * 1000)

/** metav1.Time: whole seconds. */
const seconds = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`

/** `text` cut to at most `limit` UTF-8 bytes, on a character boundary. */
function truncateBytes(text: string, limit: number): string {
  const bytes = new TextEncoder().encode(text)
  if (bytes.length <= limit) return text
  let end = limit
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return new TextDecoder().decode(bytes.subarray(0, end))
}
