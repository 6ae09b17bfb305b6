// The small cluster interface the end-to-end scenarios are written against; two backends
// implement it: the API simulator (sim-backend.ts) and a kind cluster (../kind/backend.ts).
import type { EventPage, TapState } from '../../src/tap/index.ts'
import type { ClusterObjects } from '../harness/expect.ts'

export type ApiDisruption = 'drop-watches' | 'gone' | 'stall'

export interface E2eCluster {
  readonly name: 'sim' | 'kind' | 'k8s'
  /** The hostname the collector sends in `connect` (how its connections are found in the tap). */
  readonly collectorHostname: string
  /** How long convergence may take after a change, ms (real clusters pull images and schedule). */
  readonly settleMs: number
  /** Creates objects (manifests with apiVersion/kind/metadata/spec). */
  apply(objects: readonly object[]): Promise<void>
  patch(resource: string, namespace: string, name: string, mergePatch: object): Promise<void>
  delete(resource: string, namespace: string, name: string): Promise<void>
  /**
   * A run of the CronJob: `now` creates its Job at once (sim: the "run now" trigger; kind:
   * `kubectl create job --from=cronjob/…`); otherwise the sim triggers it and kind leaves it to
   * the every-minute schedule.
   */
  runCronJob(namespace: string, name: string, opts?: { now?: boolean }): Promise<void>
  /** Pods, ReplicaSets and Jobs of every namespace, as the API returns them. */
  objects(): Promise<ClusterObjects>
  tapState(): Promise<TapState>
  tapEvents(since: number): Promise<EventPage>
  /** Stops the fake reducer and starts it again at the same address. */
  restartReducer(): Promise<void>
  /** Kills the collector process (pod) and starts a new one. */
  restartCollector(): Promise<void>
  /** Breaks the API server for a moment; returns once it serves again. */
  disruptApi(kind: ApiDisruption, meanwhile?: () => Promise<void>): Promise<ApiDisruption[]>
}
