// Test support for the TLS matrix: a small real HTTPS API server with the TLS material and the
// authentication of one case, serving the three collections the collector lists and watches
// (empty, streaming lists and plain LIST + WATCH) and the discovery documents kubectl reads (the
// simulator's), under an optional path prefix, on 127.0.0.1 or ::1; over HTTP/2 and HTTP/1.1 by
// ALPN, as a kube-apiserver (kubectl and the collector both take h2).
import http2 from 'node:http2'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { discoveryDocument } from '../sim/http/discovery.ts'

/** What the server saw of one request. */
export interface SeenRequest {
  readonly path: string
  readonly query: URLSearchParams
  readonly userAgent: string
  /** The bearer token, '' without one. */
  readonly token: string
  /** CN of the client certificate, '' without one. */
  readonly clientCn: string
  readonly status: number
  /** When it arrived (Date.now()). */
  readonly at: number
  /** `2.0` or `1.1`. */
  readonly protocol: string
}

/** Who may in: a bearer token (`accepts` decides), a client certificate of `clientCa` with this CN, or anyone. */
export type Authn = { readonly type: 'none' } | { readonly type: 'token'; accepts(token: string): boolean } | { readonly type: 'cert'; readonly cn: string }

export interface MatrixServerOptions {
  readonly certPem: string
  readonly keyPem: string
  /** Verifies client certificates (requested, not required: a token user has none). */
  readonly clientCaPem?: string
  readonly host: '127.0.0.1' | '::1'
  /** Served under this path (e.g. `/k8s/clusters/c-m-1`), as Rancher's proxy serves clusters. */
  readonly prefix?: string
  readonly authn: Authn
  /** Ends every watch body this long after it started (default: at the request's timeoutSeconds). */
  readonly watchMs?: number
}

export interface MatrixServer {
  /** `https://host:port` + prefix. */
  readonly url: string
  readonly port: number
  readonly requests: SeenRequest[]
  /** TLS handshakes that failed on the server side, with the error code. */
  readonly tlsErrors: string[]
  /** Ends every open watch body now, or those whose bearer token `which` picks (the client watches again). */
  endWatches(which?: (token: string) => boolean): void
  close(): Promise<void>
}

const COLLECTIONS: Record<string, { kind: string; apiVersion: string }> = {
  '/api/v1/pods': { kind: 'Pod', apiVersion: 'v1' },
  '/apis/apps/v1/replicasets': { kind: 'ReplicaSet', apiVersion: 'apps/v1' },
  '/apis/batch/v1/jobs': { kind: 'Job', apiVersion: 'batch/v1' },
  '/api/v1/namespaces': { kind: 'Namespace', apiVersion: 'v1' },
}

const RV = '100'

function status(res: ServerResponse, code: number, reason: string, message: string): number {
  res.writeHead(code, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }))
  return code
}

/** Starts the server; resolves once it listens. */
export async function startMatrixServer(opts: MatrixServerOptions): Promise<MatrixServer> {
  const requests: SeenRequest[] = []
  const tlsErrors: string[] = []
  /** Open watch bodies, with the bearer token of their request. */
  const watches = new Map<ServerResponse, string>()
  const sockets = new Set<Socket>()
  const prefix = opts.prefix ?? ''
  let port = 0

  const authenticated = (req: IncomingMessage, token: string, clientCn: string): boolean => {
    switch (opts.authn.type) {
      case 'none':
        return true
      case 'token':
        return token !== '' && opts.authn.accepts(token)
      case 'cert':
        // authorized alone is not enough: a resumed TLS 1.3 session counts as authorized without a certificate (e2e/sim/http/server.ts).
        return (req.socket as TLSSocket).authorized && clientCn === opts.authn.cn
    }
  }

  const handle = (req: IncomingMessage, res: ServerResponse, token: string): number => {
    const url = new URL(req.url ?? '/', 'https://x')
    if (!url.pathname.startsWith(prefix)) return status(res, 404, 'NotFound', `not under ${prefix}`)
    const path = url.pathname.slice(prefix.length)
    const doc = discoveryDocument(path, `${opts.host}:${port}`)
    if (doc !== undefined) {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(doc)
      return 200
    }
    const collection = COLLECTIONS[path]
    if (!collection) return status(res, 404, 'NotFound', `the server could not find the requested resource (${path})`)
    const q = url.searchParams
    if (q.get('watch') !== '1' && q.get('watch') !== 'true') {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ kind: `${collection.kind}List`, apiVersion: collection.apiVersion, metadata: { resourceVersion: RV }, items: [] }))
      return 200
    }
    // HTTP/2 forbids Transfer-Encoding (RFC 9113 §8.2.2).
    res.writeHead(200, req.httpVersionMajor === 2 ? { 'Content-Type': 'application/json' } : { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' })
    res.flushHeaders()
    // A streaming list of an empty collection: only the end bookmark (docs/kube-api.md "Streaming lists").
    if (q.get('sendInitialEvents') === 'true') {
      const object = { kind: collection.kind, apiVersion: collection.apiVersion, metadata: { resourceVersion: RV, annotations: { 'k8s.io/initial-events-end': 'true' } } }
      res.write(JSON.stringify({ type: 'BOOKMARK', object }) + '\n')
    }
    watches.set(res, token)
    const ms = opts.watchMs ?? Number(q.get('timeoutSeconds') ?? 600) * 1000
    const timer = setTimeout(() => res.end(), ms)
    res.on('close', () => {
      clearTimeout(timer)
      watches.delete(res)
    })
    return 200
  }

  const server = http2.createSecureServer(
    { allowHTTP1: true, cert: opts.certPem, key: opts.keyPem, ...(opts.clientCaPem ? { ca: opts.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}) },
    ((req: IncomingMessage, res: ServerResponse) => {
      const auth = req.headers.authorization ?? ''
      const token = auth.startsWith('Bearer ') ? auth.slice(7) : ''
      const peer = (req.socket as TLSSocket).getPeerCertificate?.()
      const clientCn = peer?.subject ? String(peer.subject.CN ?? '') : ''
      const url = new URL(req.url ?? '/', 'https://x')
      const code = authenticated(req, token, clientCn) ? handle(req, res, token) : status(res, 401, 'Unauthorized', 'Unauthorized')
      requests.push({ path: url.pathname, query: url.searchParams, userAgent: String(req.headers['user-agent'] ?? ''), token, clientCn, status: code, at: Date.now(), protocol: req.httpVersion })
    }) as never,
  )
  server.on('sessionError', () => {})
  server.on('tlsClientError', (err: NodeJS.ErrnoException) => void tlsErrors.push(err.code ?? err.message))
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, opts.host, () => resolve())
  })
  port = (server.address() as AddressInfo).port
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
  return {
    url: `https://${host}:${port}${prefix}`,
    port,
    requests,
    tlsErrors,
    endWatches(which) {
      for (const [w, token] of [...watches]) if (which === undefined || which(token)) w.end()
    },
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
