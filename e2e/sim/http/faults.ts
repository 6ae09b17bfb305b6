// Fault state consulted by the HTTP layer: injected failures (by count or time window), slow responses,
// stalled watches, malformed lines, and the log of every fault injected and healed.
import { errors, qualifiedName, type SimApiError } from '../api/errors.ts'
import type { ResourceInfo } from '../api/resources.ts'
import type { ActiveFailure, FailRequestsOptions, FaultRecord } from '../types.ts'

const STATUSES = new Set([403, 404, 429, 500, 503, 504])
const VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'])
/** Log entries kept (the oldest go first). */
const LOG_LIMIT = 1000

interface Failure {
  readonly options: FailRequestsOptions
  readonly retryAfterSeconds: number
  /** Requests still to fail; Infinity without a count. */
  remaining: number
  /** Wall-clock ms after which it heals by itself; Infinity without a duration. */
  readonly until: number
  /** Requests failed so far. */
  failed: number
}

/** Mutable fault switches; the actions that touch open watches and the listener live in the simulator's `faults`. */
export class FaultState {
  /** Open watches send nothing while true. */
  stalled = false
  /** Delay before every response's headers. */
  delayMs = 0
  #failures: Failure[] = []
  readonly #malformed = new Set<string>()
  readonly #log: FaultRecord[] = []

  constructor(private readonly now: () => number = Date.now) {}

  /** Appends to the fault log (what a test harness reports as injected). */
  record(fault: string, options?: object): void {
    this.#log.push(options === undefined ? { at: new Date(this.now()).toISOString(), fault } : { at: new Date(this.now()).toISOString(), fault, options })
    if (this.#log.length > LOG_LIMIT) this.#log.splice(0, this.#log.length - LOG_LIMIT)
  }

  /** Every fault injected and healed, oldest first. */
  get log(): readonly FaultRecord[] {
    return this.#log
  }

  /** Throws RangeError on options the simulator cannot honour. */
  failRequests(opts: FailRequestsOptions): void {
    if (!STATUSES.has(opts.status)) throw new RangeError(`unsupported fault status ${opts.status}: one of ${[...STATUSES].join(', ')}`)
    for (const v of opts.verbs ?? []) if (!VERBS.has(v)) throw new RangeError(`unknown verb ${v}: one of ${[...VERBS].join(', ')}`)
    if (opts.count !== undefined && !(Number.isInteger(opts.count) && opts.count > 0)) throw new RangeError(`count must be a positive integer, got ${opts.count}`)
    if (opts.durationMs !== undefined && !(opts.durationMs > 0)) throw new RangeError(`durationMs must be > 0, got ${opts.durationMs}`)
    this.#failures.push({
      options: { ...opts },
      retryAfterSeconds: opts.retryAfterSeconds ?? 1,
      remaining: opts.count ?? Infinity,
      until: opts.durationMs !== undefined ? this.now() + opts.durationMs : Infinity,
      failed: 0,
    })
    this.record('failRequests', opts)
  }

  clearFailures(): void {
    this.#failures = []
    this.record('clearFailures')
  }

  /**
   * The injected error for this request, if any (consumes one of its `count`). `resource` of a
   * failure matches the plural (`events`: both API groups) or the qualified name (`events.events.k8s.io`).
   */
  takeFailure(r: ResourceInfo, verb: string, namespace: string | undefined): SimApiError | undefined {
    this.#expire()
    const f = this.#failures.find((x) => matches(x.options, r, verb))
    if (!f) return undefined
    f.failed++
    if (--f.remaining <= 0) {
      this.#failures = this.#failures.filter((x) => x !== f)
      this.record('failRequests healed', { ...f.options, failed: f.failed, by: 'count' })
    }
    switch (f.options.status) {
      case 429: return errors.tooManyRequests(f.retryAfterSeconds)
      case 500: return errors.internal('injected fault')
      case 503: return errors.serviceUnavailable(f.options.retryAfterSeconds)
      case 504: return errors.timeout(f.options.retryAfterSeconds)
      case 403: return errors.forbidden(r, verb, namespace)
      case 404: return errors.resourceNotFound()
    }
  }

  /** The failures in force now, for stats. */
  activeFailures(): ActiveFailure[] {
    this.#expire()
    return this.#failures.map((f) => ({
      ...f.options,
      failed: f.failed,
      ...(Number.isFinite(f.remaining) ? { remaining: f.remaining } : {}),
      ...(Number.isFinite(f.until) ? { until: new Date(f.until).toISOString() } : {}),
    }))
  }

  malformedLine(plural: string): void {
    this.#malformed.add(plural)
    this.record('malformedLine', { resource: plural })
  }

  /** Resources whose next watch line will be corrupted. */
  get malformedPending(): string[] {
    return [...this.#malformed]
  }

  /** True once after malformedLine(plural): the caller corrupts the line it is about to send. */
  takeMalformed(plural: string): boolean {
    return this.#malformed.size > 0 && this.#malformed.delete(plural)
  }

  /** Everything back to normal: failures cleared, no delay, no stall, no pending malformed line. */
  reset(): void {
    this.#failures = []
    this.#malformed.clear()
    this.delayMs = 0
    this.stalled = false
  }

  #expire(): void {
    if (!this.#failures.length) return
    const now = this.now()
    for (const f of this.#failures) if (f.until <= now) this.record('failRequests healed', { ...f.options, failed: f.failed, by: 'duration' })
    this.#failures = this.#failures.filter((f) => f.until > now)
  }
}

function matches(o: FailRequestsOptions, r: ResourceInfo, verb: string): boolean {
  if (o.resource && o.resource !== r.plural && o.resource !== qualifiedName(r)) return false
  return !o.verbs?.length || o.verbs.includes(verb)
}
