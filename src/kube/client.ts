// The API server connection: kubeconfig / in-cluster auth via @kubernetes/client-node's KubeConfig,
// and our own streaming GET over node:http(s), which behaves the same on Node and on Deno.
import http from 'node:http'
import https from 'node:https'
import { KubeConfig } from '@kubernetes/client-node'
import { KubeAbortedError, KubeConfigError, KubeIdleTimeoutError, KubeTransportError, type KubeError } from './errors.ts'
import { concatBytes } from '../bytes.ts'
import { systemClock, type Clock } from '../util/clock.ts'
import { startWatchdog } from './watchdog.ts'

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
}

/** What this client has learnt about the server's streaming-list support (remembered per server). */
export type WatchListSupport = 'unknown' | 'supported' | 'unsupported'

/** One GET request's options. */
export interface KubeRequestOptions {
  /** The `Accept` header. */
  readonly accept: string
  /** Aborting destroys the socket; pending and later reads reject with {@link KubeAbortedError}. */
  readonly signal?: AbortSignal
  /**
   * No bytes (headers or body) for this long → the request is torn down and fails with
   * {@link KubeIdleTimeoutError} (the silence rule, docs/behaviour.md §12).
   */
  readonly idleTimeoutMs: number
  /** What the request is, for that error's message (e.g. `watch from resourceVersion 12`). Default `request`. */
  readonly what?: string
  /** The clock of `idleTimeoutMs`. Default: the system clock. */
  readonly clock?: Clock
}

/** A response whose body is read chunk by chunk; read it to the end or `close()` it. */
export interface KubeResponse {
  readonly status: number
  /** A response header (lower-case name), joined when repeated. */
  header(name: string): string | undefined
  /** The next body chunk; null at the clean end. Rejects with a {@link KubeError}. */
  read(): Promise<Uint8Array | null>
  /** The whole remaining body as text; only the first `maxChars` are kept (default: all). */
  text(maxChars?: number): Promise<string>
  /** The whole remaining body as bytes, undecoded; only the first `maxBytes` are kept (default: all), the rest is drained. */
  bytes(maxBytes?: number): Promise<Uint8Array>
  /** Destroys the connection; pending and later reads reject with `reason` (default: aborted). */
  close(reason?: KubeError): void
}

/** One request of any method, with an optional body; src/kube/request.ts builds JSON requests on it. */
export interface KubeSendOptions extends KubeRequestOptions {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The body's `Content-Type` (default `application/json`). */
  readonly contentType?: string
  readonly body?: Uint8Array
}

