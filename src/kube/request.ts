// Small JSON requests to the API server — reads and writes of single objects (Leases, Events) —
// with a whole-request timeout, the parsed body on success and a KubeApiError otherwise.
import { systemClock, type Clock } from '../util/clock.ts'
import type { KubeSendOptions, KubeWriteClient } from './client.ts'
import { KubeApiError, KubeDecodeError, KubeTransportError, toKubeError } from './errors.ts'
import { responseError } from './status.ts'

/** One JSON request. */
export interface JsonRequest {
  readonly method: KubeSendOptions['method']
  /** Path and query, e.g. `/apis/coordination.k8s.io/v1/namespaces/default/leases/x`. */
  readonly path: string
  /** Sent as JSON when present. */
  readonly body?: unknown
  /** The body's content type. Default `application/json`; PATCH needs e.g. `application/merge-patch+json`. */
  readonly contentType?: string
  /**
   * The whole request — headers and body — must complete within this many ms, else it fails with a
   * {@link KubeTransportError}. Default 10,000. Small bodies make a whole-request limit right here,
   * unlike watches, whose limit is on idleness.
   */
  readonly timeoutMs?: number
  /** Aborting fails the request with a `KubeAbortedError`. */
  readonly signal?: AbortSignal
  /** Larger response bodies fail with {@link KubeDecodeError}. Default 4 MiB. */
  readonly maxBytes?: number
  /** The timeout's clock. Default the system's. */
  readonly clock?: Clock
}

/** A successful (2xx) response. */
export interface JsonResponse {
  readonly status: number
  /** The parsed body; null when it was empty. */
  readonly body: unknown
}

/**
 * Sends `req` with the client's TLS and credentials. Resolves with a 2xx response; rejects with a
 * {@link KubeApiError} (status, reason, Retry-After) for any other status, and with another
 * {@link KubeError} for transport failures, the timeout, an abort or a body that is not JSON.
 */
export async function requestJson(client: Pick<KubeWriteClient, 'send'>, req: JsonRequest): Promise<JsonResponse> {
  const timeoutMs = req.timeoutMs ?? 10_000
  const maxBytes = req.maxBytes ?? 4 * 1024 * 1024
  const controller = new AbortController()
  let timedOut = false
  const clock = req.clock ?? systemClock
  const timer = clock.setTimeout(() => {
    timedOut = true
    controller.abort()
  }, timeoutMs)
  const onAbort = (): void => controller.abort()
  if (req.signal?.aborted) controller.abort()
  else req.signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const res = await client.send(req.path, {
      method: req.method,
      accept: 'application/json',
      idleTimeoutMs: timeoutMs,
      signal: controller.signal,
      ...(req.body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(req.body)), contentType: req.contentType ?? 'application/json' }),
    })
    if (res.status < 200 || res.status > 299) throw await responseError(res, clock.now())
    const bytes = await res.bytes(maxBytes + 1)
    if (bytes.length > maxBytes) throw new KubeDecodeError(`${req.method} ${req.path}: response body larger than ${maxBytes} bytes`)
    if (bytes.length === 0) return { status: res.status, body: null }
    try {
      return { status: res.status, body: JSON.parse(new TextDecoder().decode(bytes)) }
    } catch (err) {
      throw new KubeDecodeError(`${req.method} ${req.path}: response body is not JSON`, { cause: err })
    }
  } catch (err) {
    // The abort that the timer caused is reported as what it is; the caller's abort stays an abort.
    if (timedOut && !req.signal?.aborted && !(err instanceof KubeApiError)) {
      throw new KubeTransportError(`${req.method} ${req.path}: no complete response within ${timeoutMs} ms`, { cause: err })
    }
    throw toKubeError(err)
  } finally {
    clock.clearTimeout(timer)
    req.signal?.removeEventListener('abort', onAbort)
  }
}
