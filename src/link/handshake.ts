// The session opening the reducer expects (docs/protocol.md §6): version_info raw, then the agent
// metadata in LZ4.
import { K8S_COLLECTOR_TYPE, type IngestMessage, type VersionInfo } from '../ingest/index.ts'

export interface HandshakeInfo {
  /** `connect.hostname` and `set_node_info.instance_id` (docs/behaviour.md §7). */
  readonly hostname: string
  /** `set_config_label` pairs, sent in this order. */
  readonly labels: ReadonlyArray<readonly [string, string]>
  /** `report_cpu_cores`. */
  readonly cpuCores: number
  /** `version_info`; the reducer refuses anything below 0.9.0 (docs/protocol.md §1.4). */
  readonly version: { readonly major: number; readonly minor: number; readonly patch: number }
}

/** The first message of every connection, sent uncompressed. */
export function versionInfo(info: HandshakeInfo): VersionInfo {
  return { type: 'version_info', major: info.version.major, minor: info.version.minor, patch: info.version.patch }
}

/** The LZ4-framed messages after version_info, in docs/protocol.md §6's order, up to metadata_complete. */
export function handshakeMessages(info: HandshakeInfo): IngestMessage[] {
  return [
    { type: 'connect', collectorType: K8S_COLLECTOR_TYPE, hostname: info.hostname },
    { type: 'report_cpu_cores', cpuCoreCount: info.cpuCores },
    ...info.labels.map(([key, value]): IngestMessage => ({ type: 'set_config_label', key, value })),
    { type: 'cloud_platform', cloudPlatform: 0 },
    { type: 'set_node_info', az: '', role: '', instanceId: info.hostname, instanceType: '' },
    { type: 'metadata_complete', time: 0n },
  ]
}
