// The verbs on objects (create, update, patch, delete, get) with API-server semantics, shared by the
// HTTP handlers, the in-process Simulator methods and the controllers.
import type { ObjectStore } from '../store/store.ts'
import type { Entry, KubeObject } from '../store/entry.ts'
import { errors } from './errors.ts'
import { applyCreateDefaults } from './defaults.ts'
import { validateObject } from './validate.ts'
import { clone, deepEqual, fieldsV1, managedFieldsEntry, newUid, orderObject, randomSuffix, timestamp } from './meta.ts'
import { appliedFieldSet, mergeApplied } from './apply.ts'
import { decodeBody, decodePatched, type DecodeOptions } from './decode.ts'
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.ts'
import { objectKey, resourceByPlural, storageOf, type ResourceInfo } from './resources.ts'
import { resourceType } from './schema/index.ts'
import { toStorage, toView } from './views.ts'

export interface WriteOptions {
  /** Namespace from the URL (namespaced kinds); the body's must agree. */
  namespace?: string
  /** Name from the URL (update/patch). */
  name?: string
  /** managedFields manager (default 'sim'). */
  fieldManager?: string
  /** 'status': only status changes; 'all': internal writers (controllers) change spec, metadata and status at once. */
  subresource?: 'status' | 'all'
  /** Decode the body as the API server does (HTTP writes): types, times, unknown fields per fieldValidation. */
  decode?: DecodeOptions
  /** Server-side apply: the applied field set, recorded as the manager's Apply entry in managedFields. */
  applied?: Record<string, unknown>
}

export type PatchType = 'merge' | 'strategic' | 'json'

export interface DeleteOptions {
  gracePeriodSeconds?: number
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan'
}

/** `gone`: the object was removed (DELETED sent); otherwise it is terminating (deletionTimestamp set). */
export interface DeleteResult {
  entry: Entry
  gone: boolean
}

const NAMESPACES = resourceByPlural('namespaces')!
const PROTECTED_META = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'name', 'namespace', 'selfLink']

/** Object verbs over the store. `gracefulPods()` says whether a kubelet will finish pod deletions. */
export class ObjectApi {
  constructor(readonly store: ObjectStore, private readonly gracefulPods: () => boolean) {}

  /** The stored object (for a view resource such as events.k8s.io, the stored core/v1 one). */
  get(r: ResourceInfo, namespace: string | undefined, name: string): Entry | undefined {
    return this.store.get(storageOf(r), objectKey(r, namespace, name))
  }

  /**
   * POST: names (generateName), uid, timestamps, defaults, managedFields; 409 if it exists. `r` is
   * the resource written through (its rules apply); the object is stored as its storage resource.
   */
  create(r: ResourceInfo, body: any, opts: WriteOptions = {}): Entry {
    checkType(r, body)
    if (opts.decode) body = decodeBody(r, body, opts.decode)
    body = toStorage(r, body)
    const s = storageOf(r)
    const meta: Record<string, any> = { ...(body.metadata ?? {}) }
    const namespace = r.namespaced ? this.#namespaceOf(meta, opts) : undefined
    if (namespace !== undefined) {
      const ns = this.store.get(NAMESPACES, namespace)
      if (!ns) throw errors.notFound(NAMESPACES, namespace)
      if (ns.obj.metadata.deletionTimestamp) {
        throw errors.namespaceTerminating(r, meta.name ?? meta.generateName ?? '', namespace)
      }
      meta.namespace = namespace
    }
    if (!meta.name && meta.generateName) {
      do meta.name = meta.generateName + randomSuffix(5)
      while (this.store.get(s, objectKey(r, namespace, meta.name)))
    }
    if (!meta.name) throw errors.invalid(r.kind, '', 'metadata.name', 'Required value', 'name or generateName is required', r.group || undefined)
    const key = objectKey(r, namespace, meta.name)
    if (this.store.get(s, key)) throw errors.alreadyExists(r, meta.name)
    for (const k of ['resourceVersion', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'managedFields', 'selfLink']) delete meta[k]
    meta.uid = newUid()
    meta.creationTimestamp = timestamp()
    if (r.hasGeneration) meta.generation = 1
    const input = clone({ ...body, metadata: meta })
    const obj = applyCreateDefaults(s, input)
    validateObject(r, obj)
    obj.metadata.managedFields = [managedEntry(opts, r.apiVersion, opts.applied ?? ownedFields(obj))]
    return this.store.insert(s, key, orderObject(obj)).entry
  }

