// Label and field selectors: the query-string forms (`a=b,c!=d,e in (x,y),!f`) and LabelSelector objects.
import { errors } from './errors.ts'
import type { KubeObject } from '../store/entry.ts'
import type { ResourceInfo } from './resources.ts'

/** A compiled selector: true when the object matches. */
export type Selector = (obj: KubeObject) => boolean

type Requirement = { key: string; op: 'in' | 'notin' | 'exists' | '!exists'; values: string[] }

/** Parses a `labelSelector` query value; throws a 400 SimApiError when malformed. */
export function parseLabelSelector(text: string): Selector {
  const reqs: Requirement[] = []
  for (const part of splitTopLevel(text)) {
    const p = part.trim()
    if (!p) continue
    let m: RegExpMatchArray | null
    if ((m = p.match(/^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/))) {
      reqs.push({ key: m[1], op: m[2] as 'in' | 'notin', values: m[3].split(',').map((v) => v.trim()) })
    } else if ((m = p.match(/^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/))) {
      reqs.push({ key: m[1], op: m[2] === '!=' ? 'notin' : 'in', values: [m[3]] })
    } else if ((m = p.match(/^!\s*([\w./-]+)$/))) {
      reqs.push({ key: m[1], op: '!exists', values: [] })
    } else if ((m = p.match(/^([\w./-]+)$/))) {
      reqs.push({ key: m[1], op: 'exists', values: [] })
    } else {
      throw errors.badRequest(`unable to parse requirement: ${p}`)
    }
  }
  return (obj) => matchRequirements(obj.metadata.labels ?? {}, reqs)
}

/** Compiles a LabelSelector object (`matchLabels` + `matchExpressions`); an empty one matches everything. */
export function labelSelectorOf(sel: { matchLabels?: Record<string, string>; matchExpressions?: any[] } | undefined): (labels: Record<string, string>) => boolean {
  const reqs: Requirement[] = []
  for (const [key, v] of Object.entries(sel?.matchLabels ?? {})) reqs.push({ key, op: 'in', values: [v] })
  for (const e of sel?.matchExpressions ?? []) {
    const op = String(e.operator).toLowerCase()
    reqs.push({ key: e.key, op: op === 'doesnotexist' ? '!exists' : (op as Requirement['op']), values: e.values ?? [] })
  }
  return (labels) => matchRequirements(labels ?? {}, reqs)
}

/** `app=web,tier=front`: how kubectl and Scale status print a selector. */
export function formatMatchLabels(sel: { matchLabels?: Record<string, string> } | undefined): string {
  return Object.entries(sel?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',')
}

function matchRequirements(labels: Record<string, string>, reqs: Requirement[]): boolean {
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key)
    switch (r.op) {
      case 'in': if (!has || !r.values.includes(labels[r.key])) return false; break
      case 'notin': if (has && r.values.includes(labels[r.key])) return false; break
      case 'exists': if (!has) return false; break
      case '!exists': if (has) return false; break
    }
  }
  return true
}

type FieldGetter = (o: KubeObject) => string

const META_FIELDS: Record<string, FieldGetter> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
}

const ref = (k: string): FieldGetter => (o) => String(o.involvedObject?.[k] ?? '')

/** The fields each stored kind can be selected by (the registries' ToSelectableFields), besides metadata. */
const KIND_FIELDS: Record<string, Record<string, FieldGetter>> = {
  Pod: {
    'spec.nodeName': (o) => o.spec?.nodeName ?? '',
    'spec.restartPolicy': (o) => o.spec?.restartPolicy ?? '',
    'spec.schedulerName': (o) => o.spec?.schedulerName ?? '',
    'spec.serviceAccountName': (o) => o.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String(o.spec?.hostNetwork === true),
    'status.phase': (o) => o.status?.phase ?? '',
    'status.podIP': (o) => o.status?.podIP ?? '',
    'status.nominatedNodeName': (o) => o.status?.nominatedNodeName ?? '',
  },
  Event: {
    'involvedObject.kind': ref('kind'), 'involvedObject.namespace': ref('namespace'), 'involvedObject.name': ref('name'),
    'involvedObject.uid': ref('uid'), 'involvedObject.apiVersion': ref('apiVersion'),
    'involvedObject.resourceVersion': ref('resourceVersion'), 'involvedObject.fieldPath': ref('fieldPath'),
    reason: (o) => o.reason ?? '', reportingComponent: (o) => o.reportingComponent ?? '',
    source: (o) => o.source?.component ?? '', type: (o) => o.type ?? '',
  },
  Job: { 'status.successful': (o) => String(o.status?.succeeded ?? 0) },
  Namespace: { 'status.phase': (o) => o.status?.phase ?? '' },
  Node: { 'spec.unschedulable': (o) => String(o.spec?.unschedulable === true) },
  ReplicaSet: { 'status.replicas': (o) => String(o.status?.replicas ?? 0) },
}

/** events.k8s.io/v1 field labels and the stored (core/v1) fields they select (its field label conversion). */
const EVENTS_V1_LABELS: Record<string, string> = {
  reason: 'reason', 'regarding.kind': 'involvedObject.kind', 'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name', 'regarding.uid': 'involvedObject.uid', 'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion', 'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent', source: 'source', type: 'type', 'metadata.namespace': 'metadata.namespace', 'metadata.name': 'metadata.name',
}

/**
 * Parses a `fieldSelector` query value (`=`, `==`, `!=`) for resource `r`; the selector runs on stored
 * objects. Unsupported fields are a 400 worded as the API server words them.
 */
export function parseFieldSelector(text: string, r: ResourceInfo): Selector {
  const kindFields = KIND_FIELDS[r.kind]
  const tests: Array<(o: KubeObject) => boolean> = []
  for (const part of text.split(',')) {
    const p = part.trim()
    if (!p) continue
    const m = p.match(/^([\w.]+)\s*(==|=|!=)\s*(.*)$/)
    if (!m) throw errors.badRequest(`invalid selector: '${text}'; can't understand '${p}'`)
    let label = m[1]
    if (r.storageGroup !== undefined) {
      const mapped = EVENTS_V1_LABELS[label]
      if (!mapped) throw errors.badRequest(`field label not supported: ${label}`)
      label = mapped
    }
    const get = META_FIELDS[label] ?? kindFields?.[label]
    if (!get) {
      throw errors.badRequest(kindFields ? `field label not supported: ${label}` : `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`)
    }
    const want = m[3]
    tests.push(m[2] === '!=' ? (o) => get(o) !== want : (o) => get(o) === want)
  }
  return (obj) => tests.every((t) => t(obj))
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of text) {
    if (ch === '(') depth++
    if (ch === ')') depth--
    if (ch === ',' && depth === 0) {
      parts.push(cur)
      cur = ''
    } else cur += ch
  }
  parts.push(cur)
  return parts
}
