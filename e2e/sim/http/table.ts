// Server-side printing (`Accept: …;as=Table`), as kubectl get requests it: per-kind columns, one row per object.
import type { Entry } from '../store/entry.ts'

interface Column {
  name: string
  type: 'string' | 'integer' | 'date'
  format?: string
  priority?: number
  cell: (o: any, now: number) => string | number
}

const name: Column = { name: 'Name', type: 'string', format: 'name', cell: (o) => o.metadata.name }
const age: Column = { name: 'Age', type: 'string', cell: (o, now) => humanAge(o.metadata.creationTimestamp, now) }

const COLUMNS: Record<string, Column[]> = {
  Pod: [
    name,
    { name: 'Ready', type: 'string', cell: (o) => `${(o.status?.containerStatuses ?? []).filter((c: any) => c.ready).length}/${o.spec?.containers?.length ?? 0}` },
    { name: 'Status', type: 'string', cell: podStatus },
    { name: 'Restarts', type: 'string', cell: (o) => String((o.status?.containerStatuses ?? []).reduce((n: number, c: any) => n + (c.restartCount ?? 0), 0)) },
    age,
    { name: 'IP', type: 'string', priority: 1, cell: (o) => o.status?.podIP ?? '<none>' },
    { name: 'Node', type: 'string', priority: 1, cell: (o) => o.spec?.nodeName ?? '<none>' },
  ],
  Deployment: [
    name,
    { name: 'Ready', type: 'string', cell: (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}` },
    { name: 'Up-to-date', type: 'integer', cell: (o) => o.status?.updatedReplicas ?? 0 },
    { name: 'Available', type: 'integer', cell: (o) => o.status?.availableReplicas ?? 0 },
    age,
  ],
  ReplicaSet: [
    name,
    { name: 'Desired', type: 'integer', cell: (o) => o.spec?.replicas ?? 0 },
    { name: 'Current', type: 'integer', cell: (o) => o.status?.replicas ?? 0 },
    { name: 'Ready', type: 'integer', cell: (o) => o.status?.readyReplicas ?? 0 },
    age,
  ],
  Job: [
    name,
    { name: 'Status', type: 'string', cell: (o) => (o.status?.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True') ? 'Complete' : 'Running' },
    { name: 'Completions', type: 'string', cell: (o) => `${o.status?.succeeded ?? 0}/${o.spec?.completions ?? 1}` },
    age,
  ],
  Namespace: [name, { name: 'Status', type: 'string', cell: (o) => o.status?.phase ?? '' }, age],
  Lease: [name, { name: 'Holder', type: 'string', cell: (o) => o.spec?.holderIdentity ?? '' }, age],
  // printEvent: times fall back from lastTimestamp to firstTimestamp to eventTime, a series overrides both.
  Event: [
    { name: 'Last Seen', type: 'string', cell: (o, now) => o.series ? humanAge(o.series.lastObservedTime, now) : humanAge(o.lastTimestamp ?? o.firstTimestamp ?? o.eventTime, now) },
    { name: 'Type', type: 'string', cell: (o) => o.type ?? '' },
    { name: 'Reason', type: 'string', cell: (o) => o.reason ?? '' },
    { name: 'Object', type: 'string', cell: (o) => `${String(o.involvedObject?.kind ?? '').toLowerCase()}${o.involvedObject?.name ? '/' + o.involvedObject.name : ''}` },
    { name: 'Subobject', type: 'string', priority: 1, cell: (o) => o.involvedObject?.fieldPath ?? '' },
    { name: 'Source', type: 'string', priority: 1, cell: eventSource },
    { name: 'Message', type: 'string', cell: (o) => String(o.message ?? '').trim() },
    { name: 'First Seen', type: 'string', priority: 1, cell: (o, now) => humanAge(o.firstTimestamp ?? o.eventTime, now) },
    { name: 'Count', type: 'string', priority: 1, cell: (o) => o.series ? o.series.count : o.count || 1 },
    { name: 'Name', type: 'string', priority: 1, format: 'name', cell: (o) => o.metadata.name },
  ],
  Node: [
    name,
    { name: 'Status', type: 'string', cell: (o) => (o.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True') ? 'Ready' : 'NotReady' },
    { name: 'Roles', type: 'string', cell: () => '<none>' },
    age,
    { name: 'Version', type: 'string', cell: (o) => o.status?.nodeInfo?.kubeletVersion ?? '' },
  ],
}

/** A `meta.k8s.io/v1` Table of the entries (rows carry PartialObjectMetadata, the server default). */
export function renderTable(kind: string, entries: readonly Entry[], listMeta: Record<string, unknown>): string {
  const columns = COLUMNS[kind] ?? [name, age]
  const now = Date.now()
  const columnDefinitions = columns.map((c) => ({
    name: c.name, type: c.type, format: c.format ?? '', description: c.name, priority: c.priority ?? 0,
  }))
  const rows = entries.map((e) => ({
    cells: columns.map((c) => c.cell(e.obj, now)),
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: e.obj.metadata },
  }))
  return JSON.stringify({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, columnDefinitions, rows })
}

/** formatEventSource: the component (or reporting controller), then the host (or reporting instance). */
function eventSource(o: any): string {
  const component = o.source?.component || o.reportingComponent || ''
  const host = o.source?.host || o.reportingInstance || ''
  return host ? `${component}, ${host}` : component
}

function podStatus(o: any): string {
  if (o.metadata.deletionTimestamp) return 'Terminating'
  const waiting = (o.status?.containerStatuses ?? []).find((c: any) => c.state?.waiting)
  if (waiting) return waiting.state.waiting.reason ?? 'Waiting'
  if (o.status?.phase === 'Succeeded') return 'Completed'
  return o.status?.phase ?? 'Unknown'
}

/** kubectl's short duration: 45s, 3m20s, 5h, 2d3h … */
export function humanAge(created: string | undefined, now: number): string {
  if (!created) return '<unknown>'
  const s = Math.max(0, Math.floor((now - Date.parse(created)) / 1000))
  if (s < 120) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`
  if (m < 180) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 48) return m % 60 && h < 8 ? `${h}h${m % 60}m` : `${h}h`
  const d = Math.floor(h / 24)
  return h % 24 && d < 8 ? `${d}d${h % 24}h` : `${d}d`
}
