// The API server requests over HTTP/2 (node:http2, Node and Deno): one shared session per server
// and TLS material, checked by PING (h2-session.ts), every LIST, watch and streaming list a stream
// on it. client.ts falls back to HTTP/1.1 when the server does not negotiate h2 (docs/dead-links.md §2).
import type https from 'node:https'
import { Buffer } from 'node:buffer'
import http2 from 'node:http2'
import type { BodyBuffers } from './body-buffers.ts'
import { KubeAbortedError, KubeIdleTimeoutError, KubeTransportError, transportError } from './errors.ts'
import { openH2Session, type H2Open, type H2Session, type H2SessionOptions } from './h2-session.ts'
import { guardRequest, type RequestGuard } from './request-guard.ts'
import { TRANSPORT_REASONS } from './transport-reason.ts'
import { streamResponse } from './stream-response.ts'
import type { KubeResponse, KubeSendOptions } from './transport.ts'

/** The HTTP/2 transport of one client. */
export interface H2Transport {
  /**
   * Sends one request on the shared session, resolving once the response headers arrived, or
   * with `{ protocol }` (what the server chose instead of h2 by ALPN, '' for none) without sending it.
   */
  send(url: URL, options: https.RequestOptions, opts: KubeSendOptions): Promise<KubeResponse | { readonly protocol: string }>
  /** The protocol the server chooses by ALPN (`h2`, `http/1.1`, '' for none), from the shared session or a handshake. */
  protocolOf(url: URL, options: https.RequestOptions): Promise<string>
  /** Closes every session once its streams are through. */
  close(): void
}

/** Sessions kept (one per distinct TLS material; rotated client certificates add one). */
const MAX_SESSIONS = 4
/** Headers HTTP/2 forbids (RFC 9113 §8.2.2) or carries otherwise (`:authority`). */
const NOT_IN_H2 = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host'])
const { NGHTTP2_CANCEL } = http2.constants

/** Creates the transport; `buffers` is the client's pool for LIST pages. */
export function createH2Transport(buffers: BodyBuffers, opts: H2SessionOptions): H2Transport {
  const sessions = new Map<string, Promise<H2Open>>()
  const sessionFor = (url: URL, options: https.RequestOptions): Promise<H2Open> => {
    const key = sessionKey(url, options)
    const known = sessions.get(key)
    if (known !== undefined) return known
    const opening = openH2Session(url, options, opts)
    sessions.set(key, opening)
    // A failed handshake or a closed session is not kept: the next request connects again.
    opening.then(
      (open) => {
        if (!('session' in open)) sessions.delete(key)
      },
      () => sessions.delete(key),
    )
    if (sessions.size > MAX_SESSIONS) {
      const [oldest, old] = sessions.entries().next().value as [string, Promise<H2Open>]
      sessions.delete(oldest)
      void old.then((o) => ('session' in o ? o.session.close() : undefined), () => {})
    }
    return opening
  }
  const usableSession = async (url: URL, options: https.RequestOptions): Promise<H2Open> => {
    for (let i = 0; ; i++) {
      const open = await sessionFor(url, options)
      if (!('session' in open) || open.session.usable || i > 0) return open
      sessions.delete(sessionKey(url, options))
    }
  }
  return {
    send: (url, options, req) => send(url, options, req, usableSession, buffers),
    protocolOf: async (url, options) => (await usableSession(url, options)).protocol,
    close() {
      for (const s of sessions.values()) void s.then((o) => ('session' in o ? o.session.close() : undefined), () => {})
      sessions.clear()
    },
  }
}

function sessionKey(url: URL, o: https.RequestOptions): string {
  const text = (v: unknown): string => (v === undefined || v === null ? '' : Array.isArray(v) ? v.map(text).join('\n') : typeof v === 'string' ? v : Buffer.isBuffer(v) || v instanceof Uint8Array ? Buffer.from(v).toString('base64') : JSON.stringify(v))
  return [url.origin, text(o.ca), text(o.cert), text(o.key), text(o.pfx), text(o.passphrase), o.servername ?? '', String(o.rejectUnauthorized !== false)].join('\0')
}

