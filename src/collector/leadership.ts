// Leadership among replicas (docs/behaviour.md §11): follows the Lease election, runs the reducer
// link one leadership term at a time, and closes the term's connection before the Lease is released.
import { noEvents, type EventReporter, type LeaseIdentity } from '../events/index.ts'
import type { ElectionEvent, LeaseRef } from '../lease/index.ts'
import { describeLease, isForbidden, leaseErrorMessage } from '../lease/index.ts'
import { errorLabel } from '../kube/errors.ts'
import { logger } from '../observe/log.ts'
import type { Registry } from '../observe/metrics.ts'
import { createRateLimitedLog } from '../observe/rate-limit.ts'

export interface LeadershipDeps {
  /** Runs the election until its signal aborts: `runElection` on this replica's Lease API and timing. */
  readonly elect: (signal: AbortSignal) => AsyncIterable<ElectionEvent>
  readonly lease: LeaseRef
  readonly identity: string
  readonly registry: Registry
  /** Where `LeaderElected` and `LeadershipLost` go as Kubernetes Events (docs/events.md). Default: nowhere. */
  readonly events?: EventReporter
  /** Clock of the rate-limited log, ms. Default Date.now. */
  readonly now?: () => number
}

export interface Leadership {
  /**
   * Runs the election until `signal` aborts, calling `lead(term)` for each term this replica holds
   * the Lease. `term` aborts the moment the term ends (renew deadline passed, Lease taken), so
   * `lead` must close the reducer connection at once; the next term starts only once the previous
   * `lead` settled. On abort: the current term ends, its `lead` settles, and only then is the Lease
   * released (a standby takes it at its next attempt). Resolves after the release.
   */
  run(signal: AbortSignal, lead: (term: AbortSignal) => Promise<void>): Promise<void>
  /** From `elected` to `lost`. */
  readonly leading: boolean
}

/** Leadership through `deps.elect`, with its metrics registered and its changes logged. */
export function createLeadership(deps: LeadershipDeps): Leadership {
  const log = logger.withTag('leader')
  const limited = createRateLimitedLog(log, { intervalMs: 60_000, ...(deps.now ? { now: deps.now } : {}) })
  const lease = `lease ${describeLease(deps.lease)}`
  const reporter = deps.events ?? noEvents
  /** The Lease as its Events name it (its uid once an election returned it). */
  let leaseIdentity: LeaseIdentity = { namespace: deps.lease.namespace, name: deps.lease.name }
  let leading = false
  let lastErrorLabel = ''

  deps.registry.gauge({ name: 'k8s_collector_leader', help: '1 while this replica holds the Lease and may connect to the reducer, else 0 (docs/behaviour.md §11).', collect: () => (leading ? 1 : 0) })
  const transitions = deps.registry.counter({ name: 'k8s_collector_leader_transitions_total', help: 'Times this replica became leader or stopped leading.' })
  const errors = deps.registry.counter({
    name: 'k8s_collector_lease_api_errors_total',
    help: 'Failed Lease requests, by request and HTTP status or failure kind (403: RBAC does not allow the Lease; refused, tls_unknown_authority … as docs/kube-api.md "Transport failures" lists).',
    labelNames: ['op', 'status'],
  })
  const conflicts = deps.registry.counter({ name: 'k8s_collector_lease_conflicts_total', help: 'Lease writes that lost a race to another writer (409), by request.', labelNames: ['op'] })

  /** Metrics and logs of one election event. */
  function report(ev: ElectionEvent): void {
    switch (ev.type) {
      case 'elected':
        transitions.inc()
        if (ev.leaseUid) leaseIdentity = { ...leaseIdentity, uid: ev.leaseUid }
        log.info(`leading (${lease} held as ${deps.identity}): connecting to the reducer`)
        reporter.record({ reason: 'LeaderElected', identity: deps.identity, lease: leaseIdentity })
        return
      case 'lost':
        transitions.inc()
        reporter.record({ reason: 'LeadershipLost', identity: deps.identity, lease: leaseIdentity, cause: ev.reason })
        if (ev.reason === 'stopped') log.info(`stopping: reducer connection closed, releasing ${lease}`)
        else if (ev.reason === 'renewDeadline') log.warn(`${lease} not renewed within the renew deadline: reducer connection closed, standing by`)
        else log.warn(`${lease} taken by another replica: reducer connection closed, standing by`)
        return
      case 'holder':
        log.info(ev.identity === '' ? `${lease} released: no holder (${ev.transitions} transitions)` : `${lease} held by ${ev.identity}${ev.identity === deps.identity ? ' (this replica)' : ''} (${ev.transitions} transitions)`)
        return
      case 'conflict':
        conflicts.labels(ev.op).inc()
        log.debug(`${ev.op} ${lease}: another writer was first (409); retrying`)
        return
      case 'error': {
        const label = errorLabel(ev.error)
        errors.labels(ev.op, label).inc()
        // A refusal is one line per episode (retried with backoff meanwhile); other failures at most once a minute.
        if (isForbidden(ev.error)) {
          if (ev.consecutive === 1 || lastErrorLabel !== label) log.error(leaseErrorMessage(deps.lease, ev.op, ev.error))
        } else {
          limited.warn(`${ev.op}:${label}`, `${leaseErrorMessage(deps.lease, ev.op, ev.error)} (${ev.consecutive} in a row; retrying)`)
        }
        lastErrorLabel = label
        return
      }
      default: {
        const never: never = ev
        throw new Error(`unknown election event ${JSON.stringify(never)}`)
      }
    }
  }

  return {
    get leading() {
      return leading
    },
    async run(signal, lead) {
      if (signal.aborted) return
      const election = new AbortController()
      let term: AbortController | undefined
      let terms: Promise<void> = Promise.resolve()
      // Close first, release after: the Lease is released only once the last term's lead settled.
      const stop = (): void => {
        term?.abort()
        void terms.then(() => election.abort())
      }
      signal.addEventListener('abort', stop, { once: true })
      try {
        for await (const ev of deps.elect(election.signal)) {
          report(ev)
          if (ev.type === 'elected') {
            leading = true
            const t = new AbortController()
            if (signal.aborted) t.abort()
            term = t
            terms = terms.then(() => (t.signal.aborted ? undefined : lead(t.signal))).catch((err: unknown) => log.error('leading failed:', err))
          } else if (ev.type === 'lost') {
            leading = false
            term?.abort()
            term = undefined
          }
        }
      } catch (err) {
        log.error(`leader election on ${lease} failed; this replica stays standby:`, err)
      } finally {
        leading = false
        signal.removeEventListener('abort', stop)
        term?.abort()
        await terms
      }
    },
  }
}
