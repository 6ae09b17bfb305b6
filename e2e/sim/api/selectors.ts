// Label and field selectors: the query-string forms (`a=b,c!=d,e in (x,y),!f`) and LabelSelector objects.
import { errors } from './errors.ts'
import type { KubeObject } from '../store/entry.ts'

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

const FIELDS: Record<string, (o: KubeObject) => string | undefined> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace,
  'spec.nodeName': (o) => o.spec?.nodeName ?? '',
  'status.phase': (o) => o.status?.phase ?? '',
  'spec.schedulerName': (o) => o.spec?.schedulerName ?? '',
  'status.successful': (o) => String(o.status?.succeeded ?? 0),
}

/** Parses a `fieldSelector` query value (`=`, `==`, `!=` on the supported fields). */
export function parseFieldSelector(text: string): Selector {
  const tests: Array<(o: KubeObject) => boolean> = []
  for (const part of text.split(',')) {
    const p = part.trim()
    if (!p) continue
    const m = p.match(/^([\w.]+)\s*(==|=|!=)\s*(.*)$/)
    if (!m) throw errors.badRequest(`invalid selector: '${text}'; can't understand '${p}'`)
    const get = FIELDS[m[1]]
    if (!get) throw errors.badRequest(`"${m[1]}" is not a known field selector: only "metadata.name", "metadata.namespace"`)
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
