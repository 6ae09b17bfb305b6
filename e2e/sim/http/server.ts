// The request handler: authentication, injected faults, routing to discovery, list, watch and the object verbs.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import { errors } from '../api/errors.ts'
import type { ResourceInfo } from '../api/resources.ts'
import { ADMIN_CN } from '../tls/pki.ts'
import { handleAdmin, type AdminHooks } from './admin.ts'
import type { ServerContext } from './context.ts'
import { discoveryDocument } from './discovery.ts'
import { handleList } from './list.ts'
import { negotiate } from './negotiate.ts'
import { handleObjectVerb } from './objects.ts'
import { createOpenApiHandler } from './openapi.ts'
import { parseListQuery, type ListQuery } from './query.ts'
import { acceptsGzip, sendError, sendJson } from './respond.ts'
import { parseRoute } from './route.ts'
import { handleWatch } from './watch.ts'

/** The credentials the server accepts besides the admin certificate (they change with a fresh PKI). */
export interface AuthHooks {
  token(): string
}

/** Builds the Node request listener of the simulated API server. */
export function createHandler(ctx: ServerContext, admin: AdminHooks, auth: AuthHooks): (req: IncomingMessage, res: ServerResponse) => void {
  const openapi = createOpenApiHandler()
  return (req, res) => {
    ctx.requests++
    handle(ctx, admin, auth, openapi, req, res).catch((err) => {
      if (!res.headersSent) sendError(res, err)
      else res.destroy()
    })
  }
}

async function handle(
  ctx: ServerContext, admin: AdminHooks, auth: AuthHooks, openapi: ReturnType<typeof createOpenApiHandler>, req: IncomingMessage, res: ServerResponse,
): Promise<void> {
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
    case 'openapi':
      if (method !== 'GET') throw errors.methodNotAllowed()
      openapi(route.path, req, res)
      return
    case 'notFound':
      throw errors.resourceNotFound()
    case 'resource':
      break
  }
  const { resource: r, namespace, name } = route
  const q = parseListQuery(url.searchParams, route.watchPath, r)
  const verb = verbOf(method, name !== undefined, q.watch)
  const failure = ctx.faults.takeFailure(r, verb, namespace)
  if (failure) throw failure

  switch (verb) {
    case 'list':
      // Compressed past 128 KiB when the client accepts gzip, as kube-apiserver does.
      await handleList(ctx, res, r, namespace, q, negotiate(req.headers.accept, 'list', r.kind, protobufOf(ctx, r)), acceptsGzip(req.headers['accept-encoding']))
      return
    case 'watch': {
      const rep = negotiate(req.headers.accept, 'watch', r.kind, protobufOf(ctx, r))
      // A watch of one object (`…/pods/NAME?watch=1` or the watch path) is a watch with a name selector.
      const query: ListQuery = name === undefined ? q : withNameSelector(q, name)
      // kube-apiserver v1.37.2 compresses a streaming list (one gzip member per flush) and never an
      // ordinary watch, whatever its events' size (e2e/sim/README.md "Compression").
      handleWatch(ctx, res, r, namespace, query, rep, query.sendInitialEvents === true && acceptsGzip(req.headers['accept-encoding']))
      return
    }
    default:
      await handleObjectVerb(ctx, req, res, url, route, verb, q)
  }
}

/** Whether this resource's lists and watches may be answered as protobuf (core/v1 pods, with the `protobuf` option). */
const protobufOf = (ctx: ServerContext, r: ResourceInfo): boolean => ctx.config.protobuf && r.kind === 'Pod' && r.apiVersion === 'v1'

export type Verb = 'list' | 'watch' | 'get' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection'

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

function withNameSelector(q: ListQuery, name: string): ListQuery {
  const byName = (o: any) => o.metadata?.name === name
  const selector = q.selector ? (o: any) => byName(o) && q.selector!(o) : byName
  return { ...q, selector, hasSelector: true }
}
