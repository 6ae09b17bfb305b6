// The type registry of the served kinds: every described type by qualified name, and each kind's root type.
import type { ResourceInfo } from '../resources.ts'
import { CORE } from './core.ts'
import { COORDINATION, EVENTS } from './coordination.ts'
import type { FieldDef, TypeDef, TypeRef } from './dsl.ts'
import { META } from './meta.ts'
import { APPS, AUTOSCALING, BATCH } from './workloads.ts'

export type { FieldDef, SpecialName, TypeDef, TypeRef } from './dsl.ts'
export { shortName } from './dsl.ts'

const TYPES = new Map<string, TypeDef>()
const DESCRIBED = [...META, ...CORE, ...APPS, ...BATCH, ...AUTOSCALING, ...COORDINATION, ...EVENTS]
for (const t of [...DESCRIBED, ...DESCRIBED.filter((k) => k.gvk && k.gvk.kind !== 'Scale').map(listOf)]) {
  if (TYPES.has(t.name)) throw new Error(`type ${t.name} described twice`)
  TYPES.set(t.name, t)
}
for (const t of TYPES.values()) for (const f of t.fields.values()) checkRefs(f.type, `${t.name}.${f.name}`)

/** The `KindList` type of a kind. */
function listOf(kind: TypeDef): TypeDef {
  const string: TypeRef = { t: 'scalar', name: 'string' }
  const fields: FieldDef[] = [
    { name: 'apiVersion', type: string, required: false, description: 'The versioned schema of this representation of an object.' },
    { name: 'items', type: { t: 'list', items: { t: 'ref', name: kind.name }, listType: 'atomic', keys: [] }, required: true, description: `The ${kind.gvk!.kind} objects.` },
    { name: 'kind', type: string, required: false, description: 'The REST resource this object represents.' },
    { name: 'metadata', type: { t: 'ref', name: 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' }, required: false, description: 'Standard list metadata.' },
  ]
  return {
    name: `${kind.name}List`, description: `A list of ${kind.gvk!.kind} objects.`,
    fields: new Map(fields.map((f) => [f.name, f])), gvk: { ...kind.gvk!, kind: `${kind.gvk!.kind}List` },
  }
}

function checkRefs(type: TypeRef, where: string): void {
  if (type.t === 'ref' && !TYPES.has(type.name)) throw new Error(`${where}: ${type.name} is not described`)
  if (type.t === 'list') checkRefs(type.items, where)
  if (type.t === 'map') checkRefs(type.values, where)
}

/** A described type by qualified name. */
export function typeDef(name: string): TypeDef {
  const t = TYPES.get(name)
  if (!t) throw new Error(`type ${name} is not described`)
  return t
}

/** Every described type. */
export function allTypes(): Iterable<TypeDef> {
  return TYPES.values()
}

/** The root type of a group/version/kind, if described. */
export function kindType(group: string, version: string, kind: string): TypeDef | undefined {
  for (const t of TYPES.values()) if (t.gvk && t.gvk.group === group && t.gvk.version === version && t.gvk.kind === kind) return t
  return undefined
}

/** The root type of a resource's objects. */
export function resourceType(r: ResourceInfo): TypeDef {
  const t = kindType(r.group, r.version, r.kind)
  if (!t) throw new Error(`kind ${r.apiVersion} ${r.kind} is not described`)
  return t
}
