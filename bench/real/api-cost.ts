// What one collector cost kube-apiserver over a window: its requests by verb (the audit log, by
// user agent) and the bytes the server sent for the collected resources by verb (the server's
// metrics, which have no user-agent label: deltas between two scrapes while the collector runs
// alone, less a baseline without any collector where other clients read the same resources).
import type { AuditRequest } from './audit.ts'
import { countByShape, countByVerb } from './audit.ts'
import { counterDeltas, total, type Sample } from './prom-text.ts'

/** The metrics the bench scrapes (everything else of the ~20k lines is dropped at parse time). */
export const COST_METRICS: ReadonlySet<string> = new Set([
  'apiserver_request_total',
  'apiserver_response_sizes_sum',
  'apiserver_watch_events_sizes_sum',
  'apiserver_watch_events_total',
  'apiserver_flowcontrol_dispatched_requests_total',
  'apiserver_watch_list_duration_seconds_count',
  // The server's Go heap: bytes allocated since start (client_golang's Go collector; the runtime/metrics name as a fallback).
  'go_memstats_alloc_bytes_total',
  'go_gc_heap_allocs_bytes_total',
])

/**
 * Bytes kube-apiserver's Go heap allocated between two scrapes (`go_memstats_alloc_bytes_total`,
 * else `go_gc_heap_allocs_bytes_total`): NaN when neither scrape has them.
 */
export function heapAllocated(before: readonly Sample[], after: readonly Sample[]): number {
  for (const name of ['go_memstats_alloc_bytes_total', 'go_gc_heap_allocs_bytes_total']) {
    const a = before.find((x) => x.name === name)
    const b = after.find((x) => x.name === name)
    if (a && b) return b.value - a.value
  }
  return NaN
}

/** The resources a collector lists and watches. */
const COLLECTED = new Set(['pods', 'replicasets', 'jobs'])
const collected = (l: Readonly<Record<string, string>>) => COLLECTED.has(l.resource ?? '')

/** One window's cost. Byte figures are of the collected resources only. */
export interface ApiCost {
  /** From the audit log: requests of the collector by verb (`LIST`, `WATCH`, …). */
  readonly requests: Readonly<Record<string, number>>
  /** From the audit log: by `VERB resource`. */
  readonly requestsByResource: Readonly<Record<string, number>>
  /** From the audit log: by shape (path and query keys, {@link countByShape}). */
  readonly requestsByShape: Readonly<Record<string, number>>
  /** The user agents the audit log shows (`(none)`: the requests had no User-Agent header). */
  readonly userAgents: readonly string[]
  /** apiserver_request_total by verb for the collected resources (every client). */
  readonly serverRequests: Readonly<Record<string, number>>
  /** apiserver_flowcontrol_dispatched_requests_total of the collector's flow schema. */
  readonly flowSchemaRequests: number
  /** Bytes sent: `LIST`/`GET` from apiserver_response_sizes_sum, `WATCH` from apiserver_watch_events_sizes_sum. */
  readonly bytes: Readonly<Record<string, number>>
  /** apiserver_watch_events_total: events written to watches of the collected resources. */
  readonly watchEvents: number
  /**
   * Lists of the collected resources by other clients in the window (LIST requests and streaming
   * lists the server counted, less the collector's own): each one's events or bytes land in the
   * server-wide figures, which is the noise a baseline cannot remove.
   */
  readonly otherLists: number
}

/** The cost between scrapes `before` and `after`, with the audit log's requests of that window. */
export function apiCost(before: readonly Sample[], after: readonly Sample[], audit: readonly AuditRequest[], flowSchema: string): ApiCost {
  const requests: Record<string, number> = {}
  for (const r of audit) requests[r.verb] = (requests[r.verb] ?? 0) + 1
  const bytes: Record<string, number> = Object.fromEntries(counterDeltas(before, after, 'apiserver_response_sizes_sum', ['verb'], collected))
  const watchBytes = total(counterDeltas(before, after, 'apiserver_watch_events_sizes_sum', [], collected))
  if (watchBytes) bytes.WATCH = watchBytes
  return {
    requests,
    requestsByResource: countByVerb(audit),
    requestsByShape: countByShape(audit),
    userAgents: [...new Set(audit.map((r) => r.userAgent || '(none)'))].sort(),
    serverRequests: Object.fromEntries(counterDeltas(before, after, 'apiserver_request_total', ['verb'], collected)),
    flowSchemaRequests: total(counterDeltas(before, after, 'apiserver_flowcontrol_dispatched_requests_total', [], (l) => l.flow_schema === flowSchema)),
    bytes,
    watchEvents: total(counterDeltas(before, after, 'apiserver_watch_events_total', [], collected)),
    otherLists: Math.max(0,
      total(counterDeltas(before, after, 'apiserver_request_total', [], (l) => collected(l) && l.verb === 'LIST'))
      + total(counterDeltas(before, after, 'apiserver_watch_list_duration_seconds_count', [], collected))
      - audit.filter((r) => r.verb === 'LIST' || (r.verb === 'WATCH' && /[?&]sendInitialEvents=true/.test(r.uri))).length),
  }
}

/**
 * `cost` less what the other clients caused meanwhile: the server-wide figures (bytes, watch
 * events, serverRequests) of `baseline` times `scale` (the churn of the window over the churn of
 * the baseline, e.g. pods replaced), floored at 0. The audit-log and flow-schema figures are the
 * collector's own and stay as they are.
 */
export function lessBaseline(cost: ApiCost, baseline: ApiCost, scale: number): ApiCost {
  const k = scale
  const minus = (a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>) =>
    Object.fromEntries(Object.entries(a).map(([key, v]) => [key, Math.max(0, v - (b[key] ?? 0) * k)]))
  return {
    ...cost,
    serverRequests: minus(cost.serverRequests, baseline.serverRequests),
    bytes: minus(cost.bytes, baseline.bytes),
    watchEvents: Math.max(0, cost.watchEvents - baseline.watchEvents * k),
  }
}
