// The API server requests over node:http(s): every request on Node, and on Deno those that fetch
// cannot carry (insecure-skip-tls-verify, tls-server-name, PKCS#12, proxy-url, a CA as serving
// certificate; client.ts chooses).
import http from 'node:http'
import https from 'node:https'
import { concatBytes } from '../bytes.ts'
import type { BodyBuffers } from './body-buffers.ts'
import { KubeAbortedError, KubeTransportError, transportError } from './errors.ts'
import { TRANSPORT_REASONS } from './transport-reason.ts'
import { guardRequest, type RequestGuard } from './request-guard.ts'
import { checkSubjectAltNames } from './server-identity.ts'
import { bodyReaders, type KubeResponse, type KubeSendOptions } from './transport.ts'

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
  const chunks = res[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>
  let done = false
  const finish = (): void => {
    done = true
    guard.cleanup()
  }
  const read = async (): Promise<Uint8Array | null> => {
    if (done) {
      const reason = guard.closedBy()
      if (reason) throw reason
      return null
    }
    guard.kick()
    let r: IteratorResult<Uint8Array>
    try {
      r = await chunks.next()
    } catch (err) {
      finish()
      throw guard.closedBy() ?? transportError('response body', err)
    }
    if (r.done) {
      finish()
      const reason = guard.closedBy()
      if (reason) throw reason
      // Node reports a connection closed before the last chunk as an error; be strict on every runtime.
      if (!res.complete) throw new KubeTransportError('response body ended before its end marker', { reason: 'reset' })
      return null
    }
    guard.kick()
    return r.value
  }
  const readers = bodyReaders(read)
  // The buffer bytes() returned, until close().
  let pooled: Uint8Array | undefined
  return {
    status: res.statusCode ?? 0,
    header(name) {
      const v = res.headers[name.toLowerCase()]
      return Array.isArray(v) ? v.join(', ') : v
    },
    read,
    text: readers.text,
    async bytes(maxBytes) {
      const got = await readers.chunks(maxBytes)
      // One chunk is handed out as it is; more are joined in a buffer of the pool.
      if (got.chunks.length > 1) pooled = buffers.take(got.length)
      return concatBytes(got.chunks, got.length, pooled)
    },
    close(reason = new KubeAbortedError('closed')) {
      if (pooled) buffers.give(pooled)
      pooled = undefined
      if (done) return
      finish()
      guard.close(reason)
    },
  }
}

