// What the HTTP handlers share: configuration, the store and its verbs, list snapshots, fault state, open watches.
import type { ObjectApi } from '../api/object-api.ts'
import type { SimConfig } from '../options.ts'
import type { SnapshotCache } from '../store/snapshots.ts'
import type { ObjectStore } from '../store/store.ts'
import type { FaultState } from './faults.ts'
import type { WatchStream } from './watch-stream.ts'

export interface ServerContext {
  readonly config: SimConfig
  readonly store: ObjectStore
  readonly api: ObjectApi
  readonly snapshots: SnapshotCache
  readonly faults: FaultState
  /** Every open watch stream (fault injection ends or stalls them). */
  readonly watches: Set<WatchStream>
  /** Requests served so far (stats). */
  requests: number
}
