// What a request to the API server is and returns, whichever transport carries it (node:http(s) in
// node-transport.ts, fetch on Deno in fetch-transport.ts), and the body readers both build on.
import { concatBytes } from '../bytes.ts'
import type { Clock } from '../util/clock.ts'
import type { KubeError } from './errors.ts'

/** One GET request's options. */
export interface KubeRequestOptions {
  /** The `Accept` header. */
  readonly accept: string
  /** Aborting destroys the socket; pending and later reads reject with `KubeAbortedError`. */
  readonly signal?: AbortSignal
  /**
   * No bytes (headers or body) for this long → the request is torn down and fails with
   * `KubeIdleTimeoutError` (the silence rule, docs/behaviour.md §12).
   */
  readonly idleTimeoutMs: number
  /** What the request is, for that error's message (e.g. `watch from resourceVersion 12`). Default `request`. */
  readonly what?: string
  /** The clock of `idleTimeoutMs`. Default: the system clock. */
  readonly clock?: Clock
  /**
   * A LIST page or a streaming list: the bulk of the bytes. On Deno it goes over fetch where fetch
   * can carry it, even when the server speaks HTTP/2: Deno's node:http2 holds ~60 MB more at 50k
   * pods (docs/dead-links.md §2.2). Default false.
   */
  readonly bulk?: boolean
}

/** A response whose body is read chunk by chunk; read it to the end or `close()` it. */
export interface KubeResponse {
  readonly status: number
  /** A response header (lower-case name), joined when repeated. */
  header(name: string): string | undefined
  /** The next body chunk; null at the clean end. Rejects with a `KubeError`. */
  read(): Promise<Uint8Array | null>
  /** The whole remaining body as text; only the first `maxChars` are kept (default: all). */
  text(maxChars?: number): Promise<string>
  /**
   * The whole remaining body as bytes, undecoded; only the first `maxBytes` are kept (default: all),
   * the rest is drained. The bytes stay valid until `close()`: closing a response read this way
   * lets the client reuse its buffer for a later body.
   */
  bytes(maxBytes?: number): Promise<Uint8Array>
  /** Destroys the connection; pending and later reads reject with `reason` (default: aborted). After `bytes()`, releases its buffer. */
  close(reason?: KubeError): void
}

/** One request of any method, with an optional body; src/kube/request.ts builds JSON requests on it. */
export interface KubeSendOptions extends KubeRequestOptions {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The body's `Content-Type` (default `application/json`). */
  readonly contentType?: string
  readonly body?: Uint8Array
}

/**
 * `text()` and `bytes()` of a response, from its chunk reader, and `chunks()`, the body's chunks
 * as read: all read to the end, keep the first `max` characters/bytes and drain the rest, so the
 * connection ends cleanly.
 */
export function bodyReaders(read: () => Promise<Uint8Array | null>): Pick<KubeResponse, 'text' | 'bytes'> & {
  chunks(maxBytes?: number): Promise<{ chunks: Uint8Array[]; length: number }>
} {
  const chunks = async (maxBytes = Number.POSITIVE_INFINITY): Promise<{ chunks: Uint8Array[]; length: number }> => {
    const parts: Uint8Array[] = []
    let length = 0
    for (let chunk = await read(); chunk !== null; chunk = await read()) {
      if (length >= maxBytes) continue
      parts.push(chunk)
      length += chunk.length
    }
    return { chunks: parts, length: Math.min(length, maxBytes) }
  }
  return {
    chunks,
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
    async bytes(maxBytes) {
      const got = await chunks(maxBytes)
      return concatBytes(got.chunks, got.length)
    },
  }
}
