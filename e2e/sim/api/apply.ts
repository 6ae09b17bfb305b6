// Server-side apply, approximated: the applied configuration merged into the live object along the
// schema (keyed lists item by item, sets as unions, the rest replaced), fields the same manager applied
// before and no longer applies removed, and the manager's field set recorded in managedFields.
import { typeDef, type TypeDef, type TypeRef } from './schema/index.ts'

type Json = any

/** The FieldsV1 set of an applied configuration, keyed lists by their list-map keys (as the API server records it). */
export function appliedFieldSet(root: TypeDef, applied: Json): Record<string, unknown> {
  return structSet(root, applied)
}

/**
 * `live` with `applied` merged in and the fields of `previous` (the manager's last applied field set)
 * that `current` (its new one) lacks removed.
 */
export function mergeApplied(root: TypeDef, live: Json, applied: Json, previous: Record<string, unknown> | undefined, current: Record<string, unknown>): Json {
  const pruned = previous ? prune({ t: 'ref', name: root.name }, live, previous, current) : live
  return merge({ t: 'ref', name: root.name }, pruned, applied)
}

function structSet(t: TypeDef, v: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!v || typeof v !== 'object') return out
  for (const [k, value] of Object.entries(v)) {
    if (k === 'apiVersion' || k === 'kind') continue
    const f = t.fields.get(k)
    out[`f:${k}`] = f ? valueSet(f.type, value) : {}
  }
  return out
}

function valueSet(type: TypeRef, v: Json): Record<string, unknown> {
  if (v === null || typeof v !== 'object') return {}
  switch (type.t) {
    case 'ref': {
      const inner = structSet(typeDef(type.name), v)
      return Object.keys(inner).length ? { '.': {}, ...inner } : {}
    }
    case 'map': {
      const inner: Record<string, unknown> = {}
      for (const [k, value] of Object.entries(v)) inner[`f:${k}`] = valueSet(type.values, value)
      return Object.keys(inner).length ? { '.': {}, ...inner } : {}
    }
    case 'list': {
      if (type.listType === 'atomic' || !Array.isArray(v)) return {}
      const out: Record<string, unknown> = {}
      for (const item of v) {
        if (type.listType === 'set') out[`v:${JSON.stringify(item)}`] = {}
        else out[itemKey(type.keys, item)] = { '.': {}, ...valueSet(type.items, item) }
      }
      return out
    }
    default:
      return {}
  }
}

function itemKey(keys: readonly string[], item: Json): string {
  const k: Record<string, unknown> = {}
  for (const key of keys) if (item?.[key] !== undefined) k[key] = item[key]
  return `k:${JSON.stringify(k)}`
}

/** Removes from `live` what `prev` owned and `cur` does not. */
function prune(type: TypeRef, live: Json, prev: Record<string, unknown>, cur: Record<string, unknown>): Json {
  if (live === null || typeof live !== 'object') return live
  if (type.t === 'list' && Array.isArray(live) && type.listType !== 'atomic') {
    return live.flatMap((item) => {
      const key = type.listType === 'set' ? `v:${JSON.stringify(item)}` : itemKey(type.keys, item)
      if (!(key in prev)) return [item]
      if (!(key in cur)) return []
      return [prune(type.items, item, prev[key] as Record<string, unknown>, cur[key] as Record<string, unknown>)]
    })
  }
  const fieldType = (k: string): TypeRef | undefined =>
    type.t === 'ref' ? typeDef(type.name).fields.get(k)?.type : type.t === 'map' ? type.values : undefined
  if (type.t !== 'ref' && type.t !== 'map') return live
  const out: Record<string, unknown> = { ...live }
  for (const key of Object.keys(prev)) {
    if (!key.startsWith('f:')) continue
    const k = key.slice(2)
    if (!(key in cur)) delete out[k]
    else {
      const ft = fieldType(k)
      if (ft) out[k] = prune(ft, out[k], prev[key] as Record<string, unknown>, cur[key] as Record<string, unknown>)
    }
  }
  return out
}

function merge(type: TypeRef, live: Json, applied: Json): Json {
  if (applied === null) return undefined
  if (live === undefined || live === null || typeof applied !== 'object') return applied
  switch (type.t) {
    case 'ref': case 'map': {
      if (typeof live !== 'object' || Array.isArray(live)) return applied
      const out: Record<string, unknown> = { ...live }
      for (const [k, v] of Object.entries(applied)) {
        const ft = type.t === 'ref' ? typeDef(type.name).fields.get(k)?.type : type.values
        const merged = ft ? merge(ft, out[k], v) : v
        if (merged === undefined) delete out[k]
        else out[k] = merged
      }
      return out
    }
    case 'list': {
      if (!Array.isArray(live) || !Array.isArray(applied) || type.listType === 'atomic') return applied
      if (type.listType === 'set') return [...live, ...applied.filter((x) => !live.some((y) => JSON.stringify(y) === JSON.stringify(x)))]
      const out = live.map((item) => {
        const a = applied.find((x) => itemKey(type.keys, x) === itemKey(type.keys, item))
        return a === undefined ? item : merge(type.items, item, a)
      })
      for (const a of applied) if (!live.some((item) => itemKey(type.keys, item) === itemKey(type.keys, a))) out.push(a)
      return out
    }
    default:
      return applied
  }
}
