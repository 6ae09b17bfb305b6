// What the tap knows about one collector connection: the reducer's pod state (docs/protocol.md §4), the
// agent info the handshake carried (§6), counters, and how it ended.
import type { IngestMessage, IngestMessageType } from '../ingest/index.ts'
import type { CloseReason } from './close-reason.ts'
import { applyToReducerState, createReducerState, type ReducerState } from './reducer-state.ts'

/** The agent's view as the reducer keeps it (docs/protocol.md §4: everything but the pod messages). */
export interface AgentInfo {
  /** `connect.collector_type` (3 = Kubernetes collector). */
  collectorType?: number
  hostname?: string
  version?: { readonly major: number; readonly minor: number; readonly patch: number }
  cpuCores?: number
  /** `set_config_label` pairs; a later value for the same key replaces the earlier one. */
  readonly labels: Map<string, string>
  cloudPlatform?: number
  nodeInfo?: { readonly az: string; readonly role: string; readonly instanceId: string; readonly instanceType: string }
  health?: { readonly status: number; readonly detail: number }
  /** `metadata_complete`: its `time` field and when it arrived (ms since the epoch). */
  metadataComplete?: { readonly time: bigint; readonly receivedAtMs: number }
}

/** Counters of one connection. */
export interface ConnectionCounters {
  /** Accepted messages by type. */
  readonly byType: Map<IngestMessageType, number>
  messages: number
  /** Every byte read from the socket. */
  bytesReceived: number
  /** Bytes of the accepted messages, decompressed (timestamps included). */
  bytesRaw: number
  /** Bytes of the LZ4 stream (everything after the first message). */
  bytesCompressed: number
}

/** One connection, open or closed. Mutated in place by the tap; read through `snapshotConnection`. */
export interface ConnectionState {
  readonly id: number
  /** `address:port` of the collector. */
  readonly remote: string
  readonly openedAtMs: number
  lastDataAtMs: number
  closedAtMs?: number
  closeReason?: CloseReason
  /** Pods held when the connection closed (they are dropped then, as the reducer does). */
  podsAtClose?: number
  readonly agent: AgentInfo
  readonly reducer: ReducerState
  readonly counters: ConnectionCounters
}

export function createConnectionState(id: number, remote: string, nowMs: number): ConnectionState {
  return {
    id,
    remote,
    openedAtMs: nowMs,
    lastDataAtMs: nowMs,
    agent: { labels: new Map() },
    reducer: createReducerState(),
    counters: { byType: new Map(), messages: 0, bytesReceived: 0, bytesRaw: 0, bytesCompressed: 0 },
  }
}

/** Applies one accepted message: the reducer's pod semantics plus the agent fields. */
export function applyMessage(conn: ConnectionState, msg: IngestMessage, size: number, nowMs: number): void {
  const c = conn.counters
  c.messages++
  c.bytesRaw += size
  c.byType.set(msg.type, (c.byType.get(msg.type) ?? 0) + 1)
  const agent = conn.agent
  switch (msg.type) {
    case 'version_info':
      agent.version = { major: msg.major, minor: msg.minor, patch: msg.patch }
      return
    case 'connect':
      agent.collectorType = msg.collectorType
      agent.hostname = msg.hostname
      return
    case 'report_cpu_cores':
      agent.cpuCores = msg.cpuCoreCount
      return
    case 'set_config_label':
      agent.labels.set(msg.key, msg.value)
      return
    case 'cloud_platform':
      agent.cloudPlatform = msg.cloudPlatform
      return
    case 'set_node_info':
      agent.nodeInfo = { az: msg.az, role: msg.role, instanceId: msg.instanceId, instanceType: msg.instanceType }
      return
    case 'collector_health':
      agent.health = { status: msg.status, detail: msg.detail }
      return
    case 'metadata_complete':
      agent.metadataComplete = { time: msg.time, receivedAtMs: nowMs }
      return
    case 'heartbeat':
      return
    case 'pod_new_with_name':
    case 'pod_container':
    case 'pod_delete':
    case 'pod_resync':
      applyToReducerState(conn.reducer, msg)
      return
  }
}

/**
 * Marks the connection closed (the first reason wins) and drops its pods, as the reducer does
 * (docs/protocol.md §4); their count stays in `podsAtClose`.
 */
export function closeConnection(conn: ConnectionState, reason: CloseReason, nowMs: number): void {
  if (conn.closeReason) return
  conn.closeReason = reason
  conn.closedAtMs = nowMs
  conn.podsAtClose = conn.reducer.pods.size
  conn.reducer.pods.clear()
}
