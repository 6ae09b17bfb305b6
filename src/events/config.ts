// The recorder's numbers (docs/events.md "Bounded cost") and where it learns who it is: the
// downward API's POD_NAME, POD_NAMESPACE and POD_UID, and K8S_COLLECTOR_EVENTS to turn it off.
import type { BookLimits } from './book.ts'
import type { PodIdentity } from './types.ts'

/** Every number of the recorder. */
export interface EventLimits extends BookLimits {
  /** Writes allowed at once (token bucket capacity). Default 10. */
  readonly burst: number
  /** One write more allowed every this many ms. Default 6,000: with the burst, at most 20 writes in any 60 s. */
  readonly refillEveryMs: number
  /** Retries of a write after 409, 429, 5xx or a timeout. Default 3. */
  readonly maxRetries: number
  /** A write not done within this long of its first attempt is dropped, ms. Default 60,000. */
  readonly giveUpAfterMs: number
  /** Whole-request timeout of one attempt, ms. Default 10,000. */
  readonly requestTimeoutMs: number
  /** First retry delay ceiling (full jitter, doubling), ms. Default 1,000. */
  readonly retryBackoffMs: number
  /** On shutdown, what is pending may still be written for this long, ms. Default 2,000. */
  readonly drainMs: number
}

export const defaultEventLimits: EventLimits = {
  isomorphicWindowMs: 6 * 60_000,
  seriesIntervalMs: 30_000,
  maxPending: 64,
  maxEntries: 256,
  burst: 10,
  refillEveryMs: 6_000,
  maxRetries: 3,
  giveUpAfterMs: 60_000,
  requestTimeoutMs: 10_000,
  retryBackoffMs: 1_000,
  drainMs: 2_000,
}

/** Whether to record events, and about which Pod. */
export type EventsSetting = { readonly enabled: true; readonly self: PodIdentity } | { readonly enabled: false; readonly why: string }

const OFF = new Set(['0', 'false', 'off', 'no'])

/**
 * Reads `K8S_COLLECTOR_EVENTS` (default on; `false`, `off`, `0` or `no` turn events off) and the
 * downward API variables; without all three of them there is no Pod to report about.
 */
export function eventsSettingFromEnv(env: Readonly<Record<string, string | undefined>>): EventsSetting {
  const flag = env.K8S_COLLECTOR_EVENTS?.trim().toLowerCase()
  if (flag && OFF.has(flag)) return { enabled: false, why: `K8S_COLLECTOR_EVENTS=${env.K8S_COLLECTOR_EVENTS}` }
  const name = env.POD_NAME?.trim() ?? ''
  const namespace = env.POD_NAMESPACE?.trim() ?? ''
  const uid = env.POD_UID?.trim() ?? ''
  if (!name || !namespace || !uid) {
    const missing = [['POD_NAME', name], ['POD_NAMESPACE', namespace], ['POD_UID', uid]].filter(([, v]) => !v).map(([k]) => k)
    return { enabled: false, why: `${missing.join(', ')} not set (the downward API in kind/collector.yaml sets them)` }
  }
  return { enabled: true, self: { name, namespace, uid } }
}
