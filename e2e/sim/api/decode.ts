// Request bodies decoded as the API server's typed decoder does: JSON types checked against the kind's
// schema, times parsed and normalised, unknown fields found (with their paths) and dropped.
import { errors, fieldErrors } from './errors.ts'
import type { ResourceInfo } from './resources.ts'
import { resourceType, shortName, typeDef, type TypeDef, type TypeRef } from './schema/index.ts'
import { normalizeMicroTime, normalizeTime, TimeParseError } from './time.ts'

/** A body the typed decoder cannot read (the message is Go's, without the kind prefix). */
export class DecodeError extends Error {
  override name = 'DecodeError'
}

/** The decoded object (unknown fields dropped, times normalised) and the paths of the unknown fields. */
export interface Decoded {
  readonly obj: any
  readonly unknown: readonly string[]
}

/**
 * Decodes `body` as the type `root`. Throws DecodeError on a value of the wrong JSON type or a time
 * that does not parse; `null` is accepted anywhere (Go leaves the zero value).
 */
export function decodeObject(root: TypeDef, body: any): Decoded {
  const unknown: string[] = []
  const obj = decodeStruct(root, body, '', '', root.name, unknown)
  return { obj, unknown }
}

/**
 * `path` has list indexes (unknown-field paths); `goPath` has not (Go's "struct field" paths);
 * `parent` is the struct holding the field (Go names it in type errors).
 */
function decodeStruct(t: TypeDef, v: any, path: string, goPath: string, parent: string, unknown: string[]): any {
  if (v === null) return v
  if (typeof v !== 'object' || Array.isArray(v)) throw mismatch(v, parent, goPath, { t: 'ref', name: t.name })
  const out: Record<string, any> = {}
  for (const [k, value] of Object.entries(v)) {
    const f = t.fields.get(k)
    const p = path ? `${path}.${k}` : k
    if (!f) {
      unknown.push(p)
      continue
    }
    out[k] = decodeValue(f.type, value, p, goPath ? `${goPath}.${k}` : k, t.name, unknown)
  }
  return out
}

function decodeValue(type: TypeRef, v: any, path: string, goPath: string, parent: string, unknown: string[]): any {
  if (v === null) return v
  switch (type.t) {
    case 'any':
      return v
    case 'ref':
      return decodeStruct(typeDef(type.name), v, path, goPath, parent, unknown)
    case 'list':
      if (!Array.isArray(v)) throw mismatch(v, parent, goPath, type)
      return v.map((item, i) => decodeValue(type.items, item, `${path}[${i}]`, goPath, parent, unknown))
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) throw mismatch(v, parent, goPath, type)
      const out: Record<string, any> = {}
      for (const [k, value] of Object.entries(v)) out[k] = decodeValue(type.values, value, `${path}[${k}]`, goPath, parent, unknown)
      return out
    }
    case 'scalar': {
      const ok = type.name === 'string' ? typeof v === 'string'
        : type.name === 'boolean' ? typeof v === 'boolean'
        : type.name === 'number' ? typeof v === 'number'
        : typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= (type.name === 'integer' ? 2 ** 31 : Number.MAX_SAFE_INTEGER)
      if (!ok) throw mismatch(v, parent, goPath, type)
      return v
    }
    case 'special':
      switch (type.name) {
        case 'time': case 'microtime':
          if (typeof v !== 'string') throw new DecodeError(`json: cannot unmarshal ${jsonType(v)} into Go value of type string`)
          try {
            return type.name === 'time' ? normalizeTime(v) : normalizeMicroTime(v)
          } catch (err) {
            if (err instanceof TimeParseError) throw new DecodeError(err.message)
            throw err
          }
        case 'quantity':
          if (typeof v !== 'string' && typeof v !== 'number') throw new DecodeError('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'')
          return v
        case 'intstr':
          if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) throw mismatch(v, parent, goPath, type)
          return v
      }
  }
}

function mismatch(v: any, parent: string, goPath: string, type: TypeRef): DecodeError {
  const where = goPath ? `Go struct field ${shortName(parent)}.${goPath}` : 'Go value'
  return new DecodeError(`json: cannot unmarshal ${jsonType(v)} into ${where} of type ${goType(type)}`)
}

function jsonType(v: any): string {
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return Number.isInteger(v) ? 'number' : `number ${v}`
  return typeof v
}

function goType(type: TypeRef): string {
  switch (type.t) {
    case 'any': return 'interface {}'
    case 'ref': return `v1.${shortName(type.name)}`
    case 'list': return `[]${goType(type.items)}`
    case 'map': return `map[string]${goType(type.values)}`
    case 'scalar': return { string: 'string', integer: 'int32', int64: 'int64', boolean: 'bool', number: 'float64' }[type.name]
    case 'special': return { time: 'v1.Time', microtime: 'v1.MicroTime', quantity: 'resource.Quantity', intstr: 'intstr.IntOrString' }[type.name]
  }
}

/** The `fieldValidation` query parameter: what unknown fields cost (default Warn, as since 1.27). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore'

/** How an HTTP write decodes its body; warnings (for the `Warning` header) are collected in `warnings`. */
export interface DecodeOptions {
  readonly fieldValidation: FieldValidation
  readonly warnings: string[]
}

/**
 * Decodes a POST/PUT body written through `r` (the create/update handlers): a bad value is 400
 * `Kind in version "v1" cannot be handled as a Kind: …`, unknown fields 400 under Strict and a
 * warning under Warn; they are dropped either way.
 */
export function decodeBody(r: ResourceInfo, body: any, opts: DecodeOptions): any {
  const cannot = (msg: string) => errors.badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: ${msg}`)
  let d: Decoded
  try {
    d = decodeObject(resourceType(r), body)
  } catch (err) {
    if (err instanceof DecodeError) throw cannot(err.message)
    throw err
  }
  if (d.unknown.length && opts.fieldValidation === 'Strict') throw cannot(strictMessage(d.unknown))
  if (opts.fieldValidation === 'Warn') for (const p of d.unknown) opts.warnings.push(`unknown field "${p}"`)
  return d.obj
}

/**
 * Decodes the result of a patch (the patch handler): a bad value is 422 Invalid on the field
 * `patch`, unknown fields 400 under Strict and a warning under Warn.
 */
export function decodePatched(r: ResourceInfo, patched: any, opts: DecodeOptions): any {
  let d: Decoded
  try {
    d = decodeObject(resourceType(r), patched)
  } catch (err) {
    if (err instanceof DecodeError) {
      throw fieldErrors('', '', '', [{ type: 'Invalid value', field: 'patch', value: JSON.stringify(patched), detail: err.message }])
    }
    throw err
  }
  if (d.unknown.length && opts.fieldValidation === 'Strict') throw errors.badRequest(strictMessage(d.unknown))
  if (opts.fieldValidation === 'Warn') for (const p of d.unknown) opts.warnings.push(`unknown field "${p}"`)
  return d.obj
}

function strictMessage(unknown: readonly string[]): string {
  return `strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(', ')}`
}
