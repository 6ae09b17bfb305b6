// Test support: a real HTTPS server with client-certificate auth whose responses each test
// scripts request by request, plus builders for API objects, list bodies and watch lines.
import http2 from 'node:http2'
import https from 'node:https'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { KubeConfig } from '@kubernetes/client-node'
import { createKubeClient, type KubeClient, type KubeClientOptions } from '../../src/kube/client.ts'
import { createTestPki, kubeconfigFor, type TestPki } from './test-pki.ts'

/** What the server saw of one request. */
export interface FakeRequest {
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  /** CN of the client certificate, '' without one. */
  readonly clientCn: string
}

export type Handler = (req: FakeRequest, res: ServerResponse) => void | Promise<void>

export interface FakeApiServer {
  readonly url: string
  readonly pki: TestPki
  readonly requests: FakeRequest[]
  /** Queues handlers for a collection path; each request takes the next one, then `fallback`. */
  script(path: string, ...handlers: Handler[]): void
  /** Used when a path has no scripted handler left. Default: an open watch body that never sends. */
  fallback: Handler
  /** A client for this server (client-certificate auth, the test CA). */
  client(opts?: Omit<KubeClientOptions, 'kubeConfig' | 'kubeconfigPath'>): KubeClient
  /** Resolves once `n` requests matched `pred` (all requests by default). */
  waitForRequests(n: number, pred?: (r: FakeRequest) => boolean, timeoutMs?: number): Promise<FakeRequest[]>
  close(): Promise<void>
}

/** A JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** A `Status` failure response (docs/kube-api.md). */
export function sendStatus(res: ServerResponse, code: number, reason: string, message = reason, headers: Record<string, string> = {}): void {
  sendJson(res, code, statusObject(code, reason, message), headers)
}

export function statusObject(code: number, reason: string, message = reason): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }
}

/** A list body as the API server writes it (items without kind/apiVersion). */
export function listBody(kind: string, items: object[], rv: string | number, cont = ''): object {
  const strip = items.map((o) => {
    const { kind: _k, apiVersion: _a, ...rest } = o as Record<string, unknown>
    return rest
  })
  return { kind, apiVersion: 'v1', metadata: { resourceVersion: String(rv), ...(cont ? { continue: cont } : {}) }, items: strip }
}

/** An open chunked watch body. */
export interface WatchWriter {
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR', object: object): void
  bookmark(rv: string | number, initialEventsEnd?: boolean): void
  raw(text: string): void
  /** Clean end of the body. */
  end(): void
  /** Abrupt end: the socket is destroyed (over HTTP/2: the stream is reset). */
  destroy(): void
  readonly closed: Promise<void>
}

/** Starts a 200 watch response and returns a writer for its lines. */
export function startWatchBody(res: ServerResponse, kind = 'Pod'): WatchWriter {
  // HTTP/2 forbids Transfer-Encoding (RFC 9113 §8.2.2): its DATA frames are the chunks.
  res.writeHead(200, 'stream' in res ? { 'Content-Type': 'application/json' } : { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' })
  res.flushHeaders()
  const closed = new Promise<void>((resolve) => res.on('close', () => resolve()))
  const write = (s: string): void => {
    if (!res.destroyed && !res.writableEnded) res.write(s)
  }
  return {
    event: (type, object) => write(JSON.stringify({ type, object }) + '\n'),
    bookmark: (rv, end = false) =>
      write(
        JSON.stringify({
          type: 'BOOKMARK',
          object: { kind, apiVersion: 'v1', metadata: { resourceVersion: String(rv), ...(end ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) } },
        }) + '\n',
      ),
    raw: write,
    end: () => res.end(),
    destroy: () => ('stream' in res ? (res as unknown as { stream: http2.Http2Stream }).stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR) : res.socket?.destroy()),
    closed,
  }
}

/** A v1 Pod with one or more started containers. */
export function podObject(p: {
  name: string
  uid?: string
  rv: string | number
  namespace?: string
  ip?: string
  owner?: { kind: string; name: string; uid: string }
  images?: string[]
  padding?: number
}): Record<string, unknown> {
  const images = p.images ?? ['nginx:1.25']
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: p.name,
      namespace: p.namespace ?? 'default',
      ...(p.uid === '' ? {} : { uid: p.uid ?? `uid-${p.name}` }),
      resourceVersion: String(p.rv),
      labels: { app: p.name.split('-')[0] },
      ...(p.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', ...p.owner, controller: true, blockOwnerDeletion: true }] } : {}),
      ...(p.padding ? { annotations: { pad: 'x'.repeat(p.padding) } } : {}),
    },
    spec: { nodeName: 'node-1', containers: images.map((image, i) => ({ name: `c${i}`, image })) },
    status: {
      phase: 'Running',
      ...(p.ip ? { podIP: p.ip, podIPs: [{ ip: p.ip }] } : {}),
      containerStatuses: images.map((image, i) => ({ name: `c${i}`, image, containerID: `containerd://${p.name}-${i}`, ready: true })),
    },
  }
}

