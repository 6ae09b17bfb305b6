// Test fixtures of the tap's suites (not part of the public surface): collector byte streams built
// with the real ingest encoder and LZ4 frame writer, and the docs/protocol.md §6 session.
import { createLz4FrameWriter, createMessageWriter, encodeMessage, type IngestMessage } from '../../src/ingest/index.ts'

/** docs/protocol.md §5's timestamp; message i of a fixture carries `TS + i`. */
export const TS = 1700000000123456789n

/** A collector's byte stream, built step by step: the raw first message, then one endless LZ4 frame. */
export interface CollectorStream {
  /** The first message, raw (docs/protocol.md §1.2). */
  first(msg: IngestMessage): Uint8Array
  /** Messages as one block of the current frame (starting a frame when needed). */
  send(messages: readonly IngestMessage[]): Uint8Array
  /** Already encoded bytes as one block (for hand-made or cut messages). */
  sendEncoded(bytes: Uint8Array): Uint8Array
  /** Ends the current frame (EndMark); the next `send` starts a new one. */
  endFrame(): Uint8Array
}

export function createCollectorStream(): CollectorStream {
  const frame = createLz4FrameWriter()
  let n = 0n
  return {
    first: (msg) => encodeMessage(msg, TS + n++),
    send(messages) {
      const writer = createMessageWriter()
      for (const m of messages) writer.write(m, TS + n++)
      return frame.write(writer.take())
    },
    sendEncoded: (bytes) => frame.write(bytes),
    endFrame: () => frame.end(),
  }
}

/** The bytes a collector sends: `first` raw, then `rest` as one block of an LZ4 frame left open. */
export function collectorBytes(first: IngestMessage, rest: readonly IngestMessage[] = []): Uint8Array {
  const stream = createCollectorStream()
  const head = stream.first(first)
  if (rest.length === 0) return head
  const body = stream.send(rest)
  const out = new Uint8Array(head.length + body.length)
  out.set(head)
  out.set(body, head.length)
  return out
}

export const VERSION: IngestMessage = { type: 'version_info', major: 0, minor: 11, patch: 0 }
export const CONNECT: IngestMessage = { type: 'connect', collectorType: 3, hostname: 'kc-host' }

/** docs/protocol.md §6 after `version_info`: the handshake, with one label. */
export const HANDSHAKE: readonly IngestMessage[] = [
  CONNECT,
  { type: 'report_cpu_cores', cpuCoreCount: 8 },
  { type: 'set_config_label', key: 'cluster', value: 'prod' },
  { type: 'cloud_platform', cloudPlatform: 0 },
  { type: 'set_node_info', az: '', role: '', instanceId: 'kc-host', instanceType: '' },
  { type: 'metadata_complete', time: 0n },
]

export const podNew = (
  uid: string,
  ns: string,
  podName: string,
  ip: number,
  owner: { kind: number; uid: string; name: string },
  version: string,
  isHostNetwork = false,
): IngestMessage => ({
  type: 'pod_new_with_name',
  uid,
  ip,
  ownerName: owner.name,
  podName,
  ownerKind: owner.kind,
  ownerUid: owner.uid,
  isHostNetwork,
  ns,
  version,
})

export const container = (uid: string, containerId: string, containerName: string, containerImage: string): IngestMessage => ({
  type: 'pod_container',
  uid,
  containerId,
  containerName,
  containerImage,
})

/**
 * A whole docs/protocol.md §6 session after `version_info`: handshake, epoch 1 with three pods (one
 * container reported twice under two schemes, one container for an unknown pod), a delete, a
 * heartbeat round, then epoch 2 re-announcing one pod.
 */
export const SESSION: readonly IngestMessage[] = [
  ...HANDSHAKE,
  { type: 'pod_resync', resyncCount: 1n },
  podNew('u-web', 'default', 'web-7d9f-abcde', 0x0af40105, { kind: 1, uid: 'd-web', name: 'web' }, "'nginx:1.25'"),
  container('u-web', 'containerd://aaaa', 'nginx', 'nginx:1.25'),
  container('u-web', 'docker://aaaa', 'nginx-again', 'nginx:1.26'),
  podNew('u-node', 'kube-system', 'node-agent', 0x0a000002, { kind: 254, uid: '', name: 'node-agent' }, "'agent:1'", true),
  container('u-node', 'containerd://bbbb', 'agent', 'agent:1'),
  podNew('u-job', 'batch', 'nightly-123-xyz', 0, { kind: 3, uid: 'cj-1', name: 'nightly' }, "'busybox','job:2'"),
  container('u-ghost', 'containerd://cccc', 'ghost', 'ghost:1'),
  { type: 'pod_delete', uid: 'u-job' },
  { type: 'pod_delete', uid: 'u-never' },
  { type: 'heartbeat' },
  { type: 'collector_health', status: 0, detail: 0 },
  { type: 'pod_resync', resyncCount: 2n },
  podNew('u-web', 'default', 'web-7d9f-abcde', 0x0af40105, { kind: 1, uid: 'd-web', name: 'web' }, "'nginx:1.25'"),
  container('u-web', 'containerd://aaaa', 'nginx', 'nginx:1.25'),
  container('u-web', 'containerd://dddd', 'sidecar', 'envoy:1'),
]
