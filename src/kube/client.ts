// The API server connection: kubeconfig / in-cluster auth via @kubernetes/client-node's KubeConfig,
// and our own streaming requests: over one shared HTTP/2 connection checked by PING where the server
// negotiates h2 (h2-transport.ts, both runtimes), else HTTP/1.1: node:http(s) on Node
// (node-transport.ts), fetch on Deno (fetch-transport.ts); on Deno, the clusters fetch cannot reach
// go over node:https (docs/kube-api.md "kubectl parity", docs/dead-links.md §2).
import type https from 'node:https'
import { KubeConfig } from '@kubernetes/client-node'
import { KubeAbortedError, KubeConfigError, KubeTransportError } from './errors.ts'
import { createBodyBuffers } from './body-buffers.ts'
import { withCertificateDates } from './certificate-dates.ts'
import { createFetchTransport } from './fetch-transport.ts'
import type { PingCounts } from './h2-session.ts'
import { createH2Transport } from './h2-transport.ts'
import { sendOverNode } from './node-transport.ts'
import { decodedResponse, type BodyTraffic } from './response-encoding.ts'
import { kubeconfigFiles, readTokenFile, tokenFileOf } from './token-file.ts'
import { TRANSPORT_REASONS } from './transport-reason.ts'
import type { KubeRequestOptions, KubeResponse, KubeSendOptions } from './transport.ts'
import { logger } from '../observe/log.ts'
import { systemClock, type Clock } from '../util/clock.ts'

export { bodyReaders } from './transport.ts'
export type { KubeRequestOptions, KubeResponse, KubeSendOptions } from './transport.ts'

/** How `createKubeClient` finds the API server and credentials. */
export interface KubeClientOptions {
  /** Kubeconfig file (`--kubeconfig`); unset → `KUBECONFIG`, `~/.kube/config`, then the in-cluster service account. */
  readonly kubeconfigPath?: string
  /** An already loaded KubeConfig (takes precedence over `kubeconfigPath`). */
  readonly kubeConfig?: KubeConfig
  /** Context to use instead of the kubeconfig's current-context. */
  readonly context?: string
  /**
   * Streaming lists (docs/kube-api.md "Streaming lists"): `auto` tries them and falls back to paginated
   * LIST when the server does not support them (default); `never` always uses paginated LIST.
   */
  readonly streamingList?: 'auto' | 'never'
  /** `User-Agent` header. Default `k8s-collector`. */
  readonly userAgent?: string
  /**
   * HTTP/2 (docs/dead-links.md §2): `auto` offers h2 by ALPN and keeps HTTP/1.1 for a server that
   * does not take it, a plain-http server or a `proxy-url` (default); `never` is HTTP/1.1 only.
   */
  readonly http2?: 'auto' | 'never'
  /**
   * The API silence limit, ms (docs/behaviour.md §12): the HTTP/2 connection is sent a PING after
   * this long without a frame, and is dead when no answer comes within half of it. Default 30,000
   * (client-go's 30 s and 15 s).
   */
  readonly silenceLimitMs?: number
  /** The clock of the PING timers and of the TLS handshake's timeout. Default: the system clock. */
  readonly clock?: Clock
  /**
   * Response compression (docs/kube-api.md "Compression"): `gzip` asks for it and decodes every
   * gzip member (default); `none` asks for `identity`. On Deno, requests fetch carries are never
   * compressed, so with `gzip` LIST pages and streaming lists go over HTTP/2 when the server speaks it.
   */
  readonly compression?: 'gzip' | 'none'
  /**
   * What pods are asked for in (docs/kube-api.md "Protobuf responses"): `protobuf` first and JSON
   * second, as client-go's typed clients, or `json` only (default).
   */
  readonly encoding?: 'protobuf' | 'json'
}

/** How requests reach the server: a shared HTTP/2 connection checked by PING, or HTTP/1.1. */
export type ApiProtocol = 'h2' | 'http/1.1'

/** What this client has learnt about the server's streaming-list support (remembered per server). */
export type WatchListSupport = 'unknown' | 'supported' | 'unsupported'

