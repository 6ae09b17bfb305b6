// The matching core's interface, configuration, statistics and resolved-owner type.
import type { PodOutput } from '../ingest/messages.ts'
import type { OwnerKind, OwnerMeta, PodMeta, StreamEvent } from '../model/index.ts'

/** Tunables of the core (docs/behaviour.md §4, §6); times in milliseconds. */
export interface CoreConfig {
  /** How long a deleted ReplicaSet/Job stays resolvable (default 60 s). */
  readonly deleteTtlMs: number
  /** Deleted owners retained at most; the oldest are dropped first (default 10,000). */
  readonly deleteCapacity: number
  /** Waiting pods that make the core ask for an owner relist + new epoch (default 10,000). */
  readonly waitingLimit: number
  /** Least time between forced resyncs (default 60 s); doubles while the condition persists… */
  readonly forcedResyncMinIntervalMs?: number
  /** …up to this (default 10 min). */
  readonly forcedResyncMaxIntervalMs?: number
}

/** A pod's effective owner as it goes on the wire (docs/behaviour.md §3, docs/protocol.md §3). */
export interface Resolution {
  readonly code: number
  readonly uid: string
  readonly name: string
}

/** The three list/watch streams the core is fed by. */
export type StreamName = 'pods' | 'replicasets' | 'jobs'

/** Counters and gauges for /metrics. */
export interface CoreStats {
  readonly podsStored: number
  readonly podsAnnounced: number
  readonly podsWaiting: number
  readonly podsWithoutIp: number
  readonly replicaSetsStored: number
  readonly jobsStored: number
  readonly tombstones: number
  readonly epoch: number
  readonly connected: boolean
  readonly forcedResyncs: number
  readonly available: Readonly<Record<StreamName, boolean>>
  readonly primed: Readonly<Record<StreamName, boolean>>
}

/** The matching core; see {@link createCollectorCore}. */
export interface CollectorCore {
  /** Feeds an event of the pod stream; returns the messages for the current connection. A pod's meta may be kept (its owner reference and resourceVersion changed). */
  pods(ev: StreamEvent<PodMeta>, now: number): PodOutput[]
  /** Feeds an event of the ReplicaSet or Job stream. */
  owners(kind: OwnerKind, ev: StreamEvent<OwnerMeta>, now: number): PodOutput[]
  /** Expires tombstones and schedules forced resyncs; call at {@link nextDeadline} (or any time). */
  tick(now: number): void
  /** A new reducer connection (after its handshake): `epoch += 1`, `pod_resync(epoch)`, every resolvable pod (deferred: made as the link encodes them). */
  connect(): PodOutput[]
  /** The connection is gone; nothing is emitted until the next {@link connect}. */
  disconnect(): void
  /** Marks a stream unavailable (e.g. the priming timeout ran out before its first initDone). */
  markUnavailable(stream: StreamName): PodOutput[]
  /** True once, after the waiting limit asked the I/O layer to relist both owner streams (§6). */
  takeRelistRequest(): boolean
  /** All three streams have delivered their first initDone or are unavailable (§6 priming). */
  readonly primed: boolean
  /** When {@link tick} next has work, if ever. */
  nextDeadline(): number | undefined
  /** Counters for /metrics (kept up to date as events arrive: cheap to read). */
  stats(): CoreStats
}
