// The tap's HTTP API: GET /state, GET /events?since=N, GET /healthz — JSON, documented in README.md.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { EventPage } from './event-log.ts'
import type { TapHub } from './hub.ts'
import type { TapRecord } from './record.ts'

export interface HttpListenerOptions {
  readonly host: string
  readonly port: number
  readonly hub: TapHub
}

export interface HttpListener {
  readonly port: number
  close(): Promise<void>
}

/** `/events` paging bounds. */
export const EVENTS_DEFAULT_LIMIT = 1000
export const EVENTS_MAX_LIMIT = 100_000
/** Longest `wait` (long polling) `/events` accepts, ms. */
export const EVENTS_MAX_WAIT_MS = 30_000

class BadRequest extends Error {
  override name = 'BadRequest'
}

function intParam(params: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = params.get(name)
  if (raw === null || raw === '') return fallback
  if (!/^\d+$/.test(raw)) throw new BadRequest(`${name}=${JSON.stringify(raw)} is not a whole number`)
  return Math.min(Number(raw), max)
}

const utf8 = new TextEncoder()

function send(res: ServerResponse, status: number, body: unknown, pretty: boolean, head: boolean): void {
  const bytes = utf8.encode(JSON.stringify(body, null, pretty ? 2 : undefined) + '\n')
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': bytes.length,
  })
  res.end(head ? undefined : bytes)
}

/** Resolves after `ms`, or at once when `signal` aborts (AbortSignal.any is not in every Node 20). */
function waitOrAbort(wait: (signal: AbortSignal) => Promise<void>, ms: number, outer: AbortSignal): Promise<void> {
  const inner = new AbortController()
  const timer = setTimeout(() => inner.abort(), ms)
  const onAbort = (): void => inner.abort()
  outer.addEventListener('abort', onAbort, { once: true })
  if (outer.aborted) inner.abort()
  return wait(inner.signal).finally(() => {
    clearTimeout(timer)
    outer.removeEventListener('abort', onAbort)
  })
}

/** A page narrowed to some connections / types; paging (`next`) still follows the whole log. */
function filterPage(page: EventPage, conn: number | undefined, types: Set<string> | undefined): EventPage {
  if (conn === undefined && types === undefined) return page
  const keep = (r: TapRecord): boolean => (conn === undefined || r.conn === conn) && (types === undefined || types.has(r.type))
  return { ...page, events: page.events.filter(keep) }
}

/** Starts the HTTP API; resolves once bound. */
export async function listenHttp(opts: HttpListenerOptions): Promise<HttpListener> {
  const { hub } = opts
  const closing = new AbortController()

  async function events(params: URLSearchParams): Promise<EventPage> {
    const since = intParam(params, 'since', 0, Number.MAX_SAFE_INTEGER)
    const limit = intParam(params, 'limit', EVENTS_DEFAULT_LIMIT, EVENTS_MAX_LIMIT)
    const wait = intParam(params, 'wait', 0, EVENTS_MAX_WAIT_MS)
    const connText = params.get('conn')
    const conn = connText ? intParam(params, 'conn', 0, Number.MAX_SAFE_INTEGER) : undefined
    const typeText = params.get('type')
    const types = typeText ? new Set(typeText.split(',').map((t) => t.trim()).filter(Boolean)) : undefined
    if (wait > 0 && hub.log.last <= since) {
      await waitOrAbort((signal) => hub.log.waitAfter(since, signal), wait, closing.signal)
    }
    return filterPage(hub.log.page(since, limit), conn, types)
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://tap')
    const pretty = url.searchParams.has('pretty')
    const head = req.method === 'HEAD'
    if (req.method !== 'GET' && !head) {
      res.setHeader('allow', 'GET, HEAD')
      return send(res, 405, { error: `${req.method} is not allowed; use GET` }, pretty, false)
    }
    try {
      switch (url.pathname) {
        case '/healthz': {
          const totals = hub.state().totals
          return send(res, 200, { status: 'ok', open: totals.open, closed: totals.closed }, pretty, head)
        }
        case '/state':
          return send(res, 200, hub.state(), pretty, head)
        case '/events':
          return send(res, 200, await events(url.searchParams), pretty, head)
        default:
          return send(res, 404, { error: `no such endpoint ${url.pathname}; try /state, /events, /healthz` }, pretty, head)
      }
    } catch (err) {
      if (err instanceof BadRequest) return send(res, 400, { error: err.message }, pretty, head)
      return send(res, 500, { error: err instanceof Error ? err.message : String(err) }, pretty, head)
    }
  }

  const server: Server = createServer((req, res) => {
    route(req, res).catch(() => res.destroy())
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: opts.host, port: opts.port }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : opts.port

  return {
    port,
    async close() {
      closing.abort()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections?.()
      await closed
    },
  }
}
