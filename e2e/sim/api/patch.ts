// Patch application: JSON merge patch (RFC 7386), a strategic-merge approximation, JSON patch (RFC 6902).
import { errors } from './errors.ts'

type Json = any

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch
  const out: Record<string, Json> = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {}
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]
    else out[k] = mergePatch(out[k], v)
  }
  return out
}

/**
 * Strategic merge patch, approximated: like a merge patch, except that lists of objects that all
 * carry a `name` (containers, volumes, env, ports …) merge item by item on that key, as the
 * Kubernetes patch strategy for those lists does. `$patch` directives are not supported.
 */
export function strategicMergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== 'object') return patch
  if (Array.isArray(patch)) {
    if (Array.isArray(target) && isNamedList(patch) && isNamedList(target)) {
      const out = target.map((t: Json) => {
        const p = patch.find((x: Json) => x.name === t.name)
        return p ? strategicMergePatch(t, p) : t
      })
      for (const p of patch) if (!target.some((t: Json) => t.name === p.name)) out.push(p)
      return out
    }
    return patch
  }
  const out: Record<string, Json> = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {}
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue
    if (v === null) delete out[k]
    else out[k] = strategicMergePatch(out[k], v)
  }
  return out
}

function isNamedList(list: Json[]): boolean {
  return list.length > 0 && list.every((x) => x && typeof x === 'object' && typeof x.name === 'string')
}

/** RFC 6902 operations add, remove, replace, test, copy, move; errors are 422 like the API server's. */
export function jsonPatch(target: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw errors.badRequest('json patch must be an array of operations')
  let doc = structuredClone(target)
  for (const op of ops) {
    const path = parsePointer(op.path)
    switch (op.op) {
      case 'add': doc = setAt(doc, path, op.value, true); break
      case 'replace': getAt(doc, path); doc = setAt(doc, path, op.value, false); break
      case 'remove': doc = removeAt(doc, path); break
      case 'test':
        if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(op.value)) throw patchError(`testing value ${op.path} failed`)
        break
      case 'copy': doc = setAt(doc, path, structuredClone(getAt(doc, parsePointer(op.from))), true); break
      case 'move': {
        const from = parsePointer(op.from)
        const v = getAt(doc, from)
        doc = setAt(removeAt(doc, from), path, v, true)
        break
      }
      default: throw patchError(`Unexpected kind: ${op.op}`)
    }
  }
  return doc
}

function patchError(msg: string) {
  return errors.invalid('Patch', '', 'patch', 'Invalid value', msg)
}

function parsePointer(p: unknown): string[] {
  if (typeof p !== 'string' || (p !== '' && !p.startsWith('/'))) throw patchError(`invalid path ${String(p)}`)
  return p === '' ? [] : p.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function getAt(doc: Json, path: string[]): Json {
  let cur = doc
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object' || !(seg in cur)) throw patchError(`doc is missing path: /${path.join('/')}`)
    cur = cur[seg]
  }
  return cur
}

function setAt(doc: Json, path: string[], value: Json, insert: boolean): Json {
  if (path.length === 0) return value
  const parent = getAt(doc, path.slice(0, -1))
  const last = path[path.length - 1]
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last)
    if (!Number.isInteger(i) || i < 0 || i > parent.length) throw patchError(`invalid index ${last}`)
    if (insert) parent.splice(i, 0, value)
    else parent[i] = value
  } else if (parent && typeof parent === 'object') parent[last] = value
  else throw patchError(`cannot set ${last}`)
  return doc
}

function removeAt(doc: Json, path: string[]): Json {
  const parent = getAt(doc, path.slice(0, -1))
  const last = path[path.length - 1]
  getAt(doc, path)
  if (Array.isArray(parent)) parent.splice(Number(last), 1)
  else delete parent[last]
  return doc
}
