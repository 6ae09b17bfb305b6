// Response and request-body helpers: JSON bodies, Status errors, streamed lists with backpressure.
import { Buffer } from 'node:buffer'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createGzip } from 'node:zlib'
import { errors, SimApiError } from '../api/errors.ts'
import { decodeKubeProtobuf, PROTOBUF_CONTENT_TYPE, ProtobufDecodeError } from './protobuf.ts'

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' }
const MAX_BODY = 3 * 1024 * 1024

/** Writes a complete JSON response. */
export function sendJson(res: ServerResponse, status: number, body: string | Uint8Array, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  res.writeHead(status, { ...JSON_HEADERS, 'Content-Length': String(bytes.byteLength), ...headers })
  res.end(bytes)
}

/** Writes an error as a `v1/Status` (anything else than a SimApiError is a 500). */
export function sendError(res: ServerResponse, err: unknown): void {
  const apiErr = err instanceof SimApiError ? err : errors.internal(err instanceof Error ? err.message : String(err))
  const headers: Record<string, string> = {}
  if (apiErr.code === 429 || ((apiErr.code === 503 || apiErr.code === 504) && apiErr.details?.retryAfterSeconds !== undefined)) {
    headers['Retry-After'] = String(apiErr.details?.retryAfterSeconds ?? 1)
  }
  sendJson(res, apiErr.code, JSON.stringify(apiErr.toStatus()), headers)
}

/** Starts a streamed JSON response (chunked over HTTP/1.1, DATA frames over HTTP/2; headers flushed at once). */
export function startStream(res: ServerResponse, status = 200, headers: Record<string, string> = {}): void {
  // HTTP/2 forbids Transfer-Encoding (RFC 9113 §8.2.2).
  res.writeHead(status, isHttp2(res) ? { ...JSON_HEADERS, ...headers } : { ...JSON_HEADERS, 'Transfer-Encoding': 'chunked', ...headers })
  res.flushHeaders()
}

/** True for a response of node:http2's compatibility API (the request came over HTTP/2). */
export function isHttp2(res: ServerResponse): boolean {
  return 'stream' in res
}

/** Resolves when the response can take more data (or is gone: then false). */
export function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false)
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain)
      res.off('close', onClose)
      resolve(ok)
    }
    const onDrain = () => done(true)
    const onClose = () => done(false)
    res.on('drain', onDrain)
    res.on('close', onClose)
  })
}

/**
 * Whether a request accepts gzip as kube-apiserver reads `Accept-Encoding` (its
 * negotiateContentEncoding): one of the comma-separated tokens is exactly `gzip` (no q-value).
 */
export function acceptsGzip(acceptEncoding: string | string[] | undefined): boolean {
  return String(acceptEncoding ?? '').split(',').some((token) => token.trim() === 'gzip')
}

/** kube-apiserver compresses a non-watch response only past this many bytes (its defaultGzipThresholdBytes). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024

/**
 * Streams `head`, the items separated by commas, then `tail`, in ~64 KiB writes that respect
 * backpressure: a 150,000-pod list never sits whole in memory as one string. With `gzip` (the
 * client accepts it), a body over {@link GZIP_THRESHOLD_BYTES} goes out as one gzip member at level
 * 1, as kube-apiserver's deferredResponseWriter sends it; a smaller one plain.
 */
export async function streamItems(
  res: ServerResponse, head: string, count: number, item: (i: number) => Uint8Array, tail: string, gzip = false,
): Promise<void> {
  // Until the threshold is passed (gzip only), the body is held and the headers not yet sent.
  let held: Buffer[] | undefined = gzip ? [] : undefined
  let heldBytes = 0
  let out: { write(b: Buffer): boolean; end(b: Buffer): void; drained(): Promise<boolean> } = plainOut(res)
  if (!gzip) startStream(res)
  const emit = async (b: Buffer, last: boolean): Promise<boolean> => {
    if (held !== undefined) {
      held.push(b)
      heldBytes += b.length
      if (last && heldBytes <= GZIP_THRESHOLD_BYTES) {
        startStream(res)
        res.end(Buffer.concat(held))
        return true
      }
      if (heldBytes <= GZIP_THRESHOLD_BYTES) return true
      startStream(res, 200, { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' })
      out = gzipOut(res)
      b = Buffer.concat(held)
      held = undefined
    }
    if (last) {
      out.end(b)
      return true
    }
    return out.write(b) || (await out.drained())
  }
  const comma = Buffer.from(',')
  let parts: Uint8Array[] = [Buffer.from(head)]
  let size = 0
  for (let i = 0; i < count; i++) {
    if (i > 0) parts.push(comma)
    const b = item(i)
    parts.push(b)
    size += b.byteLength + 1
    if (size >= 65536) {
      const ok = await emit(Buffer.concat(parts), false)
      parts = []
      size = 0
      if (!ok) return
    }
  }
  parts.push(Buffer.from(tail))
  await emit(Buffer.concat(parts), true)
}

function plainOut(res: ServerResponse) {
  return { write: (b: Buffer) => res.write(b), end: (b: Buffer) => void res.end(b), drained: () => drained(res) }
}

function gzipOut(res: ServerResponse) {
  const gz = createGzip({ level: 1 })
  gz.on('error', () => res.destroy())
  gz.pipe(res)
  return {
    write: (b: Buffer) => gz.write(b),
    end: (b: Buffer) => void gz.end(b),
    drained: () =>
      res.destroyed
        ? Promise.resolve(false)
        : new Promise<boolean>((resolve) => {
            const done = (ok: boolean) => {
              gz.off('drain', onDrain)
              res.off('close', onClose)
              resolve(ok)
            }
            const onDrain = () => done(true)
            const onClose = () => done(false)
            gz.on('drain', onDrain)
            res.on('close', onClose)
          }),
  }
}

/** Reads a YAML request body (an apply patch): JSON directly, other YAML through client-node's loader. */
export async function readYamlBody(req: IncomingMessage): Promise<any> {
  const text = (await readBytes(req)).toString('utf8')
  if (!text.trim()) throw errors.badRequest('the body of an apply patch must not be empty')
  try {
    return JSON.parse(text)
  } catch {
    // Not JSON: real YAML (kubectl sends JSON, people with curl may not).
  }
  const { loadYaml } = await import('@kubernetes/client-node')
  try {
    return loadYaml(text)
  } catch (err) {
    throw errors.badRequest(`error decoding YAML: ${(err as Error).message}`)
  }
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size > MAX_BODY) throw new SimApiError(413, 'RequestEntityTooLarge', 'the request body is too large')
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

/**
 * Reads and parses a request body (undefined when empty): JSON, or a Kubernetes protobuf object
 * (kubectl's typed generators) decoded to its JSON shape; 400 on a bad body, 413 when too large.
 */
export async function readJsonBody(req: IncomingMessage): Promise<any> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  const protobuf = type === PROTOBUF_CONTENT_TYPE
  if (type && !type.endsWith('json') && !protobuf) {
    req.resume()
    throw new SimApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, ${PROTOBUF_CONTENT_TYPE} (got ${type})`)
  }
  const bytes = await readBytes(req)
  if (protobuf) {
    if (bytes.length === 0) return undefined
    try {
      return decodeKubeProtobuf(bytes)
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw errors.badRequest(`the body of the request is not a valid protobuf object: ${err.message}`)
      throw err
    }
  }
  const text = bytes.toString('utf8')
  if (!text.trim()) return undefined
  try {
    return JSON.parse(text)
  } catch (err) {
    throw errors.badRequest(`the body of the request is not valid JSON: ${(err as Error).message}`)
  }
}
