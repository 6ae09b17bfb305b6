// The object verbs over HTTP: get, create, update, patch, delete, deletecollection, and /scale; bodies
// decoded per `fieldValidation`, responses in the representation of the API group asked.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { DecodeOptions, FieldValidation } from '../api/decode.ts'
import { errors, fieldErrors, SimApiError } from '../api/errors.ts'
import type { DeleteOptions, PatchType } from '../api/object-api.ts'
import type { ResourceInfo } from '../api/resources.ts'
import { viewEntry } from '../api/views.ts'
import type { Entry } from '../store/entry.ts'
import type { ServerContext } from './context.ts'
import { negotiate, type Representation } from './negotiate.ts'
import type { ListQuery } from './query.ts'
import { readJsonBody, readYamlBody, sendJson } from './respond.ts'
import type { Route } from './route.ts'
import type { Verb } from './server.ts'
import { renderTable } from './table.ts'

const PATCH_TYPES: Record<string, PatchType> = {
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/json-patch+json': 'json',
}

type ResourceRoute = Extract<Route, { type: 'resource' }>

/** Serves get, create, update, patch, delete and deletecollection of one resource request. */
export async function handleObjectVerb(
  ctx: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL, route: ResourceRoute, verb: Verb, q: ListQuery,
): Promise<void> {
  const { resource: r, namespace, name, subresource } = route
  const status = subresource === 'status' ? 'status' as const : undefined
  switch (verb) {
    case 'get': {
      const entry = must(ctx, r, namespace, name!)
      if (subresource === 'scale') return sendJson(res, 200, JSON.stringify(scaleOf(entry)))
      // Without its `protobuf` argument negotiate never answers protobuf.
      return sendObject(res, 200, r, entry, negotiate(req.headers.accept, 'object', r.kind) as Exclude<Representation, 'protobuf'>)
    }
    case 'create': {
      if (name !== undefined || subresource) throw errors.methodNotAllowed()
      const decode = decodeOptions(url, 'CreateOptions')
      const entry = ctx.api.create(r, await readJsonBody(req), { namespace, fieldManager: fieldManager(url, req), decode })
      return sendObject(res, 201, r, entry, 'full', decode.warnings)
    }
    case 'update': {
      const body = await readJsonBody(req)
      if (subresource === 'scale') {
        const entry = setScale(ctx, r, namespace, name!, body?.spec?.replicas)
        return sendJson(res, 200, JSON.stringify(scaleOf(entry)))
      }
      const decode = decodeOptions(url, 'UpdateOptions')
      const entry = ctx.api.update(r, body, { namespace, name, fieldManager: fieldManager(url, req), subresource: status, decode })
      return sendObject(res, 200, r, entry, 'full', decode.warnings)
    }
    case 'patch': {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
      if (contentType === APPLY_PATCH && !subresource) return serverSideApply(ctx, req, res, url, r, namespace, name!)
      const type = PATCH_TYPES[contentType]
      if (!type) throw errors.unsupportedMediaType(contentType || 'none')
      const body = await readJsonBody(req)
      if (subresource === 'scale') {
        const current = scaleOf(must(ctx, r, namespace, name!))
        const replicas = type === 'json' ? undefined : body?.spec?.replicas ?? current.spec.replicas
        if (replicas === undefined) throw errors.badRequest('only merge patches of spec.replicas are supported on scale')
        const entry = setScale(ctx, r, namespace, name!, replicas)
        return sendJson(res, 200, JSON.stringify(scaleOf(entry)))
      }
      const decode = decodeOptions(url, 'PatchOptions')
      const entry = ctx.api.patch(r, namespace, name!, type, body, { fieldManager: fieldManager(url, req), subresource: status, decode })
      return sendObject(res, 200, r, entry, 'full', decode.warnings)
    }
    case 'delete': {
      const result = ctx.api.delete(r, namespace, name!, deleteOptions(url, await readJsonBody(req)))
      return sendObject(res, 200, r, result.entry, 'full')
    }
    case 'deletecollection': {
      const opts = deleteOptions(url, await readJsonBody(req))
      const deleted: Entry[] = []
      for (const e of ctx.store.entries(r, namespace)) {
        if (q.selector && !q.selector(e.obj)) continue
        try {
          deleted.push(ctx.api.delete(r, e.namespace, e.name, opts).entry)
        } catch (err) {
          if (!(err instanceof SimApiError && err.code === 404)) throw err
        }
      }
      const items = deleted.map((e) => viewEntry(r, e).itemBytes.toString()).join(',')
      return sendJson(res, 200, `{"kind":"${r.kind}List","apiVersion":"${r.apiVersion}","metadata":{"resourceVersion":"${ctx.store.resourceVersion}"},"items":[${items}]}`)
    }
    default:
      throw errors.methodNotAllowed()
  }
}

const APPLY_PATCH = 'application/apply-patch+yaml'