  /** PUT (optionally the status subresource): 409 on a stale resourceVersion; no event when nothing changed. */
  update(r: ResourceInfo, body: any, opts: WriteOptions = {}): Entry {
    checkType(r, body)
    if (opts.decode) body = decodeBody(r, body, opts.decode)
    body = toStorage(r, body)
    const name = opts.name ?? body.metadata?.name
    if (!name) throw errors.invalid(r.kind, '', 'metadata.name', 'Required value', 'name is required', r.group || undefined)
    if (opts.name && body.metadata?.name && body.metadata.name !== opts.name) {
      throw errors.badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${opts.name})`)
    }
    const namespace = r.namespaced ? (opts.namespace ?? body.metadata?.namespace ?? 'default') : undefined
    if (opts.namespace && body.metadata?.namespace && body.metadata.namespace !== opts.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request')
    }
    const cur = this.get(r, namespace, name)
    if (!cur) throw errors.notFound(r, name)
    const rv = body.metadata?.resourceVersion
    if (rv && rv !== cur.obj.metadata.resourceVersion) throw errors.conflict(r, name)
    return this.#write(r, cur, clone(body), opts)
  }

  /** PATCH: merge, strategic (approximated) or JSON patch on the current object as `r` shows it, then an update. */
  patch(r: ResourceInfo, namespace: string | undefined, name: string, type: PatchType, patch: any, opts: WriteOptions = {}): Entry {
    const cur = this.get(r, namespace, name)
    if (!cur) throw errors.notFound(r, name)
    const base = toView(r, cur.obj)
    let next = type === 'json' ? jsonPatch(base, patch) : type === 'strategic' ? strategicMergePatch(base, patch) : mergePatch(base, patch)
    if (opts.decode) next = decodePatched(r, next, opts.decode)
    if (next?.metadata?.resourceVersion && next.metadata.resourceVersion !== base.metadata.resourceVersion) throw errors.conflict(r, name)
    return this.#write(r, cur, toStorage(r, clone(next)), opts)
  }

  /**
   * Server-side apply (PATCH application/apply-patch+yaml): creates the object when absent, else merges
   * the applied fields into it and drops the fields this manager applied before and no longer does.
   * Approximated: no conflicts between managers (as if `force` were always true).
   */
  apply(r: ResourceInfo, namespace: string | undefined, name: string, body: any, opts: WriteOptions & { fieldManager: string }): Entry {
    checkType(r, body)
    if (!body.apiVersion || !body.kind) throw errors.badRequest('an apply patch must set apiVersion and kind')
    if (body.metadata?.name !== undefined && body.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`)
    }
    if (opts.decode) body = decodeBody(r, body, opts.decode)
    const root = resourceType(r)
    const applied = appliedFieldSet(root, body)
    const cur = this.get(r, namespace, name)
    if (!cur) return this.create(r, { ...body, metadata: { ...body.metadata, name } }, { ...opts, decode: undefined, namespace, applied })
    const live = toView(r, cur.obj)
    const previous = (live.metadata.managedFields ?? []).find((m: any) => m.manager === opts.fieldManager && m.operation === 'Apply' && !m.subresource)
    const next = mergeApplied(root, live, body, previous?.fieldsV1, applied)
    if (body.metadata?.resourceVersion && body.metadata.resourceVersion !== live.metadata.resourceVersion) throw errors.conflict(r, name)
    return this.#write(r, cur, toStorage(r, clone(next)), { ...opts, applied })
  }

  /** DELETE: scheduled pods and objects with finalizers only get a deletionTimestamp; others are removed. */
  delete(r: ResourceInfo, namespace: string | undefined, name: string, opts: DeleteOptions = {}): DeleteResult {
    const cur = this.get(r, namespace, name)
    if (!cur) throw errors.notFound(r, name)
    const meta = cur.obj.metadata
    if (opts.propagationPolicy === 'Orphan') this.#orphanDependents(cur)
    if (r.kind === 'Namespace') {
      if (meta.deletionTimestamp) return { entry: cur, gone: false }
      const next = { ...cur.obj, metadata: { ...meta, deletionTimestamp: timestamp() }, status: { phase: 'Terminating' } }
      return { entry: this.store.replace(cur.resource, cur.key, orderObject(next)).entry, gone: false }
    }
    if (r.kind === 'Pod' && this.#gracefulPod(cur.obj) && opts.gracePeriodSeconds !== 0) {
      if (meta.deletionTimestamp) return { entry: cur, gone: false }
      const grace = opts.gracePeriodSeconds ?? cur.obj.spec?.terminationGracePeriodSeconds ?? 30
      const next = { ...cur.obj, metadata: { ...meta, deletionTimestamp: timestamp(Date.now() + grace * 1000), deletionGracePeriodSeconds: grace } }
      return { entry: this.store.replace(cur.resource, cur.key, orderObject(next)).entry, gone: false }
    }
    if (meta.finalizers?.length) {
      if (meta.deletionTimestamp) return { entry: cur, gone: false }
      const next = { ...cur.obj, metadata: { ...meta, deletionTimestamp: timestamp(), deletionGracePeriodSeconds: 0 } }
      return { entry: this.store.replace(cur.resource, cur.key, orderObject(next)).entry, gone: false }
    }
    return { entry: this.store.remove(cur.resource, cur.key)!.entry, gone: true }
  }

  #namespaceOf(meta: Record<string, any>, opts: WriteOptions): string {
    if (opts.namespace && meta.namespace && meta.namespace !== opts.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request')
    }
    return opts.namespace ?? meta.namespace ?? 'default'
  }

  /** Pods that a (simulated) kubelet runs terminate gracefully; unscheduled and finished pods go at once. */
  #gracefulPod(pod: KubeObject): boolean {
    const phase = pod.status?.phase
    return Boolean(pod.spec?.nodeName) && this.gracefulPods() && phase !== 'Succeeded' && phase !== 'Failed'
  }

  #write(r: ResourceInfo, cur: Entry, body: KubeObject, opts: WriteOptions): Entry {
    const old = cur.obj
    let next: KubeObject
    if (opts.subresource === 'status') {
      next = { ...old, status: body.status }
    } else {
      const meta = { ...(body.metadata ?? {}) }
      for (const k of PROTECTED_META) {
        if (old.metadata[k] === undefined) delete meta[k]
        else meta[k] = old.metadata[k]
      }
      if (opts.subresource === 'all') {
        if (body.metadata?.deletionTimestamp) meta.deletionTimestamp = body.metadata.deletionTimestamp
        next = { ...body, metadata: meta }
      } else {
        next = { ...body, metadata: meta }
        if (cur.resource.subresources.includes('status') || old.status !== undefined) next.status = old.status
      }
    }
    const s = cur.resource
    if (s.hasGeneration && !deepEqual(old.spec, next.spec)) next.metadata.generation = (old.metadata.generation ?? 0) + 1
    next.metadata.managedFields = old.metadata.managedFields
    next.metadata.resourceVersion = old.metadata.resourceVersion
    delete (next as any).kind
    delete (next as any).apiVersion
    if (deepEqual(old, next)) return cur
    validateObject(r, next, old)
    const manager = opts.fieldManager ?? 'sim'
    const sub = opts.subresource === 'status' ? 'status' : undefined
    const owned = opts.applied ?? (sub ? fieldsV1({ status: next.status }) : ownedFields(next))
    const operation = opts.applied ? 'Apply' : 'Update'
    const others = (old.metadata.managedFields ?? []).filter((m: any) => m.manager !== manager || m.subresource !== sub || m.operation !== operation)
    next.metadata.managedFields = [...others, managedEntry(opts, r.apiVersion, owned, sub)]
    const entry = this.store.replace(s, cur.key, orderObject(next)).entry
    const finalizersCleared = old.metadata.finalizers?.length && !next.metadata.finalizers?.length
    if (finalizersCleared && next.metadata.deletionTimestamp && !(r.kind === 'Pod' && this.#gracefulPod(next))) {
      return this.store.remove(s, cur.key)!.entry
    }
    return entry
  }

  #orphanDependents(owner: Entry): void {
    for (const dep of this.store.dependentsOf(owner.uid)) {
      const refs = (dep.obj.metadata.ownerReferences ?? []).filter((o: any) => o.uid !== owner.uid)
      const meta = { ...dep.obj.metadata, ownerReferences: refs.length ? refs : undefined }
      this.store.replace(dep.resource, dep.key, orderObject({ ...dep.obj, metadata: meta }))
    }
  }
}

