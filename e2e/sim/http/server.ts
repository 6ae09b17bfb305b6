// The request handler: authentication, injected faults, routing to discovery, list, watch and the object verbs.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import { errors, SimApiError } from '../api/errors.ts'
import { ADMIN_CN } from '../tls/pki.ts'
import type { DeleteOptions, PatchType } from '../api/object-api.ts'
import { objectKey, type ResourceInfo } from '../api/resources.ts'
import type { Entry } from '../store/entry.ts'
import { handleAdmin, type AdminHooks } from './admin.ts'
import type { ServerContext } from './context.ts'
import { discoveryDocument } from './discovery.ts'
import { handleList } from './list.ts'
import { negotiate } from './negotiate.ts'
import { parseListQuery, type ListQuery } from './query.ts'
import { readJsonBody, sendError, sendJson } from './respond.ts'
import { parseRoute } from './route.ts'
import { renderTable } from './table.ts'
import { handleWatch } from './watch.ts'

const PATCH_TYPES: Record<string, PatchType> = {
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/json-patch+json': 'json',
}

/** The credentials the server accepts besides the admin certificate (they change with a fresh PKI). */
export interface AuthHooks {
  token(): string
}

/** Builds the Node request listener of the simulated API server. */
export function createHandler(ctx: ServerContext, admin: AdminHooks, auth: AuthHooks): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    ctx.requests++
    handle(ctx, admin, auth, req, res).catch((err) => {
      if (!res.headersSent) sendError(res, err)
      else res.destroy()
    })
  }
}

async function handle(ctx: ServerContext, admin: AdminHooks, auth: AuthHooks, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://sim')
  const route = parseRoute(url.pathname)
  if (route.type === 'health') {
    sendJson(res, 200, 'ok', { 'Content-Type': 'text/plain; charset=utf-8' })
    return
  }
  if (!authenticated(auth, req)) throw errors.unauthorized()
  if (ctx.faults.delayMs > 0) await new Promise((r) => setTimeout(r, ctx.faults.delayMs))
  const method = req.method ?? 'GET'
  switch (route.type) {
    case 'discovery': {
      const doc = method === 'GET' ? discoveryDocument(route.path, `${ctx.config.host}:${ctx.config.port}`) : undefined
      if (!doc) throw method === 'GET' ? errors.resourceNotFound() : errors.methodNotAllowed()
      sendJson(res, 200, doc)
      return
    }
    case 'admin':
      await handleAdmin(admin, method, route.segments, req, res)
      return
    case 'notFound':
      throw errors.resourceNotFound()
    case 'resource':
      break
  }
  const { resource: r, namespace, name, subresource } = route
  const q = parseListQuery(url.searchParams, route.watchPath)
  const verb = verbOf(method, name !== undefined, q.watch)
  const failure = ctx.faults.takeFailure(r, verb, namespace)
  if (failure) throw failure

  switch (verb) {
    case 'list':
      await handleList(ctx, res, r, namespace, q, negotiate(req.headers.accept, 'list', r.kind))
      return
    case 'watch': {
      const meta = negotiate(req.headers.accept, 'watch', r.kind) === 'meta'
      // A watch of one object (`…/pods/NAME?watch=1` or the watch path) is a watch with a name selector.
      const query: ListQuery = name === undefined ? q : withNameSelector(q, name)
      handleWatch(ctx, res, r, namespace, query, meta)
      return
    }
    case 'get': {
      const entry = must(ctx, r, namespace, name!)
      if (subresource === 'scale') return sendJson(res, 200, JSON.stringify(scaleOf(entry)))
      sendObject(res, 200, entry, negotiate(req.headers.accept, 'object', r.kind))
      return
    }
    case 'create': {
      if (name !== undefined || subresource) throw errors.methodNotAllowed()
      const entry = ctx.api.create(r, await readJsonBody(req), { namespace, fieldManager: fieldManager(url, req) })
      sendObject(res, 201, entry, 'full')
      return
    }
    case 'update': {
      const body = await readJsonBody(req)
      if (subresource === 'scale') {
        const entry = setScale(ctx, r, namespace, name!, body?.spec?.replicas)
        return sendJson(res, 200, JSON.stringify(scaleOf(entry)))
      }
      const entry = ctx.api.update(r, body, {
        namespace, name, fieldManager: fieldManager(url, req), subresource: subresource === 'status' ? 'status' : undefined,
      })
      sendObject(res, 200, entry, 'full')
      return
    }
    case 'patch': {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
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
      const entry = ctx.api.patch(r, namespace, name!, type, body, {
        fieldManager: fieldManager(url, req), subresource: subresource === 'status' ? 'status' : undefined,
      })
      sendObject(res, 200, entry, 'full')
      return
    }
    case 'delete': {
      const opts = deleteOptions(url, await readJsonBody(req))
      const result = ctx.api.delete(r, namespace, name!, opts)
      sendObject(res, 200, result.entry, 'full')
      return
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
      const items = deleted.map((e) => e.itemBytes.toString()).join(',')
      sendJson(res, 200, `{"kind":"${r.kind}List","apiVersion":"${r.apiVersion}","metadata":{"resourceVersion":"${ctx.store.resourceVersion}"},"items":[${items}]}`)
      return
    }
  }
}

type Verb = 'list' | 'watch' | 'get' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection'

function verbOf(method: string, named: boolean, watch: boolean): Verb {
  switch (method) {
    case 'GET':
      return watch ? 'watch' : named ? 'get' : 'list'
    case 'POST':
      return 'create'
    case 'PUT':
      if (named) return 'update'
      break
    case 'PATCH':
      if (named) return 'patch'
      break
    case 'DELETE':
      return named ? 'delete' : 'deletecollection'
  }
  throw errors.methodNotAllowed()
}

/**
 * The admin client certificate (signed by the simulator's CA, CN=sim-admin) or the bearer token.
 * `authorized` alone is not enough: Node reports a TLS 1.3 session resumed without any client
 * certificate as authorized (it takes the resumption PSK for authentication), so every request
 * after the first 401 on a connection-pooling client would pass. The peer certificate must be there.
 */
function authenticated(auth: AuthHooks, req: IncomingMessage): boolean {
  const socket = req.socket as TLSSocket
  if (socket.authorized && socket.getPeerCertificate()?.subject?.CN === ADMIN_CN) return true
  const header = req.headers.authorization
  return header !== undefined && header === `Bearer ${auth.token()}`
}

function must(ctx: ServerContext, r: ResourceInfo, namespace: string | undefined, name: string): Entry {
  const entry = ctx.store.get(r, objectKey(r, namespace, name))
  if (!entry) throw errors.notFound(r, name)
  return entry
}

function sendObject(res: ServerResponse, status: number, entry: Entry, rep: 'full' | 'meta' | 'table'): void {
  if (rep === 'table') sendJson(res, status, renderTable(entry.resource.kind, [entry], { resourceVersion: String(entry.rv) }))
  else sendJson(res, status, rep === 'meta' ? entry.metaBytes : entry.objectJson)
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

function withNameSelector(q: ListQuery, name: string): ListQuery {
  const byName = (o: any) => o.metadata?.name === name
  const selector = q.selector ? (o: any) => byName(o) && q.selector!(o) : byName
  return { ...q, selector, hasSelector: true }
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