/** PATCH application/apply-patch+yaml: fieldManager is required; the body is YAML (JSON is YAML too). */
async function serverSideApply(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL, r: ResourceInfo, namespace: string | undefined, name: string): Promise<void> {
  const manager = url.searchParams.get('fieldManager')
  if (!manager) {
    throw fieldErrors('PatchOptions', 'meta.k8s.io', '', [{ type: 'Required value', field: 'fieldManager', detail: 'is required for apply patch' }])
  }
  const force = url.searchParams.get('force')
  if (force !== null && force !== 'true' && force !== 'false') throw errors.badRequest(`invalid force: ${force}`)
  const body = await readYamlBody(req)
  const decode = decodeOptions(url, 'PatchOptions')
  const existed = ctx.api.get(r, namespace, name) !== undefined
  const entry = ctx.api.apply(r, namespace, name, body, { fieldManager: manager, decode })
  sendObject(res, existed ? 200 : 201, r, entry, 'full', decode.warnings)
}

function must(ctx: ServerContext, r: ResourceInfo, namespace: string | undefined, name: string): Entry {
  const entry = ctx.api.get(r, namespace, name)
  if (!entry) throw errors.notFound(r, name)
  return entry
}

/** One object as `r` shows it; a Table is rendered from the stored object, as the server's printers are. */
function sendObject(res: ServerResponse, status: number, r: ResourceInfo, entry: Entry, rep: 'full' | 'meta' | 'table', warnings: readonly string[] = []): void {
  const headers: Record<string, string | string[]> = warnings.length ? { Warning: warnings.map(warningHeader) } : {}
  if (rep === 'table') return sendJson(res, status, renderTable(entry.resource.kind, [entry], { resourceVersion: String(entry.rv) }), headers)
  const view = viewEntry(r, entry)
  sendJson(res, status, rep === 'meta' ? view.metaBytes : view.objectJson, headers)
}

/** `299 - "text"`: the API server's warning header value. */
function warningHeader(text: string): string {
  return `299 - "${text.replace(/[\\"]/g, (c) => '\\' + c)}"`
}

const VALIDATIONS: readonly FieldValidation[] = ['Ignore', 'Warn', 'Strict']

/** The `fieldValidation` query parameter (default Warn); another value is a 422 as the API server reports it. */
function decodeOptions(url: URL, options: string): DecodeOptions {
  const v = url.searchParams.get('fieldValidation') ?? ''
  if (v && !VALIDATIONS.includes(v as FieldValidation)) {
    throw fieldErrors(options, 'meta.k8s.io', '', [{ type: 'Invalid value', field: 'fieldValidation', value: v, detail: 'supported values: "Ignore", "Strict", "Warn"' }])
  }
  return { fieldValidation: (v || 'Warn') as FieldValidation, warnings: [] }
}

function fieldManager(url: URL, req: IncomingMessage): string {
  const fm = url.searchParams.get('fieldManager')
  if (fm) return fm
  const ua = String(req.headers['user-agent'] ?? 'sim')
  return ua.split('/')[0] || 'sim'
}

function deleteOptions(url: URL, body: any): DeleteOptions {
  const grace = body?.gracePeriodSeconds ?? url.searchParams.get('gracePeriodSeconds')
  const policy = body?.propagationPolicy ?? url.searchParams.get('propagationPolicy') ?? undefined
  const opts: DeleteOptions = {}
  if (grace !== null && grace !== undefined && grace !== '') {
    const n = Number(grace)
    if (!Number.isInteger(n) || n < 0) throw errors.badRequest(`invalid gracePeriodSeconds: ${grace}`)
    opts.gracePeriodSeconds = n
  }
  if (policy !== undefined) {
    if (!['Background', 'Foreground', 'Orphan'].includes(policy)) throw errors.badRequest(`invalid propagationPolicy: ${policy}`)
    opts.propagationPolicy = policy
  }
  return opts
}

/** The autoscaling/v1 Scale of a Deployment, ReplicaSet or StatefulSet. */
function scaleOf(entry: Entry): any {
  const o = entry.obj
  const sel = o.spec?.selector?.matchLabels ?? {}
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: o.metadata.name, namespace: o.metadata.namespace, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion, creationTimestamp: o.metadata.creationTimestamp },
    spec: { replicas: o.spec?.replicas ?? 0 },
    status: { replicas: o.status?.replicas ?? 0, selector: Object.entries(sel).map(([k, v]) => `${k}=${v}`).join(',') },
  }
}

function setScale(ctx: ServerContext, r: ResourceInfo, namespace: string | undefined, name: string, replicas: unknown): Entry {
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw errors.invalid('Scale', name, 'spec.replicas', 'Invalid value', `${JSON.stringify(replicas)}: must be greater than or equal to 0`, 'autoscaling')
  }
  return ctx.api.patch(r, namespace, name, 'merge', { spec: { replicas } })
}
