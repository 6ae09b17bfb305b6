// OpenAPI documents generated from the kind descriptions: v3 per group-version (what kubectl reads for
// explain, field-validation support and apply patches) and one v2 document, as the API server publishes them.
import { RESOURCES, type ResourceInfo } from '../resources.ts'
import { allTypes, kindType, typeDef, type TypeDef, type TypeRef } from './index.ts'

type Json = Record<string, any>
type Version = 'v2' | 'v3'

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1'
/** Definitions of the string-encoded types (Go types with custom JSON). */
const SPECIAL_DEFS: Record<string, Json> = {
  [`${META}.Time`]: { type: 'string', format: 'date-time', description: 'RFC 3339 date and time, second precision, UTC.' },
  [`${META}.MicroTime`]: { type: 'string', format: 'date-time', description: 'RFC 3339 date and time with six fractional digits (microseconds), UTC.' },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: 'string', description: 'A fixed-point number with an optional SI or binary suffix (500m, 128Mi).' },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string', description: 'An integer or a string.' },
  [`${META}.Patch`]: { type: 'object', description: 'The body of a PATCH request, in one of the patch media types.' },
}
const PATCH = `${META}.Patch`
/** What a PATCH body may be; kubectl computes strategic merge patches only when the document lists it. */
const PATCH_TYPES = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']
const SPECIAL_NAMES: Record<string, string> = {
  time: `${META}.Time`, microtime: `${META}.MicroTime`,
  quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity', intstr: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
}

const refTo = (v: Version, name: string) => ({ $ref: v === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}` })

function fieldSchema(v: Version, type: TypeRef, description?: string): Json {
  const d = description ? { description } : {}
  switch (type.t) {
    case 'any':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...d }
    case 'scalar':
      switch (type.name) {
        case 'string': return { type: 'string', ...d }
        case 'boolean': return { type: 'boolean', ...d }
        case 'number': return { type: 'number', format: 'double', ...d }
        default: return { type: 'integer', format: type.name === 'int64' ? 'int64' : 'int32', ...d }
      }
    case 'special':
    case 'ref': {
      const ref = refTo(v, type.t === 'ref' ? type.name : SPECIAL_NAMES[type.name])
      if (!description) return ref
      return v === 'v3' ? { allOf: [ref], ...d } : { ...ref, ...d }
    }
    case 'map':
      return { type: 'object', additionalProperties: fieldSchema(v, type.values), ...d }
    case 'list': {
      const out: Json = { type: 'array', items: fieldSchema(v, type.items), ...d }
      if (type.listType === 'map') {
        out['x-kubernetes-list-map-keys'] = type.keys
        out['x-kubernetes-list-type'] = 'map'
        out['x-kubernetes-patch-merge-key'] = type.keys[0]
        out['x-kubernetes-patch-strategy'] = 'merge'
      } else {
        out['x-kubernetes-list-type'] = type.listType
        if (type.listType === 'set') out['x-kubernetes-patch-strategy'] = 'merge'
      }
      return out
    }
  }
}

function typeSchema(v: Version, t: TypeDef): Json {
  const properties: Json = {}
  const required: string[] = []
  for (const f of [...t.fields.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    properties[f.name] = fieldSchema(v, f.type, f.description)
    if (f.required) required.push(f.name)
  }
  const out: Json = { type: 'object', properties }
  if (t.description) out.description = t.description
  if (required.length) out.required = required
  if (t.gvk) out['x-kubernetes-group-version-kind'] = [t.gvk]
  return out
}

/** Every type reachable from `roots` (qualified names), the special ones included. */
function closure(roots: Iterable<string>): string[] {
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name)) return
    seen.add(name)
    if (SPECIAL_DEFS[name]) return
    for (const f of typeDef(name).fields.values()) walk(f.type)
  }
  const walk = (type: TypeRef): void => {
    if (type.t === 'ref') visit(type.name)
    else if (type.t === 'special') visit(SPECIAL_NAMES[type.name])
    else if (type.t === 'list') walk(type.items)
    else if (type.t === 'map') walk(type.values)
  }
  for (const r of roots) visit(r)
  return [...seen].sort()
}

function definitions(v: Version, names: readonly string[]): Json {
  const out: Json = {}
  for (const n of names) out[n] = SPECIAL_DEFS[n] ?? typeSchema(v, typeDef(n))
  return out
}

/** The group-version key of a resource as the v3 discovery lists it: `api/v1`, `apis/apps/v1`. */
export function groupVersionPath(r: ResourceInfo): string {
  return r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`
}

