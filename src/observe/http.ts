// The health and metrics listener: /healthz, /readyz and /metrics (plus extra routes) over node:http.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { logger } from './log.ts'
import { PROMETHEUS_CONTENT_TYPE, type Registry } from './metrics.ts'

/** Readiness: `true`/`false`, or with a reason that /readyz returns (`ok: standby`, `not ready: …`). */
export type ReadyState = boolean | { readonly ready: boolean; readonly reason?: string }

/** What a route answers. */
export interface HttpReply {
  /** Default 200. */
  readonly status?: number
  /** Default `text/plain; charset=utf-8`. */
  readonly contentType?: string
  readonly body: string | Uint8Array
}

/** An extra GET route; its exceptions become a 500 (logged). */
export type Route = (req: { readonly url: URL; readonly headers: IncomingHttpHeaders }) => HttpReply | Promise<HttpReply>

export interface HealthServerOptions {
  /** Listen address, e.g. `0.0.0.0` or `127.0.0.1`. */
  readonly host: string
  /** Listen port; 0 picks a free one (see {@link HealthServer.port}). */
  readonly port: number
  /** Asked on every /readyz. */
  readonly ready: () => ReadyState
  /** Rendered on every /metrics. */
  readonly metrics: Registry
  /** More GET routes by exact path (e.g. `/debug/state`); they cannot replace the three built-in ones. */
  readonly extra?: Readonly<Record<string, Route>>
}

export interface HealthServer {
  readonly host: string
  /** The bound port (the ephemeral one when 0 was asked). */
  readonly port: number
  /** Stops listening and closes open connections. */
  close(): Promise<void>
}

/** The listener could not be started (address in use, permission denied …). */
export class HealthServerError extends Error {
  override name = 'HealthServerError'
}

const TEXT = 'text/plain; charset=utf-8'

function reply(res: ServerResponse, head: boolean, r: HttpReply): void {
  const body = typeof r.body === 'string' ? new TextEncoder().encode(r.body) : r.body
  res.writeHead(r.status ?? 200, {
    'content-type': r.contentType ?? TEXT,
    'content-length': body.length,
    'cache-control': 'no-store',
  })
  res.end(head ? undefined : body)
}

function readiness(state: ReadyState): HttpReply {
  const ready = typeof state === 'boolean' ? state : state.ready
  const reason = typeof state === 'boolean' ? undefined : state.reason
  if (ready) return { body: `ok${reason ? `: ${reason}` : ''}\n` }
  return { status: 503, body: `not ready${reason ? `: ${reason}` : ''}\n` }
}

/**
 * Starts the listener: `/healthz` → 200 "ok" while the process serves requests; `/readyz` → 200 when
 * `ready()` says so, else 503, with the reason if any; `/metrics` → the registry in the Prometheus text
 * format 0.0.4. GET and HEAD only (others: 405); unknown paths: 404.
 * Rejects with {@link HealthServerError} when the address cannot be bound.
 */
export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  // Tagged here, not at import: a consola child copies the logger's level and reporters of the moment.
  const log = logger.withTag('http')
  const routes = new Map<string, Route>(Object.entries(opts.extra ?? {}))
  routes.set('/healthz', () => ({ body: 'ok\n' }))
  routes.set('/readyz', () => readiness(opts.ready()))
  routes.set('/metrics', () => ({ contentType: PROMETHEUS_CONTENT_TYPE, body: opts.metrics.render() }))

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET'
    const head = method === 'HEAD'
    const url = new URL(req.url ?? '/', 'http://localhost')
    const route = routes.get(url.pathname)
    if (!route) return reply(res, head, { status: 404, body: 'not found\n' })
    if (method !== 'GET' && !head) {
      res.setHeader('allow', 'GET, HEAD')
      return reply(res, head, { status: 405, body: 'method not allowed\n' })
    }
    Promise.resolve()
      .then(() => route({ url, headers: req.headers }))
      .then(
        (r) => reply(res, head, r),
        (err: unknown) => {
          log.error(`${url.pathname} failed:`, err)
          if (!res.headersSent) reply(res, head, { status: 500, body: 'internal error\n' })
          else res.destroy()
        },
      )
  })
  server.on('clientError', (_err, socket) => socket.destroy())

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(new HealthServerError(`cannot listen on ${opts.host}:${opts.port}: ${err.message}`, { cause: err }))
    server.once('error', onError)
    server.listen(opts.port, opts.host, () => {
      server.off('error', onError)
      resolve()
    })
  })
  server.on('error', (err) => log.error('listener error:', err))
  const port = (server.address() as AddressInfo).port

  return {
    host: opts.host,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Keep-alive connections would hold close() open (closeAllConnections: Node ≥ 18.2).
        server.closeAllConnections?.()
      }),
  }
}