/** A connection to one API server. */
export interface KubeClient {
  /** The server URL from the kubeconfig, e.g. `https://10.0.0.1:6443`. */
  readonly server: string
  /** Streaming-list support as learnt so far; the streams record what their watchers learn (docs/kube-api.md: decide once per server). */
  watchList: WatchListSupport
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

/** Creates a client for the kubeconfig's current cluster (see {@link KubeClientOptions}). */
export function createKubeClient(opts: KubeClientOptions = {}): KubeWriteClient {
  const kc = opts.kubeConfig ?? loadKubeConfig(opts)
  const server = (kc.getCurrentCluster()?.server ?? '').replace(/\/+$/, '')
  if (!server) throw new KubeConfigError('kubeconfig has no cluster server')
  const userAgent = opts.userAgent ?? 'k8s-collector'
  const open = async (pathAndQuery: string, req: KubeSendOptions): Promise<KubeResponse> => {
    if (req.signal?.aborted) throw new KubeAbortedError('aborted before the request')
    const headers: Record<string, string> = { Accept: req.accept, 'User-Agent': userAgent }
    if (req.body) {
      headers['Content-Type'] = req.contentType ?? 'application/json'
      headers['Content-Length'] = String(req.body.length)
    }
    const options: https.RequestOptions = { method: req.method, headers }
    try {
      // Per request, so refreshed tokens (exec plugins, projected service-account tokens) are used.
      await kc.applyToHTTPSOptions(options)
    } catch (err) {
      throw new KubeTransportError(`credentials: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
    }
    return send(new URL(server + pathAndQuery), options, req)
  }
  return {
    server,
    watchList: opts.streamingList === 'never' ? 'unsupported' : 'unknown',
    get: (pathAndQuery, req) => open(pathAndQuery, { ...req, method: 'GET' }),
    send: open,
  }
}

function send(url: URL, options: https.RequestOptions, opts: KubeSendOptions): Promise<KubeResponse> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'http:' ? http : https).request(url, options)
    let closedBy: KubeError | undefined
    let settled = false
    const close = (reason: KubeError): void => {
      closedBy ??= reason
      req.destroy()
    }
    const dog = startWatchdog(opts.clock ?? systemClock, opts.idleTimeoutMs, (silentMs) =>
      close(new KubeIdleTimeoutError(`${opts.what ?? 'request'} torn down (peer_silent): the API server sent nothing for ${(silentMs / 1000).toFixed(1)} s`)),
    )
    const onAbort = (): void => close(new KubeAbortedError('aborted'))
    opts.signal?.addEventListener('abort', onAbort, { once: true })
    const cleanup = (): void => {
      dog.stop()
      opts.signal?.removeEventListener('abort', onAbort)
    }
    req.on('error', (err) => {
      if (settled) return // reported through the body reader
      settled = true
      cleanup()
      reject(closedBy ?? new KubeTransportError(`${url.host}: ${err.message}`, { cause: err }))
    })
    req.on('close', () => {
      // Some runtimes close a destroyed request without an 'error' event.
      if (settled) return
      settled = true
      cleanup()
      reject(closedBy ?? new KubeTransportError(`${url.host}: connection closed before the response`))
    })
    req.on('response', (res) => {
      settled = true
      dog.kick()
      res.on('error', () => {}) // surfaced by read(); never an unhandled 'error' event
      resolve(responseOf(res, dog, cleanup, close, () => closedBy))
    })
    req.end(opts.body)
  })
}

function responseOf(
  res: http.IncomingMessage,
  dog: { kick(): void },
  cleanup: () => void,
  close: (reason: KubeError) => void,
  closedBy: () => KubeError | undefined,
): KubeResponse {
  const chunks = res[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>
  let done = false
  const finish = (): void => {
    done = true
    cleanup()
  }
  const read = async (): Promise<Uint8Array | null> => {
    if (done) {
      const reason = closedBy()
      if (reason) throw reason
      return null
    }
    dog.kick()
    let r: IteratorResult<Uint8Array>
    try {
      r = await chunks.next()
    } catch (err) {
      finish()
      throw closedBy() ?? new KubeTransportError(`response body: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
    }
    if (r.done) {
      finish()
      const reason = closedBy()
      if (reason) throw reason
      // Node reports a connection closed before the last chunk as an error; be strict on every runtime.
      if (!res.complete) throw new KubeTransportError('response body ended before its end marker')
      return null
    }
    dog.kick()
    return r.value
  }
  return {
    status: res.statusCode ?? 0,
    header(name) {
      const v = res.headers[name.toLowerCase()]
      return Array.isArray(v) ? v.join(', ') : v
    },
    read,
    ...bodyReaders(read),
    close(reason = new KubeAbortedError('closed')) {
      if (done) return
      finish()
      close(reason)
    },
  }
}

/**
 * `text()` and `bytes()` of a response, from its chunk reader: both read to the end, keep the
 * first `max` characters/bytes and drain the rest, so the connection ends cleanly.
 */
export function bodyReaders(read: () => Promise<Uint8Array | null>): Pick<KubeResponse, 'text' | 'bytes'> {
  return {
    async text(maxChars = Number.POSITIVE_INFINITY) {
      const decoder = new TextDecoder('utf-8')
      const parts: string[] = []
      let length = 0
      for (let chunk = await read(); chunk !== null; chunk = await read()) {
        if (length >= maxChars) continue
        const s = decoder.decode(chunk, { stream: true })
        parts.push(s)
        length += s.length
      }
      parts.push(decoder.decode())
      const text = parts.join('')
      return text.length > maxChars ? text.slice(0, maxChars) : text
    },
    async bytes(maxBytes = Number.POSITIVE_INFINITY) {
      const parts: Uint8Array[] = []
      let length = 0
      for (let chunk = await read(); chunk !== null; chunk = await read()) {
        if (length >= maxBytes) continue
        parts.push(chunk)
        length += chunk.length
      }
      return concatBytes(parts, Math.min(length, maxBytes))
    },
  }
}
