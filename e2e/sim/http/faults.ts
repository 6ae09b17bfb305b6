// Fault state consulted by the HTTP layer: injected failures, slow responses, stalled watches, malformed lines.
import { errors, type SimApiError } from '../api/errors.ts'
import type { ResourceInfo } from '../api/resources.ts'
import type { FailRequestsOptions } from '../types.ts'

interface Failure {
  readonly resource?: string
  readonly status: FailRequestsOptions['status']
  readonly retryAfterSeconds: number
  /** Requests still to fail; Infinity until cleared. */
  remaining: number
}

/** Mutable fault switches; the actions that touch open watches live in the simulator's `faults`. */
export class FaultState {
  /** Open watches send nothing while true. */
  stalled = false
  /** Delay before every response's headers. */
  delayMs = 0
  #failures: Failure[] = []
  readonly #malformed = new Set<string>()

  failRequests(opts: FailRequestsOptions): void {
    if (![429, 500, 403, 404].includes(opts.status)) throw new RangeError(`unsupported fault status ${opts.status}`)
    this.#failures.push({
      resource: opts.resource, status: opts.status, retryAfterSeconds: opts.retryAfterSeconds ?? 1,
      remaining: opts.count ?? Infinity,
    })
  }

  clearFailures(): void {
    this.#failures = []
  }

  /** The injected error for this resource request, if any (consumes one of its `count`). */
  takeFailure(r: ResourceInfo, verb: string, namespace: string | undefined): SimApiError | undefined {
    const f = this.#failures.find((x) => x.remaining > 0 && (!x.resource || x.resource === r.plural))
    if (!f) return undefined
    f.remaining--
    if (f.remaining <= 0) this.#failures = this.#failures.filter((x) => x !== f)
    switch (f.status) {
      case 429: return errors.tooManyRequests(f.retryAfterSeconds)
      case 500: return errors.internal('injected fault')
      case 403: return errors.forbidden(r, verb, namespace)
      case 404: return errors.resourceNotFound()
    }
  }

  malformedLine(plural: string): void {
    this.#malformed.add(plural)
  }

  /** True once after malformedLine(plural): the caller corrupts the line it is about to send. */
  takeMalformed(plural: string): boolean {
    return this.#malformed.size > 0 && this.#malformed.delete(plural)
  }
}
