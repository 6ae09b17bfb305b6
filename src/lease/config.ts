// Leader-election timing and identity: client-go's defaults and validation rules, as pure functions
// the CLI's option table calls (docs/high-availability.md "The numbers").
import { randomUUID } from 'node:crypto'

/** Leader-election options that break client-go's rules (a usage error at the CLI). */
export class LeaseConfigError extends Error {
  override name = 'LeaseConfigError'
}

/** The three durations of leader election, in ms. */
export interface ElectionTiming {
  /**
   * How long a standby respects a holder that stopped renewing, counted on its own clock from when it
   * last saw the record change. Written to the Lease in whole seconds. Default 15,000.
   */
  readonly leaseDurationMs: number
  /** A leader that has not renewed within this long of its last successful renewal stops leading. Default 10,000. */
  readonly renewDeadlineMs: number
  /** Time between attempts to acquire (jittered up to ×1.2) or renew. Default 2,000. */
  readonly retryPeriodMs: number
}

/** client-go's defaults (leaderelection.LeaderElectionConfig: 15 s, 10 s, 2 s). */
export const defaultElectionTiming: ElectionTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }

/** The largest retry-period jitter factor; client-go's JitterFactor. */
export const JITTER_FACTOR = 1.2

/**
 * Checks client-go's rules: lease duration > renew deadline > retry period × 1.2, all positive, and
 * the lease duration a whole number of seconds (the Lease stores seconds). Returns the first
 * problem as a sentence, or undefined when the timing is valid.
 */
export function validateElectionTiming(t: ElectionTiming): string | undefined {
  const s = (ms: number): string => `${ms / 1000} s`
  for (const [name, v] of [['lease duration', t.leaseDurationMs], ['renew deadline', t.renewDeadlineMs], ['retry period', t.retryPeriodMs]] as const) {
    if (!Number.isFinite(v) || v <= 0) return `the ${name} must be a positive number of seconds (got ${v / 1000})`
  }
  if (!Number.isInteger(t.leaseDurationMs / 1000)) return `the lease duration must be a whole number of seconds (got ${s(t.leaseDurationMs)})`
  if (t.leaseDurationMs <= t.renewDeadlineMs) {
    return `the lease duration (${s(t.leaseDurationMs)}) must be greater than the renew deadline (${s(t.renewDeadlineMs)})`
  }
  if (t.renewDeadlineMs <= t.retryPeriodMs * JITTER_FACTOR) {
    return `the renew deadline (${s(t.renewDeadlineMs)}) must be greater than the retry period × ${JITTER_FACTOR} (${s(t.retryPeriodMs * JITTER_FACTOR)})`
  }
  return undefined
}

// A DNS-1123 label (namespace) and subdomain (Lease name), as the API server validates them.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/** Checks a Lease namespace and name; returns the problem as a sentence, or undefined. */
export function validateLeaseRef(ref: { readonly namespace: string; readonly name: string }): string | undefined {
  if (ref.namespace.length > 63 || !DNS_LABEL.test(ref.namespace)) return `the lease namespace "${ref.namespace}" is not a valid namespace name (RFC 1123 label)`
  if (ref.name.length > 253 || !DNS_SUBDOMAIN.test(ref.name)) return `the lease name "${ref.name}" is not a valid object name (RFC 1123 subdomain)`
  return undefined
}

/**
 * The default identity, `<hostname>_<random UUID>` as client-go's users write it: unique per process
 * (in a pod the hostname is the pod's name, so `kubectl get lease` names the pod).
 */
export function defaultIdentity(hostname: string): string {
  return `${hostname}_${randomUUID()}`
}