const param = (name: string, inWhere: 'path' | 'query', type: string, description: string, v: Version) =>
  v === 'v3'
    ? { name, in: inWhere, description, ...(inWhere === 'path' ? { required: true } : {}), schema: { type, uniqueItems: true } }
    : { name, in: inWhere, description, ...(inWhere === 'path' ? { required: true } : {}), type, uniqueItems: true }

const WRITE_PARAMS: Array<[string, string, string]> = [
  ['dryRun', 'string', 'When present, modifications are not persisted (All).'],
  ['fieldManager', 'string', 'Name of the actor making the change.'],
  ['fieldValidation', 'string', 'What the server does with unknown or duplicate fields: Ignore, Warn (default) or Strict.'],
]
const LIST_PARAMS: Array<[string, string, string]> = [
  ['allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK events on a watch.'], ['continue', 'string', 'Token of the next page.'],
  ['fieldSelector', 'string', 'Select objects by fields.'], ['labelSelector', 'string', 'Select objects by labels.'],
  ['limit', 'integer', 'Page size.'], ['resourceVersion', 'string', 'Where a list reads or a watch starts.'],
  ['resourceVersionMatch', 'string', 'How resourceVersion applies to a list.'], ['sendInitialEvents', 'boolean', 'Streaming list.'],
  ['timeoutSeconds', 'integer', 'Server-side timeout of a list or watch.'], ['watch', 'boolean', 'Watch instead of list.'],
]

function operation(v: Version, r: ResourceInfo, action: string, id: string, kindName: string, query: Array<[string, string, string]>, body: boolean): Json {
  const t = kindType(r.group, r.version, kindName)!
  const gvk = t.gvk!
  const responseName = action === 'delete' || action === 'deletecollection' ? `${META}.Status` : t.name
  const op: Json = {
    operationId: id, tags: [r.group ? `${r.group.split('.')[0]}_${r.version}` : `core_${r.version}`],
    parameters: query.map(([n, type, d]) => param(n, 'query', type, d, v)),
  }
  const bodyName = action === 'patch' ? PATCH : t.name
  if (v === 'v3') {
    if (body) {
      const types = action === 'patch' ? PATCH_TYPES : ['*/*']
      op.requestBody = { content: Object.fromEntries(types.map((m) => [m, { schema: refTo(v, bodyName) }])), required: true }
    }
    op.responses = { 200: { description: 'OK', content: { 'application/json': { schema: refTo(v, responseName) } } }, 401: { description: 'Unauthorized' } }
  } else {
    if (body) op.parameters.unshift({ name: 'body', in: 'body', required: true, schema: refTo(v, bodyName) })
    op.consumes = action === 'patch' ? PATCH_TYPES : ['*/*']
    op.produces = ['application/json']
    op.responses = { 200: { description: 'OK', schema: refTo(v, responseName) }, 401: { description: 'Unauthorized' } }
  }
  op['x-kubernetes-action'] = action
  op['x-kubernetes-group-version-kind'] = gvk
  return op
}

