// The reducer ingest messages k8s-collector sends (docs/protocol.md §3), as plain typed values.

/** `owner_kind` wire codes (docs/protocol.md §3), kept with the owner-kind table. */
export { OwnerKindCode } from '../model/owner-kinds.ts'

/** `connect.collector_type` of the Kubernetes collector. */
export const K8S_COLLECTOR_TYPE = 3

export interface VersionInfo { readonly type: 'version_info'; readonly major: number; readonly minor: number; readonly patch: number }
export interface Connect { readonly type: 'connect'; readonly collectorType: number; readonly hostname: string }
export interface PodNewWithName {
  readonly type: 'pod_new_with_name'
  readonly uid: string
  /** IPv4 as a u32 whose big-endian bytes are the dotted octets (10.0.0.1 → 0x0a000001); 0 = none. */
  readonly ip: number
  readonly ownerName: string
  readonly podName: string
  readonly ownerKind: number
  readonly ownerUid: string
  readonly isHostNetwork: boolean
  readonly ns: string
  readonly version: string
}
export interface PodContainer {
  readonly type: 'pod_container'
  readonly uid: string
  readonly containerId: string
  readonly containerName: string
  readonly containerImage: string
}
export interface PodDelete { readonly type: 'pod_delete'; readonly uid: string }
export interface PodResync { readonly type: 'pod_resync'; readonly resyncCount: bigint }
export interface Heartbeat { readonly type: 'heartbeat' }
export interface MetadataComplete { readonly type: 'metadata_complete'; readonly time: bigint }
export interface ReportCpuCores { readonly type: 'report_cpu_cores'; readonly cpuCoreCount: number }
export interface SetConfigLabel { readonly type: 'set_config_label'; readonly key: string; readonly value: string }
export interface SetNodeInfo {
  readonly type: 'set_node_info'
  readonly az: string
  readonly role: string
  readonly instanceId: string
  readonly instanceType: string
}
export interface CloudPlatform { readonly type: 'cloud_platform'; readonly cloudPlatform: number }
export interface CollectorHealth { readonly type: 'collector_health'; readonly status: number; readonly detail: number }

/** Messages about pods: what the matcher emits (docs/behaviour.md §5). */
export type PodMessage = PodNewWithName | PodContainer | PodDelete | PodResync

/**
 * Messages made only when they are encoded: a resync's announcements (docs/behaviour.md §6), which
 * would otherwise wait as hundreds of thousands of objects, long enough to be promoted, while the
 * reducer reads them (bench/README.md, issue 34). Item `i` (0 ≤ i < count) stands for one or more
 * messages, the same ones whenever it is expanded. Not a wire message: the link expands it.
 */
export interface DeferredMessages {
  readonly type: 'deferred'
  readonly count: number
  /** Hands the messages of item `i` to `emit`, in order. */
  expand(i: number, emit: (msg: PodMessage) => void): void
}

/** What the matcher hands the link: pod messages, and deferred ones. */
export type PodOutput = PodMessage | DeferredMessages

/** What the link queues: messages, and deferred ones. */
export type OutboundMessage = IngestMessage | DeferredMessages

/** Every message of docs/protocol.md §3. */
export type IngestMessage =
  | VersionInfo
  | Connect
  | PodMessage
  | Heartbeat
  | MetadataComplete
  | ReportCpuCores
  | SetConfigLabel
  | SetNodeInfo
  | CloudPlatform
  | CollectorHealth

export type IngestMessageType = IngestMessage['type']

/** A decoded message with the timestamp it carried (u64 ns since the Unix epoch). */
export type TimedMessage = IngestMessage & { readonly timestamp: bigint }

/** Every message of `out`, deferred ones expanded (made now), in order. */
export function expandMessages(out: readonly PodOutput[]): PodMessage[] {
  const all: PodMessage[] = []
  const emit = (m: PodMessage): void => {
    all.push(m)
  }
  for (const m of out) {
    if (m.type !== 'deferred') all.push(m)
    else for (let i = 0; i < m.count; i++) m.expand(i, emit)
  }
  return all
}
