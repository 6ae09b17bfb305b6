// Turning a non-success response (or an in-stream ERROR object) into a KubeApiError (docs/kube-api.md).
import type { KubeResponse } from './client.ts'
import { KubeApiError } from './errors.ts'
import { isProtobuf, protoStatusOf } from './pod-proto.ts'

type Json = Record<string, unknown>

/** A `Retry-After` value (delta-seconds, or an HTTP date taken from `now`) in ms; undefined when absent or unparsable. */
function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/** Builds the error of a `Status` object (`{kind:"Status",code,reason,message}`), falling back to `status`. */
export function statusError(obj: unknown, status: number, extra: { retryAfterMs?: number; inStream?: boolean } = {}): KubeApiError {
  const s = typeof obj === 'object' && obj !== null ? (obj as Json) : {}
  const code = typeof s.code === 'number' && s.code > 0 ? s.code : status
  return new KubeApiError({
    status: extra.inStream ? code : status,
    reason: typeof s.reason === 'string' ? s.reason : '',
    message: typeof s.message === 'string' ? s.message : '',
    retryAfterMs: extra.retryAfterMs,
    inStream: extra.inStream,
  })
}

/**
 * Reads a failed response's body (at most 64 KiB) and returns its {@link KubeApiError}; a
 * `Retry-After` date is counted from `now` (ms since the epoch, the caller's clock).
 */
export async function responseError(res: KubeResponse, now: number): Promise<KubeApiError> {
  let body: unknown
  try {
    // A client that asks for protobuf gets its errors in protobuf too (docs/kube-api.md).
    if (isProtobuf(res.header('content-type'))) {
      try {
        body = protoStatusOf(await res.bytes(65_536))
      } finally {
        res.close()
      }
    }
    else body = JSON.parse(await res.text(65_536))
  } catch {
    body = undefined // not a Status object (a proxy's HTML page, a cut connection): the status code suffices
  }
  return statusError(body, res.status, { retryAfterMs: parseRetryAfter(res.header('retry-after'), now) })
}
