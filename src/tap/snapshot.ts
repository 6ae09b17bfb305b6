// The `/state` JSON of one connection (documented in README.md), built from its live state.
import { compareUtf8 } from '../model/utf8-order.ts'
import { describeCloseReason, type CloseReason } from './close-reason.ts'
import type { ConnectionState } from './connection-state.ts'
import { cloudPlatformName, healthName, ipJson, isoTime, ownerKindName, u64Json } from './json.ts'
import type { ReducerPod } from './reducer-state.ts'

export interface ContainerSnapshot {
  /** Container id as sent (`containerd://…`). */
  readonly id: string
  /** The id with its `scheme://` prefix stripped: the reducer's de-duplication key. */
  readonly key: string
  readonly name: string
  readonly image: string
}

export interface PodSnapshot {
  readonly uid: string
  readonly ns: string
  readonly podName: string
  /** Dotted IPv4; `0.0.0.0` = the pod has no IPv4 address. */
  readonly ip: string
  readonly ownerKind: number
  readonly ownerKindName: string
  readonly ownerUid: string
  readonly ownerName: string
  readonly isHostNetwork: boolean
  readonly version: string
  readonly containers: readonly ContainerSnapshot[]
}

export interface AgentSnapshot {
  readonly collectorType: number | null
  readonly cpuCores: number | null
  readonly labels: Readonly<Record<string, string>>
  readonly cloudPlatform: { readonly code: number; readonly name: string } | null
  readonly nodeInfo: { readonly az: string; readonly role: string; readonly instanceId: string; readonly instanceType: string } | null
  readonly health: { readonly status: number; readonly name: string; readonly detail: number } | null
  readonly metadataComplete: { readonly time: number | string; readonly receivedAt: string } | null
}

export type CloseReasonSnapshot = CloseReason & { readonly message: string }

export interface ConnectionSnapshot {
  readonly id: number
  readonly remote: string
  readonly open: boolean
  readonly openedAt: string
  readonly lastDataAt: string
  readonly closedAt?: string
  readonly closeReason?: CloseReasonSnapshot
  /** `version_info` as `major.minor.patch`, `null` before it arrived. */
  readonly version: string | null
  readonly hostname: string | null
  readonly agent: AgentSnapshot
  /** `pod_resync` counts in arrival order. */
  readonly epochs: ReadonlyArray<number | string>
  readonly counters: {
    readonly messages: number
    readonly byType: Readonly<Record<string, number>>
    readonly bytesReceived: number
    readonly bytesRaw: number
    readonly bytesCompressed: number
    /** Messages the reducer drops harmlessly: a container for an unknown pod, a delete of an unknown uid. */
    readonly ignored: number
  }
  /** Pods held, sorted by namespace, name, uid. Empty once closed: the reducer drops them (docs/protocol.md §4). */
  readonly pods: readonly PodSnapshot[]
  /** Pods held when the connection closed. */
  readonly podsAtClose?: number
}

function podSnapshot(p: ReducerPod): PodSnapshot {
  const containers: ContainerSnapshot[] = []
  for (const [key, c] of p.containers) containers.push({ id: c.id, key, name: c.name, image: c.image })
  return {
    uid: p.uid,
    ns: p.ns,
    podName: p.podName,
    ip: ipJson(p.ip),
    ownerKind: p.ownerKind,
    ownerKindName: ownerKindName(p.ownerKind),
    ownerUid: p.ownerUid,
    ownerName: p.ownerName,
    isHostNetwork: p.isHostNetwork,
    version: p.version,
    containers,
  }
}

const byPodName = (a: PodSnapshot, b: PodSnapshot): number =>
  compareUtf8(a.ns, b.ns) || compareUtf8(a.podName, b.podName) || compareUtf8(a.uid, b.uid)

/** The `/state` entry of one connection (a fresh, JSON-ready object). */
export function snapshotConnection(conn: ConnectionState): ConnectionSnapshot {
  const a = conn.agent
  const pods: PodSnapshot[] = []
  for (const p of conn.reducer.pods.values()) pods.push(podSnapshot(p))
  pods.sort(byPodName)
  const v = a.version
  return {
    id: conn.id,
    remote: conn.remote,
    open: conn.closeReason === undefined,
    openedAt: isoTime(conn.openedAtMs),
    lastDataAt: isoTime(conn.lastDataAtMs),
    ...(conn.closedAtMs !== undefined ? { closedAt: isoTime(conn.closedAtMs) } : {}),
    ...(conn.closeReason ? { closeReason: { ...conn.closeReason, message: describeCloseReason(conn.closeReason) } } : {}),
    version: v ? `${v.major}.${v.minor}.${v.patch}` : null,
    hostname: a.hostname ?? null,
    agent: {
      collectorType: a.collectorType ?? null,
      cpuCores: a.cpuCores ?? null,
      labels: Object.fromEntries(a.labels),
      cloudPlatform: a.cloudPlatform === undefined ? null : { code: a.cloudPlatform, name: cloudPlatformName(a.cloudPlatform) },
      nodeInfo: a.nodeInfo ?? null,
      health: a.health ? { status: a.health.status, name: healthName(a.health.status), detail: a.health.detail } : null,
      metadataComplete: a.metadataComplete
        ? { time: u64Json(a.metadataComplete.time), receivedAt: isoTime(a.metadataComplete.receivedAtMs) }
        : null,
    },
    epochs: conn.reducer.epochs.map(u64Json),
    counters: {
      messages: conn.counters.messages,
      byType: Object.fromEntries(conn.counters.byType),
      bytesReceived: conn.counters.bytesReceived,
      bytesRaw: conn.counters.bytesRaw,
      bytesCompressed: conn.counters.bytesCompressed,
      ignored: conn.reducer.ignored,
    },
    pods,
    ...(conn.podsAtClose !== undefined ? { podsAtClose: conn.podsAtClose } : {}),
  }
}
