// The API server requests over node:http(s): every request on Node, and on Deno those that fetch
// cannot carry (insecure-skip-tls-verify, tls-server-name, PKCS#12, proxy-url, a CA as serving
// certificate; client.ts chooses).
import http from 'node:http'
import https from 'node:https'
import type { BodyBuffers } from './body-buffers.ts'
import { KubeTransportError, transportError } from './errors.ts'
import { TRANSPORT_REASONS } from './transport-reason.ts'
import { guardRequest, type RequestGuard } from './request-guard.ts'
import { checkSubjectAltNames } from './server-identity.ts'
import { streamResponse } from './stream-response.ts'
import type { KubeResponse, KubeSendOptions } from './transport.ts'

/**
 * Sends one request over node:http(s) with `options` (TLS material, agent and headers from the
 * kubeconfig), resolving once the response headers arrived.
 */
export function sendOverNode(url: URL, options: https.RequestOptions, opts: KubeSendOptions, buffers: BodyBuffers): Promise<KubeResponse> {
  return new Promise((resolve, reject) => {
    const tls = url.protocol === 'https:' && options.rejectUnauthorized !== false ? { checkServerIdentity: checkSubjectAltNames } : {}
    const req = (url.protocol === 'http:' ? http : https).request(url, { ...options, ...tls })
    let settled = false
    const guard = guardRequest(opts, () => req.destroy())
    req.on('error', (err) => {
      if (settled) return // reported through the body reader
      settled = true
      guard.cleanup()
      reject(guard.closedBy() ?? transportError(url.host, err))
    })
    req.on('close', () => {
      // Some runtimes close a destroyed request without an 'error' event.
      if (settled) return
      settled = true
      guard.cleanup()
      reject(guard.closedBy() ?? new KubeTransportError(`${url.host}: ${TRANSPORT_REASONS.reset} (closed before the response)`, { reason: 'reset' }))
    })
    req.on('response', (res) => {
      settled = true
      guard.kick()
      res.on('error', () => {}) // surfaced by read(); never an unhandled 'error' event
      resolve(responseOf(res, buffers, guard))
    })
    req.end(opts.body)
  })
}

function responseOf(res: http.IncomingMessage, buffers: BodyBuffers, guard: RequestGuard): KubeResponse {
  return streamResponse({
    status: res.statusCode ?? 0,
    header(name) {
      const v = res.headers[name.toLowerCase()]
      return Array.isArray(v) ? v.join(', ') : v
    },
    chunks: res[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>,
    guard,
    buffers,
    checkEnd() {
      // Node reports a connection closed before the last chunk as an error; be strict on every runtime.
      if (!res.complete) throw new KubeTransportError('response body ended before its end marker', { reason: 'reset' })
    },
  })
}
