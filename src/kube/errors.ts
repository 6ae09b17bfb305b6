// The watch layer's error types, one per failure site, and the predicates recovery decides on
// (style.md §7, docs/kube-api.md "Recovery algorithm").
import { TRANSPORT_REASONS, transportFailure, type TransportReason } from './transport-reason.ts'

/** The API server answered with a non-success HTTP status (or an in-stream `ERROR` Status). */
export class KubeApiError extends Error {
  override name = 'KubeApiError'
  /** HTTP status, or the Status object's `code` for in-stream errors. */
  readonly status: number
  /** The Status object's `reason` (`Expired`, `Gone`, `Forbidden`, …), '' when absent. */
  readonly reason: string
  /** `Retry-After` in milliseconds (429/503), undefined when absent. */
  readonly retryAfterMs: number | undefined
  /** True when the error arrived as an `ERROR` event inside a 200 watch body. */
  readonly inStream: boolean

  constructor(opts: { status: number; reason?: string; message?: string; retryAfterMs?: number; inStream?: boolean }) {
    const reason = opts.reason ?? ''
    const where = opts.inStream ? 'watch ERROR' : `HTTP ${opts.status}`
    super(`${where}${reason ? ` ${reason}` : ''}${opts.message ? `: ${opts.message}` : ''}`)
    this.status = opts.status
    this.reason = reason
    this.retryAfterMs = opts.retryAfterMs
    this.inStream = opts.inStream ?? false
  }
}

/**
 * The connection failed: refused, reset, TLS failure, or the body ended inside a line. `reason`
 * says why in one of a fixed set of words (transport-reason.ts); the message names it too.
 */
export class KubeTransportError extends Error {
  override name = 'KubeTransportError'
  readonly reason: TransportReason

  constructor(message: string, opts: { cause?: unknown; reason?: TransportReason } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.reason = opts.reason ?? 'network'
  }
}

/**
 * The error of a request to `host` that failed with `err` (any runtime's shape): its reason read
 * from the cause chain, and a message that says it, e.g. `10.0.0.1:6443: TLS: certificate signed
 * by an unknown authority (invalid peer certificate: UnknownIssuer)` (never a bare `fetch failed`).
 */
export function transportError(host: string, err: unknown): KubeTransportError {
  const { reason, detail } = transportFailure(err)
  return new KubeTransportError(`${host}: ${TRANSPORT_REASONS[reason]} (${detail})`, { cause: err, reason })
}

/**
 * The API server sent nothing for the silence limit while the collector waited for it: the request
 * was torn down as dead, cause `peer_silent` (docs/behaviour.md §12, docs/kube-api.md step 6).
 */
export class KubeIdleTimeoutError extends Error {
  override name = 'KubeIdleTimeoutError'
}

/** A streaming list made no progress and sent no end bookmark in time (fallback to LIST). */
export class KubeInitialEventsTimeoutError extends Error {
  override name = 'KubeInitialEventsTimeoutError'
}

/** A response body line or list body that is not valid JSON (docs/behaviour.md §9). */
export class KubeDecodeError extends Error {
  override name = 'KubeDecodeError'
}

/** A watch that ended cleanly within the short-watch window without any event (docs/kube-api.md step 3). */
export class KubeShortWatchError extends Error {
  override name = 'KubeShortWatchError'
}

/** The request was cancelled by the caller's AbortSignal or closed by the watch layer itself. */
export class KubeAbortedError extends Error {
  override name = 'KubeAbortedError'
}

/** No usable kubeconfig or in-cluster service account (a CLI-level error). */
export class KubeConfigError extends Error {
  override name = 'KubeConfigError'
}

/** Every error the watch layer yields as a value. */
export type KubeError =
  | KubeApiError
  | KubeTransportError
  | KubeIdleTimeoutError
  | KubeInitialEventsTimeoutError
  | KubeDecodeError
  | KubeShortWatchError
  | KubeAbortedError

/** 410 Gone / reason Expired or Gone: the resourceVersion or continue token is too old → relist. */
export function isGone(err: unknown): boolean {
  return err instanceof KubeApiError && (err.status === 410 || err.reason === 'Expired' || err.reason === 'Gone')
}

/** 403/404: RBAC denies the resource or its API group is absent → the stream is unavailable (docs/behaviour.md §3). */
export function isUnavailable(err: unknown): boolean {
  return err instanceof KubeApiError && !err.inStream && (err.status === 403 || err.status === 404)
}

/** A short label for counters: the HTTP status, the transport failure's reason, or the error class for other failures. */
export function errorLabel(err: KubeError): string {
  switch (err.name) {
    case 'KubeApiError':
      return String((err as KubeApiError).status)
    case 'KubeTransportError':
      return (err as KubeTransportError).reason
    case 'KubeIdleTimeoutError':
      return 'peer_silent'
    case 'KubeInitialEventsTimeoutError':
      return 'initial_events_timeout'
    case 'KubeDecodeError':
      return 'malformed'
    case 'KubeShortWatchError':
      return 'short_watch'
    default:
      return 'aborted'
  }
}

/** Normalises anything thrown below the watcher into a {@link KubeError}. */
export function toKubeError(err: unknown): KubeError {
  if (
    err instanceof KubeApiError ||
    err instanceof KubeTransportError ||
    err instanceof KubeIdleTimeoutError ||
    err instanceof KubeInitialEventsTimeoutError ||
    err instanceof KubeDecodeError ||
    err instanceof KubeShortWatchError ||
    err instanceof KubeAbortedError
  ) {
    return err
  }
  const { reason, detail } = transportFailure(err)
  return new KubeTransportError(reason === 'network' ? detail : `${TRANSPORT_REASONS[reason]} (${detail})`, { cause: err, reason })
}