/** The managedFields entry of a write: an Apply of the applied fields, or an Update. */
function managedEntry(opts: WriteOptions, apiVersion: string, fields: Record<string, unknown>, subresource?: string): Record<string, unknown> {
  const entry = managedFieldsEntry(opts.fieldManager ?? 'sim', apiVersion, fields, subresource)
  return opts.applied ? { ...entry, operation: 'Apply' } : entry
}

/** The fields a writer owns: metadata labels/annotations/owners/finalizers and the spec (status is the kubelet's/controllers'). */
function ownedFields(obj: KubeObject): Record<string, unknown> {
  const m = obj.metadata
  const meta: Record<string, unknown> = {}
  for (const k of ['generateName', 'labels', 'annotations', 'ownerReferences', 'finalizers']) if (m[k] !== undefined) meta[k] = m[k]
  const rest: Record<string, unknown> = { metadata: meta }
  for (const [k, v] of Object.entries(obj)) if (k !== 'metadata' && k !== 'status') rest[k] = v
  return fieldsV1(rest)
}

function checkType(r: ResourceInfo, body: any): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('the body of the request is not a JSON object')
  if (body.apiVersion && body.apiVersion !== r.apiVersion) {
    throw errors.badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${r.apiVersion})`)
  }
  if (body.kind && body.kind !== r.kind) {
    throw errors.badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${r.kind})`)
  }
}