function headersOf(url: URL, options: https.RequestOptions, method: string): http2.OutgoingHttpHeaders {
  const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': url.pathname + url.search }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const lower = name.toLowerCase()
    if (value !== undefined && !NOT_IN_H2.has(lower)) headers[lower] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`
  return headers
}

async function send(
  url: URL,
  options: https.RequestOptions,
  opts: KubeSendOptions,
  sessionOf: (url: URL, options: https.RequestOptions) => Promise<H2Open>,
  buffers: BodyBuffers,
): Promise<KubeResponse | { readonly protocol: string }> {
  if (opts.signal?.aborted) throw new KubeAbortedError('aborted before the request')
  let stream: http2.ClientHttp2Stream | undefined
  let session: H2Session | undefined
  let stopWaiting = (): void => {}
  const stopped = new Promise<undefined>((resolve) => (stopWaiting = () => resolve(undefined)))
  const guard: RequestGuard = guardRequest(opts, () => {
    stopWaiting()
    if (stream !== undefined && !stream.destroyed) {
      try {
        stream.close(NGHTTP2_CANCEL)
      } catch {
        stream.destroy()
      }
    }
    // A silent request on a shared connection: ask the connection whether it is alive.
    if (guard.closedBy() instanceof KubeIdleTimeoutError) session?.probe()
  })
  let open: H2Open | undefined
  try {
    open = await Promise.race([sessionOf(url, options), stopped])
  } catch (err) {
    guard.cleanup()
    throw guard.closedBy() ?? err
  }
  if (open === undefined || !('session' in open)) {
    guard.cleanup()
    const closedBy = guard.closedBy()
    if (closedBy) throw closedBy
    return { protocol: open?.protocol ?? '' }
  }
  session = open.session
  try {
    stream = session.request(headersOf(url, options, opts.method), opts.body === undefined)
  } catch (err) {
    guard.cleanup()
    throw transportError(url.host, err)
  }
  if (opts.body !== undefined) stream.end(opts.body)
  // The connection's death, said for this request (which watch, from which revision).
  const untrack = session.track((reason) => guard.close(new KubeTransportError(`${opts.what ?? 'request'} failed: ${reason.message}`, { reason: reason.reason })))
  const live = session
  const s = stream
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (err: unknown): void => {
      if (settled) return
      settled = true
      untrack()
      guard.cleanup()
      reject(guard.closedBy() ?? err)
    }
    // Never an unhandled 'error' event; after the headers, failures are reported by read().
    s.on('error', (err) => fail(transportError(url.host, err)))
    s.once('close', () => fail(new KubeTransportError(`${url.host}: ${TRANSPORT_REASONS.reset} (stream closed before the response)`, { reason: 'reset' })))
    s.once('response', (headers) => {
      if (settled) return
      settled = true
      live.heard()
      guard.kick()
      resolve(responseOf(s, headers, live, guard, untrack, buffers))
    })
  })
}

function responseOf(
  stream: http2.ClientHttp2Stream,
  headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader,
  session: H2Session,
  guard: RequestGuard,
  untrack: () => void,
  buffers: BodyBuffers,
): KubeResponse {
  return streamResponse({
    status: Number(headers[':status'] ?? 0),
    header(name) {
      const v = headers[name.toLowerCase()]
      return Array.isArray(v) ? v.join(', ') : v === undefined ? undefined : String(v)
    },
    // Paused mode: the body waits in the stream (bounded by its flow-control window) until read.
    chunks: stream[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>,
    guard,
    buffers,
    // Deno's node:http2 may close a stream before its async iterator saw the end it had emitted:
    // every byte read, END_STREAM without error, and yet "Premature close" (Deno 2.9, more often
    // with a slow reader such as a gzip decoder). That is the clean end of the body.
    cleanEnd: (err) => stream.readableEnded && (err as { code?: string })?.code === 'ERR_STREAM_PREMATURE_CLOSE',
    checkEnd() {
      // node:http2 ends a stream's body alike when END_STREAM came and when the stream or its
      // connection was cut: a reset stream or a dead connection is not a clean end of the body.
      if (stream.rstCode !== undefined && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) {
        throw new KubeTransportError(`response body: ${TRANSPORT_REASONS.reset} (stream reset, code ${stream.rstCode})`, { reason: 'reset' })
      }
      if (session.dead) throw new KubeTransportError(`response body: ${TRANSPORT_REASONS.reset} (the connection closed)`, { reason: 'reset' })
    },
    onChunk: () => session.heard(),
    onFinish: untrack,
  })
}