/** A connection to one API server. */
export interface KubeClient {
  /** The server URL from the kubeconfig, e.g. `https://10.0.0.1:6443`. */
  readonly server: string
  /** Streaming-list support as learnt so far; the streams record what their watchers learn (docs/kube-api.md: decide once per server). */
  watchList: WatchListSupport
  /**
   * How requests go: `h2` (one shared connection, a dead one found by PING: watches can be long),
   * `http/1.1` (a connection per request: watches must be short, docs/behaviour.md §12), or
   * undefined before the first connection told (or for a client that does not say: short watches).
   */
  readonly protocol?: ApiProtocol
  /** The PINGs sent on HTTP/2 connections so far, by outcome (none over HTTP/1.1). */
  readonly pings?: Readonly<PingCounts>
  /** Response body bytes so far, as received (compressed when the server compressed them) and decoded. */
  readonly traffic?: Readonly<BodyTraffic>
  /** `protobuf`: resources with a protobuf reader ask for it first ({@link KubeClientOptions.encoding}); unset: JSON. */
  readonly encoding?: 'protobuf' | 'json'
  /** Sends `GET server + pathAndQuery`, resolving once the response headers arrived. */
  get(pathAndQuery: string, opts: KubeRequestOptions): Promise<KubeResponse>
}

/** A {@link KubeClient} that also sends requests of other methods (writes), with the same TLS and auth. */
export interface KubeWriteClient extends KubeClient {
  /** Sends `opts.method server + pathAndQuery` with `opts.body`, resolving once the response headers arrived. */
  send(pathAndQuery: string, opts: KubeSendOptions): Promise<KubeResponse>
}

/**
 * Loads the kubeconfig the way kubectl does (`kubeconfigPath`, `KUBECONFIG`, `~/.kube/config`,
 * in-cluster service account). Throws {@link KubeConfigError} when none is usable.
 */
