// The API server requests on Deno: fetch through a Deno.HttpClient holding the kubeconfig's TLS
// material, bodies read into buffers of our own (BYOB). Deno's node:http(s) hands every socket read
// to JavaScript as a new ArrayBuffer over a malloc'd block that lives until V8 collects it; at
// 150k pods glibc held ~300 MB of them after the sync (bench/README.md, "Issue 16: Deno memory").
import type https from 'node:https'
import type { BodyBuffers } from './body-buffers.ts'
import { KubeAbortedError, transportError, type KubeError } from './errors.ts'
import { guardRequest, type RequestGuard } from './request-guard.ts'
import { bodyReaders, type KubeResponse, type KubeSendOptions } from './transport.ts'

/** The part of Deno's API this transport uses (the project is typed for Node). */
interface DenoHttpApi {
  createHttpClient(options: { caCerts?: string[]; cert?: string; key?: string; http2?: boolean }): DenoHttpClient
}
interface DenoHttpClient {
  close(): void
}
interface ByobReader {
  read(view: Uint8Array): Promise<{ done: boolean; value: Uint8Array | undefined }>
  cancel(reason?: unknown): Promise<void>
}

/** One request over fetch; see {@link createFetchTransport}. */
export type FetchSend = (url: URL, options: https.RequestOptions, opts: KubeSendOptions) => Promise<KubeResponse>

/** A watch chunk is copied out of this much read space; LIST pages start at it and double. */
const READ_CHUNK = 64 * 1024
/** TLS clients kept (one per distinct CA + client certificate; rotated certificates add one). */
const MAX_CLIENTS = 4

/**
 * The fetch transport when running on Deno, else undefined. `canSend(url, options, proxied)` says
 * whether a request can go over it: not through a proxy agent, and not to an https server with `insecure-skip-tls-verify`,
 * `tls-server-name` or a PKCS#12 bundle, which Deno.HttpClient cannot express: those stay on node:http(s).
 */
export function createFetchTransport(buffers: BodyBuffers): { send: FetchSend; canSend(url: URL, options: https.RequestOptions, proxied: boolean): boolean } | undefined {
  const deno = (globalThis as { Deno?: Partial<DenoHttpApi> }).Deno
  if (typeof deno?.createHttpClient !== 'function') return undefined
  const api = deno as DenoHttpApi
  const clients = new Map<string, DenoHttpClient>()
  const clientFor = (options: https.RequestOptions): DenoHttpClient => {
    const ca = pem(options.ca)
    const cert = pem(options.cert)
    const key = pem(options.key)
    const id = `${ca}\0${cert}\0${key}`
    let client = clients.get(id)
    if (client === undefined) {
      // HTTP/1.1 only, as on node:https: one connection per stream, closed by the idle timeout.
      client = api.createHttpClient({ http2: false, ...(ca ? { caCerts: [ca] } : {}), ...(cert && key ? { cert, key } : {}) })
      clients.set(id, client)
      if (clients.size > MAX_CLIENTS) {
        const [oldest, old] = clients.entries().next().value as [string, DenoHttpClient]
        clients.delete(oldest)
        old.close()
      }
    }
    return client
  }
  return {
    canSend: (url, options, proxied) =>
      !proxied && (url.protocol === 'http:' || (options.rejectUnauthorized !== false && !options.servername && !options.pfx)),
    send: (url, options, opts) => send(url, options, opts, clientFor(options), buffers),
  }
}

function pem(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (Array.isArray(value)) return value.map(pem).join('\n')
  return typeof value === 'string' ? value : new TextDecoder().decode(value as Uint8Array)
}

function headersOf(options: https.RequestOptions): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    // fetch sets Content-Length from the body itself.
    if (value !== undefined && name.toLowerCase() !== 'content-length') headers.set(name, Array.isArray(value) ? value.join(', ') : String(value))
  }
  // Deno's fetch decodes a gzip body itself, even when the caller asked for gzip, and stops after
  // its first member (kube-apiserver sends a watch as one member per flush), and it hides the bytes
  // received: what fetch carries is not compressed (docs/kube-api.md "Compression").
  headers.set('Accept-Encoding', 'identity')
  if (options.auth) headers.set('Authorization', `Basic ${btoa(options.auth)}`)
  return headers
}