/** A ReplicaSet, full or as PartialObjectMetadata. */
export function replicaSetObject(
  r: { name: string; uid?: string; rv: string | number; namespace?: string; deployment?: string },
  metadataOnly: boolean,
): Record<string, unknown> {
  const metadata = {
    name: r.name,
    namespace: r.namespace ?? 'default',
    uid: r.uid ?? `uid-${r.name}`,
    resourceVersion: String(r.rv),
    ...(r.deployment
      ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: r.deployment, uid: `uid-${r.deployment}`, controller: true }] }
      : {}),
  }
  if (metadataOnly) return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata }
  return { kind: 'ReplicaSet', apiVersion: 'apps/v1', metadata, spec: { replicas: 1 }, status: { replicas: 1 } }
}

/** True when the request asked for metadata only (docs/kube-api.md "Metadata only"). */
export function wantsMetadata(req: FakeRequest): boolean {
  return String(req.headers.accept ?? '').includes('as=PartialObjectMetadata')
}

/**
 * Starts the server on 127.0.0.1 with a fresh PKI (or the given one). HTTP/1.1 only, unless
 * `opts.http2`: then h2 and HTTP/1.1 by ALPN, as a kube-apiserver; `client()` offers h2 only then.
 */
export async function startFakeApiServer(pki?: TestPki, opts: { http2?: boolean } = {}): Promise<FakeApiServer> {
  const tls = pki ?? (await createTestPki())
  const queues = new Map<string, Handler[]>()
  const requests: FakeRequest[] = []
  const waiters = new Set<() => void>()
  const http2Server = opts.http2 === true
  const tlsOptions = { cert: tls.serverCertPem, key: tls.serverKeyPem, ca: tls.caPem, requestCert: true, rejectUnauthorized: true }
  const sessions = new Set<http2.ServerHttp2Session>()
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'https://x')
    const peer = (req.socket as TLSSocket).getPeerCertificate?.()
    const fr: FakeRequest = { path: url.pathname, query: url.searchParams, headers: req.headers, clientCn: String(peer?.subject?.CN ?? '') }
    requests.push(fr)
    for (const w of waiters) w()
    const handler = queues.get(fr.path)?.shift() ?? api.fallback
    Promise.resolve(handler(fr, res)).catch((err) => {
      if (!res.headersSent) sendStatus(res, 500, 'InternalError', String(err))
    })
  }
  const server = http2Server ? http2.createSecureServer({ ...tlsOptions, allowHTTP1: true }, listener as never) : https.createServer(tlsOptions, listener)
  server.on('session', (s: http2.ServerHttp2Session) => {
    sessions.add(s)
    s.on('close', () => sessions.delete(s))
    s.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  const api: FakeApiServer = {
    url,
    pki: tls,
    requests,
    fallback: (_req, res) => {
      startWatchBody(res)
    },
    script(path, ...handlers) {
      const q = queues.get(path) ?? []
      q.push(...handlers)
      queues.set(path, q)
    },
    client(clientOpts = {}) {
      const kc = new KubeConfig()
      kc.loadFromString(kubeconfigFor(url, tls, { cert: true }))
      return createKubeClient({ http2: http2Server ? 'auto' : 'never', ...clientOpts, kubeConfig: kc })
    },
    waitForRequests(n, pred = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const got = requests.filter(pred)
          if (got.length >= n) {
            waiters.delete(check)
            clearTimeout(timer)
            resolve(got)
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`waited ${timeoutMs} ms for ${n} requests, saw ${requests.filter(pred).length}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    async close() {
      if ('closeAllConnections' in server) server.closeAllConnections()
      for (const s of sessions) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return api
}
