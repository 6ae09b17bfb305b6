// The wire layout of every message k8s-collector sends (docs/protocol.md §2–§3), as one table that the
// encoder and the decoder both read, so the two directions cannot disagree.
import type { IngestMessage, IngestMessageType } from './messages.ts'

/** A fixed field: message property, wire type, offset from the rpc_id. */
export type FixedField = readonly [name: string, kind: 'u8' | 'bool8' | 'u16' | 'u32' | 'u64' | 'ipv4', offset: number]

export interface Layout {
  readonly type: IngestMessageType
  readonly rpcId: number
  /** H: bytes from rpc_id to the end of the last fixed field. */
  readonly headerSize: number
  /** Whether a u16 `_len` sits at offset 2 (messages with blobs). */
  readonly hasLen: boolean
  readonly fixed: readonly FixedField[]
  /** Blob properties in wire order; the last one's length is implied by `_len`. */
  readonly blobs: readonly string[]
  /** Offsets of the u16 lengths of every blob but the last. */
  readonly blobLenOffsets: readonly number[]
}

const layout = (
  type: IngestMessageType,
  rpcId: number,
  headerSize: number,
  fixed: readonly FixedField[],
  blobs: readonly string[] = [],
  blobLenOffsets: readonly number[] = [],
): Layout => ({ type, rpcId, headerSize, hasLen: blobs.length > 0, fixed, blobs, blobLenOffsets })

/** docs/protocol.md §3, row by row. */
export const LAYOUTS: readonly Layout[] = [
  layout('version_info', 310, 16, [['major', 'u32', 4], ['minor', 'u32', 8], ['patch', 'u32', 12]]),
  layout('connect', 548, 5, [['collectorType', 'u8', 4]], ['hostname']),
  layout(
    'pod_new_with_name',
    515,
    20,
    [['ip', 'ipv4', 4], ['ownerKind', 'u8', 18], ['isHostNetwork', 'bool8', 19]],
    ['uid', 'ownerName', 'podName', 'ownerUid', 'ns', 'version'],
    [8, 10, 12, 14, 16],
  ),
  layout('pod_container', 494, 10, [], ['uid', 'containerId', 'containerName', 'containerImage'], [4, 6, 8]),
  layout('pod_delete', 359, 4, [], ['uid']),
  layout('pod_resync', 390, 16, [['resyncCount', 'u64', 8]]),
  layout('heartbeat', 392, 2, []),
  layout('metadata_complete', 356, 16, [['time', 'u64', 8]]),
  layout('report_cpu_cores', 536, 8, [['cpuCoreCount', 'u32', 4]]),
  layout('set_config_label', 416, 6, [], ['key', 'value'], [4]),
  layout('set_node_info', 415, 10, [], ['az', 'role', 'instanceId', 'instanceType'], [4, 6, 8]),
  layout('cloud_platform', 413, 4, [['cloudPlatform', 'u16', 2]]),
  layout('collector_health', 496, 6, [['status', 'u16', 2], ['detail', 'u16', 4]]),
]

export const LAYOUT_BY_TYPE: ReadonlyMap<IngestMessageType, Layout> = new Map(LAYOUTS.map((l) => [l.type, l]))
export const LAYOUT_BY_RPC: ReadonlyMap<number, Layout> = new Map(LAYOUTS.map((l) => [l.rpcId, l]))

/** Bytes of the timestamp that precedes every message. */
export const TIMESTAMP_BYTES = 8
/** docs/protocol.md §1.3: a message including its timestamp must fit the reducer's 64 KiB buffer. */
export const MAX_MESSAGE_BYTES = 65_536
/** Largest `_len` (everything after the timestamp) that keeps the message within MAX_MESSAGE_BYTES. */
export const MAX_LEN = MAX_MESSAGE_BYTES - TIMESTAMP_BYTES

/** Reads a message property generically (the layout names it). */
export const field = (msg: IngestMessage, name: string): unknown => (msg as unknown as Record<string, unknown>)[name]
