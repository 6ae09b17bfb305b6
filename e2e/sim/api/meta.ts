// Object metadata helpers: names, uids, timestamps, metadata field order, managedFields, deep equality.
import type { KubeObject } from '../store/entry.ts'

/** Alphabet of generated name suffixes and hashes (no vowels, no confusable characters), as Kubernetes uses. */
export const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'

/** `n` random characters of the safe alphabet (generateName suffixes are 5). */
export function randomSuffix(n = 5): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n))
  let s = ''
  for (const b of bytes) s += SAFE_ALPHABET[b % SAFE_ALPHABET.length]
  return s
}

export function newUid(): string {
  return crypto.randomUUID()
}

/** RFC 3339 with second precision, like metav1.Time. */
export function timestamp(ms = Date.now()): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

/** `n` random lowercase hex characters (container ids, digests). */
export function randomHex(n: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(Math.ceil(n / 2)))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('').slice(0, n)
}

const META_ORDER = [
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers',
  'managedFields',
]

/** Metadata with fields in the API server's order (resourceVersion present so the store fills it in place). */
export function orderMeta(meta: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {}
  for (const k of META_ORDER) {
    if (k === 'resourceVersion') out[k] = meta[k] ?? ''
    else if (meta[k] !== undefined && meta[k] !== null) out[k] = meta[k]
  }
  for (const k of Object.keys(meta)) if (!(k in out) && meta[k] !== undefined) out[k] = meta[k]
  return out
}

/** An object with top-level fields in the API server's order: metadata, spec, status, then the rest. */
export function orderObject(obj: Record<string, any>): KubeObject {
  const out: Record<string, any> = { metadata: orderMeta(obj.metadata ?? {}) }
  for (const k of ['spec', 'status']) if (obj[k] !== undefined) out[k] = obj[k]
  for (const k of Object.keys(obj)) {
    if (k === 'kind' || k === 'apiVersion' || k in out) continue
    out[k] = obj[k]
  }
  return out as KubeObject
}

/**
 * The FieldsV1 set of an object fragment: `f:<field>` per key, `k:{"name":…}` for list items keyed by
 * name (containers, env …), `v:` for scalar list items; "." marks a map that is itself owned.
 */
export function fieldsV1(value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out
  for (const [k, v] of Object.entries(value)) out[`f:${k}`] = fieldsOfValue(v)
  return out
}

function fieldsOfValue(v: unknown): Record<string, unknown> {
  if (Array.isArray(v)) {
    const out: Record<string, unknown> = {}
    for (const item of v) {
      if (item && typeof item === 'object') {
        const keyField = ['name', 'type', 'uid', 'ip', 'containerPort', 'key', 'mountPath'].find((f) => f in item)
        const key = keyField ? `k:${JSON.stringify({ [keyField]: (item as any)[keyField] })}` : `v:${JSON.stringify(item)}`
        out[key] = { '.': {}, ...fieldsV1(item) }
      } else {
        out[`v:${JSON.stringify(item)}`] = {}
      }
    }
    return out
  }
  if (v && typeof v === 'object') {
    const inner = fieldsV1(v)
    return Object.keys(inner).length ? { '.': {}, ...inner } : {}
  }
  return {}
}

/** One managedFields entry as the API server records an Update. */
export function managedFieldsEntry(
  manager: string, apiVersion: string, fields: Record<string, unknown>, subresource?: string, ms = Date.now(),
): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    manager, operation: 'Update', apiVersion, time: timestamp(ms), fieldsType: 'FieldsV1', fieldsV1: fields,
  }
  if (subresource) entry.subresource = subresource
  return entry
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bb = b as unknown[]
    if (a.length !== bb.length) return false
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], bb[i])) return false
    return true
  }
  const ak = Object.keys(a).filter((k) => (a as any)[k] !== undefined)
  const bk = Object.keys(b).filter((k) => (b as any)[k] !== undefined)
  if (ak.length !== bk.length) return false
  for (const k of ak) if (!deepEqual((a as any)[k], (b as any)[k])) return false
  return true
}

/** A deep copy of a JSON value. */
export function clone<T>(v: T): T {
  return structuredClone(v)
}
