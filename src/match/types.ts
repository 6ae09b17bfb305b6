// Configuration, statistics and the resolved-owner type of the matching core.

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
