// The compact notation the served kinds are described in, and its parsed form. One description feeds
// the OpenAPI documents, request decoding (unknown fields, types, times) and server-side apply.
//
//   Container: {
//     _: 'A single application container.',            // the type's description
//     name: 'string! | Name of the container.',         // `!` required, text after ` | ` the field's description
//     env: '[]EnvVar~name',                              // a list merged by key (x-kubernetes-list-type map)
//     args: '[]string',                                  // an atomic list; `[]string@set` a set
//     resources: 'ResourceRequirements',                 // a type of the same package; `meta/ObjectMeta` of another
//     nodeSelector: '{}string',                          // a map
//     affinity: 'any',                                   // any JSON object, not checked further
//   }
//
// Scalars: string, integer (int32), int64, boolean, number, any, time (metav1.Time), microtime
// (metav1.MicroTime), quantity, intstr. `_kind: 'group/version/Kind'` marks a top-level kind.

/** The JSON/Go shape of a field. */
export type TypeRef =
  | { readonly t: 'scalar'; readonly name: ScalarName }
  | { readonly t: 'special'; readonly name: SpecialName }
  | { readonly t: 'ref'; readonly name: string }
  | { readonly t: 'list'; readonly items: TypeRef; readonly listType: 'atomic' | 'map' | 'set'; readonly keys: readonly string[] }
  | { readonly t: 'map'; readonly values: TypeRef }
  | { readonly t: 'any' }

export type ScalarName = 'string' | 'integer' | 'int64' | 'boolean' | 'number'
/** String-encoded types with their own parsing rules and OpenAPI definitions. */
export type SpecialName = 'time' | 'microtime' | 'quantity' | 'intstr'

export interface FieldDef {
  readonly name: string
  readonly type: TypeRef
  readonly required: boolean
  readonly description?: string
}

/** An object type: `io.k8s.api.apps.v1.DeploymentSpec`. */
export interface TypeDef {
  /** Fully qualified OpenAPI name. */
  readonly name: string
  readonly description?: string
  readonly fields: ReadonlyMap<string, FieldDef>
  /** For top-level kinds. */
  readonly gvk?: { readonly group: string; readonly version: string; readonly kind: string }
}

/** Packages the notation refers to as `alias/Type`. */
export const PACKAGES: Record<string, string> = {
  meta: 'io.k8s.apimachinery.pkg.apis.meta.v1',
  core: 'io.k8s.api.core.v1',
  apps: 'io.k8s.api.apps.v1',
  batch: 'io.k8s.api.batch.v1',
  coordination: 'io.k8s.api.coordination.v1',
  events: 'io.k8s.api.events.v1',
  autoscaling: 'io.k8s.api.autoscaling.v1',
}

const SCALARS = new Set<string>(['string', 'integer', 'int64', 'boolean', 'number'])
const SPECIALS = new Set<string>(['time', 'microtime', 'quantity', 'intstr'])

/** Type descriptions of one package, keyed by short type name; each field is a notation string. */
export type PackageSource = Record<string, Record<string, string>>

/** Parses a package's descriptions into TypeDefs (throws on notation errors, at load time). */
export function definePackage(alias: string, source: PackageSource): TypeDef[] {
  const prefix = PACKAGES[alias]
  if (!prefix) throw new Error(`unknown package alias ${alias}`)
  return Object.entries(source).map(([short, spec]) => {
    const fields = new Map<string, FieldDef>()
    let gvk: TypeDef['gvk']
    for (const [key, text] of Object.entries(spec)) {
      if (key === '_') continue
      if (key === '_kind') {
        const [group, version, kind] = text.split('/')
        gvk = { group, version, kind }
        continue
      }
      fields.set(key, parseField(key, text, prefix, `${alias}/${short}.${key}`))
    }
    if (gvk) {
      fields.set('apiVersion', { name: 'apiVersion', type: { t: 'scalar', name: 'string' }, required: false, description: 'The versioned schema of this representation of an object.' })
      fields.set('kind', { name: 'kind', type: { t: 'scalar', name: 'string' }, required: false, description: 'The REST resource this object represents.' })
    }
    return { name: `${prefix}.${short}`, description: spec._, fields, ...(gvk ? { gvk } : {}) }
  })
}

function parseField(name: string, text: string, prefix: string, where: string): FieldDef {
  const bar = text.indexOf(' | ')
  let type = (bar >= 0 ? text.slice(0, bar) : text).trim()
  const description = bar >= 0 ? text.slice(bar + 3).trim() : undefined
  const required = type.endsWith('!')
  if (required) type = type.slice(0, -1)
  return { name, type: parseType(type, prefix, where), required, ...(description ? { description } : {}) }
}

function parseType(text: string, prefix: string, where: string): TypeRef {
  if (text.startsWith('[]')) {
    const m = /^\[\](.+?)(?:~([\w,]+)|@(set|atomic))?$/.exec(text)
    if (!m) throw new Error(`${where}: bad list type ${text}`)
    const items = parseType(m[1], prefix, where)
    if (m[2]) return { t: 'list', items, listType: 'map', keys: m[2].split(',') }
    return { t: 'list', items, listType: m[3] === 'set' ? 'set' : 'atomic', keys: [] }
  }
  if (text.startsWith('{}')) return { t: 'map', values: parseType(text.slice(2), prefix, where) }
  if (text === 'any') return { t: 'any' }
  if (SCALARS.has(text)) return { t: 'scalar', name: text as ScalarName }
  if (SPECIALS.has(text)) return { t: 'special', name: text as SpecialName }
  const slash = text.indexOf('/')
  if (slash >= 0) {
    const pkg = PACKAGES[text.slice(0, slash)]
    if (!pkg) throw new Error(`${where}: unknown package in ${text}`)
    return { t: 'ref', name: `${pkg}.${text.slice(slash + 1)}` }
  }
  if (!/^[A-Z]\w*$/.test(text)) throw new Error(`${where}: bad type ${text}`)
  return { t: 'ref', name: `${prefix}.${text}` }
}

/** The short (Go) name of a qualified type: `DeploymentSpec`. */
export function shortName(qualified: string): string {
  return qualified.slice(qualified.lastIndexOf('.') + 1)
}