/** The paths of one resource (collection, all namespaces, object, subresources). */
function resourcePaths(v: Version, r: ResourceInfo): Json {
  const base = '/' + groupVersionPath(r)
  const gv = `${r.group ? r.group.split('.').map((p) => p[0].toUpperCase() + p.slice(1)).join('') : 'Core'}${r.version[0].toUpperCase()}${r.version.slice(1)}`
  const scope = r.namespaced ? 'Namespaced' : ''
  const ns = r.namespaced ? [param('namespace', 'path', 'string', 'Object name and auth scope.', v)] : []
  const name = param('name', 'path', 'string', `Name of the ${r.kind}.`, v)
  const collection = r.namespaced ? `${base}/namespaces/{namespace}/${r.plural}` : `${base}/${r.plural}`
  const paths: Json = {
    [collection]: {
      get: operation(v, r, 'list', `list${gv}${scope}${r.kind}`, `${r.kind}List`, LIST_PARAMS, false),
      post: operation(v, r, 'post', `create${gv}${scope}${r.kind}`, r.kind, WRITE_PARAMS, true),
      delete: operation(v, r, 'deletecollection', `deleteCollection${gv}${scope}${r.kind}`, r.kind, [], false),
      parameters: ns,
    },
    [`${collection}/{name}`]: {
      get: operation(v, r, 'get', `read${gv}${scope}${r.kind}`, r.kind, [], false),
      put: operation(v, r, 'put', `replace${gv}${scope}${r.kind}`, r.kind, WRITE_PARAMS, true),
      patch: operation(v, r, 'patch', `patch${gv}${scope}${r.kind}`, r.kind, [...WRITE_PARAMS, ['force', 'boolean', 'Take over conflicting fields (apply).']], true),
      delete: operation(v, r, 'delete', `delete${gv}${scope}${r.kind}`, r.kind, [], false),
      parameters: [name, ...ns],
    },
  }
  if (r.namespaced) paths[`${base}/${r.plural}`] = { get: operation(v, r, 'list', `list${gv}${r.kind}ForAllNamespaces`, `${r.kind}List`, LIST_PARAMS, false) }
  for (const sub of r.subresources) {
    const Sub = sub[0].toUpperCase() + sub.slice(1)
    const kind = sub === 'scale' ? undefined : r.kind
    if (!kind) continue // Scale lives in autoscaling/v1; its operations are described there by the real server
    paths[`${collection}/{name}/${sub}`] = {
      get: operation(v, r, 'get', `read${gv}${scope}${r.kind}${Sub}`, kind, [], false),
      put: operation(v, r, 'put', `replace${gv}${scope}${r.kind}${Sub}`, kind, WRITE_PARAMS, true),
      patch: operation(v, r, 'patch', `patch${gv}${scope}${r.kind}${Sub}`, kind, [...WRITE_PARAMS, ['force', 'boolean', 'Take over conflicting fields (apply).']], true),
      parameters: [name, ...ns],
    }
  }
  return paths
}

const INFO = { title: 'Kubernetes', version: 'v1.32.2' }

/** `/openapi/v3/<gv>` documents, keyed by group-version path (`apis/apps/v1`). */
export function openApiV3Documents(): Map<string, Json> {
  const byGv = new Map<string, ResourceInfo[]>()
  for (const r of RESOURCES) {
    const key = groupVersionPath(r)
    byGv.set(key, [...(byGv.get(key) ?? []), r])
  }
  const docs = new Map<string, Json>()
  for (const [gv, resources] of byGv) {
    let paths: Json = {}
    const roots: string[] = [`${META}.Status`, PATCH]
    for (const r of resources) {
      paths = { ...paths, ...resourcePaths('v3', r) }
      const t = kindType(r.group, r.version, r.kind)!
      roots.push(t.name, `${t.name}List`)
    }
    docs.set(gv, { openapi: '3.0.0', info: INFO, paths, components: { schemas: definitions('v3', closure(roots)) } })
  }
  return docs
}

/** The `/openapi/v2` document: every served path and every described type. */
export function openApiV2Document(): Json {
  let paths: Json = {}
  for (const r of RESOURCES) paths = { ...paths, ...resourcePaths('v2', r) }
  const names = closure([...[...allTypes()].map((t) => t.name), PATCH])
  return { swagger: '2.0', info: INFO, paths, definitions: definitions('v2', names) }
}
