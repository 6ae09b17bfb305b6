// The compact metadata the collector keeps per Kubernetes object (docs/behaviour.md §2).

/** A controller ownerReference: the first `ownerReferences` entry with `controller: true`. */
export interface OwnerRef {
  readonly kind: string
  readonly uid: string
  readonly name: string
}

/** One started container of a pod, as `status.containerStatuses[*]` reports it. */
export interface ContainerMeta {
  /** `containerID` as reported, e.g. `containerd://0123…`; never empty (unstarted containers are left out). */
  readonly id: string
  readonly name: string
  readonly image: string
}

/** What the collector keeps of a `v1/Pod` (docs/behaviour.md §2). */
export interface PodMeta {
  readonly uid: string
  readonly name: string
  readonly namespace: string
  readonly resourceVersion: string
  /**
   * First IPv4 address among `status.podIP` / `status.podIPs`, as a u32 whose big-endian bytes are
   * the dotted octets (10.0.0.1 → 0x0a000001); 0 when the pod has no IPv4 address.
   */
  readonly ip: number
  /** `status.podIP` is non-empty (either address family). */
  readonly hasIp: boolean
  readonly hostNetwork: boolean
  /** Quoted, byte-ordered, comma-joined container images, e.g. `'busybox','nginx:1.25'`. */
  readonly version: string
  /** Started containers (with an id), in API order. */
  readonly containers: readonly ContainerMeta[]
  /**
   * The controller reference. The converters always set the property (undefined when there is
   * none) and hand out a fresh object, but for a first LIST's item, which comes with the model
   * context's shared one; the core swaps a fresh one for the one shared by all pods of that owner
   * when it keeps the pod (src/match/pod-store.ts).
   */
  readonly owner?: OwnerRef
}

/** The owner kinds the collector watches and escalates through (docs/behaviour.md §1, §3). */
export type OwnerKind = 'ReplicaSet' | 'Job'

/** What the collector keeps of a ReplicaSet or Job (full object or PartialObjectMetadata). */
export interface OwnerMeta {
  readonly kind: OwnerKind
  readonly uid: string
  readonly name: string
  readonly namespace: string
  readonly resourceVersion: string
  /** The owner's own controller reference (ReplicaSet → Deployment, Job → CronJob). */
  readonly controller?: OwnerRef
}

/**
 * The kube-rs watcher event protocol (docs/behaviour.md §1): `init … initApply* … initDone` brackets
 * every (re)list, then `apply` / `delete`. `receivedAt` (clock ms): when the watch read an event it
 * held for its size before handing it on (docs/behaviour.md §14); latency counts from there.
 */
export type WatchEvent<T> =
  | { readonly type: 'init' }
  | { readonly type: 'initApply'; readonly object: T }
  | { readonly type: 'initDone' }
  | { readonly type: 'apply'; readonly object: T; readonly receivedAt?: number }
  | { readonly type: 'delete'; readonly object: T; readonly receivedAt?: number }

/**
 * What a watch stream yields: the watcher events, plus `unavailable` when the API server answers
 * 403/404 for the resource (docs/behaviour.md §3). A stream becomes available again at its next
 * `initDone`.
 */
export type StreamEvent<T> = WatchEvent<T> | { readonly type: 'unavailable'; readonly reason: string }