async function send(url: URL, options: https.RequestOptions, opts: KubeSendOptions, client: DenoHttpClient, buffers: BodyBuffers): Promise<KubeResponse> {
  if (opts.signal?.aborted) throw new KubeAbortedError('aborted before the request')
  const ac = new AbortController()
  const guard = guardRequest(opts, () => ac.abort())
  let res: Response
  try {
    // node:http follows no redirects either; `client` is Deno's extension of RequestInit.
    res = await fetch(url, { method: opts.method, headers: headersOf(options), body: opts.body, redirect: 'manual', signal: ac.signal, client } as RequestInit)
  } catch (err) {
    guard.cleanup()
    throw guard.closedBy() ?? transportError(url.host, err)
  }
  guard.kick()
  return responseOf(res, buffers, guard)
}

function responseOf(res: Response, buffers: BodyBuffers, guard: RequestGuard): KubeResponse {
  const reader = res.body ? (res.body.getReader({ mode: 'byob' }) as unknown as ByobReader) : undefined
  let done = reader === undefined
  if (done) guard.cleanup()
  let scratch: Uint8Array = new Uint8Array(READ_CHUNK)
  // The buffer bytes() returned, until close().
  let pooled: Uint8Array | undefined
  const finish = (): void => {
    done = true
    guard.cleanup()
  }
  const failed = (err: unknown): KubeError => {
    finish()
    return guard.closedBy() ?? transportError('response body', err)
  }
  /**
   * Reads into `view`, which the read detaches: the bytes read, as a view of the same memory
   * (zero-length at the end, `end` set). Rejects with the reason the response was closed for.
   */
  const readInto = async (view: Uint8Array): Promise<{ got: Uint8Array; end: boolean }> => {
    guard.kick()
    let r: { done: boolean; value: Uint8Array | undefined }
    try {
      r = await reader!.read(view)
    } catch (err) {
      throw failed(err)
    }
    guard.kick()
    if (r.done && r.value === undefined) throw failed(new Error('the body stream was cancelled'))
    if (r.done) {
      finish()
      const reason = guard.closedBy()
      if (reason) throw reason
    }
    return { got: r.value!, end: r.done }
  }
  const ended = (): null => {
    const reason = guard.closedBy()
    if (reason) throw reason
    return null
  }

  // One chunk, copied out of the reused read space at its exact size (the watch framer keeps views of chunks).
  const read = async (): Promise<Uint8Array | null> => {
    if (done) return ended()
    const { got, end } = await readInto(scratch)
    scratch = new Uint8Array(got.buffer)
    return end ? null : got.slice()
  }

  // A LIST page: read straight into a buffer of the pool that doubles as needed (content-length
  // sizes it when given, + 1 so that the read seeing the end has room).
  const bytes = async (maxBytes = Number.POSITIVE_INFINITY): Promise<Uint8Array> => {
    if (done) return ended() ?? new Uint8Array(0)
    const declared = Number(res.headers.get('content-length'))
    let buf = buffers.take(declared > 0 && declared < maxBytes ? declared + 1 : READ_CHUNK)
    let length = 0
    for (;;) {
      if (length === buf.length) {
        if (length >= maxBytes) {
          // Keep the first maxBytes, drain the rest.
          for (let chunk = await read(); chunk !== null; chunk = await read());
          break
        }
        const bigger = buffers.take(Math.min(buf.length * 2, Math.max(maxBytes, buf.length + 1)))
        bigger.set(buf)
        buffers.give(buf)
        buf = bigger
      }
      const { got, end } = await readInto(buf.subarray(length))
      buf = new Uint8Array(got.buffer)
      if (end) break
      length += got.length
    }
    pooled = buf
    return buf.subarray(0, Math.min(length, maxBytes))
  }

  return {
    status: res.status,
    // A body fetch decoded (a server that compressed anyway) is handed out decoded: no encoding left.
    header: (name) => (name.toLowerCase() === 'content-encoding' ? undefined : (res.headers.get(name) ?? undefined)),
    read,
    text: bodyReaders(read).text,
    bytes,
    close(reason = new KubeAbortedError('closed')) {
      if (pooled) buffers.give(pooled)
      pooled = undefined
      if (done) return
      finish()
      guard.close(reason)
      void reader!.cancel(reason).catch(() => {})
    },
  }
}