export function loadKubeConfig(opts: Pick<KubeClientOptions, 'kubeconfigPath' | 'context'> = {}): KubeConfig {
  const kc = new KubeConfig()
  try {
    if (opts.kubeconfigPath) kc.loadFromFile(opts.kubeconfigPath)
    else kc.loadFromDefault()
    if (opts.context) kc.setCurrentContext(opts.context)
  } catch (err) {
    const from = opts.kubeconfigPath ?? 'the default locations'
    throw new KubeConfigError(`cannot load kubeconfig from ${from}: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
  const cluster = kc.getCurrentCluster()
  if (!cluster?.server) throw new KubeConfigError(`kubeconfig context "${kc.getCurrentContext()}" has no cluster server`)
  // loadFromDefault's last resort is an unauthenticated http://localhost:8080; refuse to guess.
  if (!opts.kubeconfigPath && cluster.name === 'cluster' && cluster.server === 'http://localhost:8080' && !kc.getCurrentUser()?.token) {
    throw new KubeConfigError('no kubeconfig found (--kubeconfig, KUBECONFIG, ~/.kube/config) and not running in a cluster')
  }
  return kc
}

/** Why a cluster's requests go over node:https on Deno, said once in a warning line. */
type NodeHttpsWhy = 'kubeconfig' | 'ca_as_server'

const NODE_HTTPS_COST = 'node:https holds about twice the memory of fetch at scale (bench/README.md, issue 16)'

/** Creates a client for the kubeconfig's current cluster (see {@link KubeClientOptions}). */
export function createKubeClient(opts: KubeClientOptions = {}): KubeWriteClient {
  const kc = opts.kubeConfig ?? loadKubeConfig(opts)
  const server = (kc.getCurrentCluster()?.server ?? '').replace(/\/+$/, '')
  if (!server) throw new KubeConfigError('kubeconfig has no cluster server')
  const userAgent = opts.userAgent ?? 'k8s-collector'
  const buffers = createBodyBuffers()
  const fetchTransport = createFetchTransport(buffers)
  // client-node puts a kubeconfig's proxy-url into a proxy agent, which only node:http(s) can use.
  const proxied = Boolean(kc.getCurrentCluster()?.proxyUrl)
  const silenceLimitMs = opts.silenceLimitMs ?? 30_000
  const clock = opts.clock ?? systemClock
  const pings: PingCounts = { sent: 0, answered: 0, unanswered: 0 }
  const traffic: BodyTraffic = { wire: 0, decoded: 0 }
  const gzip = (opts.compression ?? 'gzip') === 'gzip'
  const h2 =
    opts.http2 === 'never'
      ? undefined
      : createH2Transport(buffers, { clock, liveness: { quietMs: silenceLimitMs, answerMs: silenceLimitMs / 2 }, connectTimeoutMs: silenceLimitMs, pings })
  // HTTP/2 until the server or the kubeconfig rules it out; then HTTP/1.1 for good, said once.
  let protocol: ApiProtocol | undefined = h2 === undefined ? 'http/1.1' : undefined
  const protocolLog = logger.withTag('kube')
  const settle = (chosen: ApiProtocol, why: string): void => {
    if (protocol === chosen) return
    protocol = chosen
    if (chosen === 'h2') protocolLog.info(`${new URL(server).host}: HTTP/2, one connection checked by PING after ${silenceLimitMs / 1000} s without a frame; watches of 5 to 10 minutes`)
    else {
      h2?.close()
      protocolLog.warn(`${new URL(server).host}: HTTP/1.1 (${why}); watches stay short (15 to 20 s) so that a dead API server is still found within a minute (docs/dead-links.md §2)`)
    }
  }
  if (h2 !== undefined && server.startsWith('http:')) settle('http/1.1', 'plain http: no TLS to negotiate HTTP/2 with')
  else if (h2 !== undefined && proxied) settle('http/1.1', 'the kubeconfig has a proxy-url, which this client tunnels over HTTP/1.1 only')
  // client-node reads a token-file once, at load; kubectl and client-go read it again (rotation).
  const userName = kc.getCurrentUser()?.name
  const tokenFile = opts.kubeConfig === undefined && userName !== undefined ? tokenFileOf(kubeconfigFiles(opts.kubeconfigPath, process.env), userName) : undefined
  // On Deno: fetch until the kubeconfig or the server needs node:https, then node:https for good.
  let overNode: NodeHttpsWhy | undefined
  const useNode = (why: NodeHttpsWhy): void => {
    if (overNode !== undefined) return
    overNode = why
    const log = logger.withTag('kube')
    if (why === 'kubeconfig') log.warn(`on Deno, a kubeconfig with insecure-skip-tls-verify, tls-server-name, a PKCS#12 bundle or proxy-url goes over node:https: ${NODE_HTTPS_COST}`)
    else {
      log.warn(
        `${new URL(server).host}: the serving certificate is a CA certificate (basicConstraints CA:TRUE, e.g. made by \`openssl req -x509\`), ` +
          `which Deno's fetch (rustls) refuses as CaUsedAsEndEntity and kubectl accepts; this cluster's requests go over node:https from now on: ` +
          `${NODE_HTTPS_COST}. A serving certificate issued by a separate CA avoids it (docs/kube-api.md "kubectl parity")`,
      )
    }
  }
  const open = async (pathAndQuery: string, req: KubeSendOptions): Promise<KubeResponse> => {
    if (req.signal?.aborted) throw new KubeAbortedError('aborted before the request')
    // gzip bodies are decoded member by member below (kube-apiserver compresses each flush of a
    // watch as a member of its own); fetch-transport.ts asks for identity (docs/kube-api.md "Compression").
    const headers: Record<string, string> = { Accept: req.accept, 'User-Agent': userAgent, 'Accept-Encoding': gzip ? 'gzip' : 'identity' }
    if (req.body) {
      headers['Content-Type'] = req.contentType ?? 'application/json'
      headers['Content-Length'] = String(req.body.length)
    }
    const options: https.RequestOptions = { method: req.method, headers }
    try {
      // Per request, so refreshed tokens (exec plugins, projected service-account tokens, token files) are used.
      await kc.applyToHTTPSOptions(options)
      if (tokenFile !== undefined) (options.headers as Record<string, string>).Authorization = `Bearer ${await readTokenFile(tokenFile)}`
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      throw new KubeTransportError(`${TRANSPORT_REASONS.credentials}: ${message}`, { cause: err, reason: 'credentials' })
    }
    const url = new URL(server + pathAndQuery)
    let res: KubeResponse
    try {
      res = await route(url, options, req)
    } catch (err) {
      // Through a proxy the certificate cannot be read directly; the reason stays as the transport said it.
      throw proxied || req.signal?.aborted ? err : await withCertificateDates(err, url, options.servername, (req.clock ?? systemClock).now())
    }
    return decodedResponse(res, traffic, buffers, req.what)
  }
  // On Deno, fetch carries the bulk (LIST pages, streaming lists) while it can, h2 the rest; with
  // gzip, h2 carries it too: fetch cannot read a compressed watch (fetch-transport.ts).
  let bulkOverFetch = fetchTransport !== undefined && !gzip
  const route = async (url: URL, options: https.RequestOptions, req: KubeSendOptions): Promise<KubeResponse> => {
    if (h2 !== undefined && protocol !== 'http/1.1') {
      if (req.bulk && bulkOverFetch && overNode === undefined && fetchTransport?.canSend(url, options, proxied)) {
        // Learn the protocol meanwhile (a handshake, nothing sent), so that the first watch is planned for it.
        if (protocol === undefined) void h2.protocolOf(url, options).then((p) => settle(p === 'h2' ? 'h2' : 'http/1.1', `the server chose ${p || 'no protocol'} by ALPN, not h2`), () => {})
        try {
          return await fetchTransport.send(url, options, req)
        } catch (err) {
          if (!(err instanceof KubeTransportError && err.reason === 'tls_ca_as_server')) throw err
          bulkOverFetch = false
          logger
            .withTag('kube')
            .warn(
              `${url.host}: the serving certificate is a CA certificate (basicConstraints CA:TRUE), which Deno's fetch (rustls) refuses as CaUsedAsEndEntity and kubectl accepts; ` +
                'LIST pages and streaming lists go over node:http2 from now on, which holds more memory at scale (docs/dead-links.md §2.2)',
            )
        }
      }
      const got = await h2.send(url, options, req)
      if ('status' in got) {
        settle('h2', '')
        return got
      }
      const before = protocol
      settle('http/1.1', `the server chose ${got.protocol || 'no protocol'} by ALPN, not h2`)
      // A request planned for a PING-checked connection (a long watch) must not go out without one.
      if (before === 'h2') throw new KubeTransportError(`${url.host}: ${TRANSPORT_REASONS.reset} (the server no longer negotiates HTTP/2; HTTP/1.1 from now on)`, { reason: 'reset' })
    }
    return routeHttp1(url, options, req)
  }
  const routeHttp1 = async (url: URL, options: https.RequestOptions, req: KubeSendOptions): Promise<KubeResponse> => {
    if (fetchTransport === undefined || overNode !== undefined) return sendOverNode(url, options, req, buffers)
    if (!fetchTransport.canSend(url, options, proxied)) {
      useNode('kubeconfig')
      return sendOverNode(url, options, req, buffers)
    }
    try {
      return await fetchTransport.send(url, options, req)
    } catch (err) {
      // rustls refuses a serving certificate that is its own CA; Go and OpenSSL accept it.
      if (!(err instanceof KubeTransportError && err.reason === 'tls_ca_as_server')) throw err
      useNode('ca_as_server')
      return sendOverNode(url, options, req, buffers)
    }
  }
  return {
    server,
    watchList: opts.streamingList === 'never' ? 'unsupported' : 'unknown',
    encoding: opts.encoding ?? 'json',
    get protocol() {
      return protocol
    },
    pings,
    traffic,
    get: (pathAndQuery, req) => open(pathAndQuery, { ...req, method: 'GET' }),
    send: open,
  }
}
