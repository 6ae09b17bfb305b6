// docs/protocol.md §5: every golden vector, byte for byte, both directions.
import { describe, expect, it } from 'vitest'
import { createMessageDecoder, encodeMessage, type IngestMessage } from './index.ts'

const TS = 1700000000123456789n
const hex = (s: string): Uint8Array => new Uint8Array(s.trim().split(/\s+/).map((b) => parseInt(b, 16)))
const toHex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ')

const vectors: Array<[string, IngestMessage, string]> = [
  [
    'pod_new_with_name',
    { type: 'pod_new_with_name', uid: 'abc', ip: 0x0a000001, ownerName: 'dep', podName: 'pod-1', ownerKind: 1, ownerUid: 'd1', isHostNetwork: false, ns: 'default', version: "'img:1'" },
    `15 cd 85 3d fe 9c 97 17 03 02 2f 00 0a 00 00 01 03 00 03 00 05 00 02 00 07 00 01 00
     61 62 63 64 65 70 70 6f 64 2d 31 64 31 64 65 66 61 75 6c 74 27 69 6d 67 3a 31 27`,
  ],
  [
    'pod_new_with_name (NoOwner)',
    { type: 'pod_new_with_name', uid: 'abc', ip: 0x0a000001, ownerName: 'pod-1', podName: 'pod-1', ownerKind: 254, ownerUid: '', isHostNetwork: true, ns: 'default', version: '' },
    `15 cd 85 3d fe 9c 97 17 03 02 28 00 0a 00 00 01 03 00 05 00 05 00 00 00 07 00 fe 01
     61 62 63 70 6f 64 2d 31 70 6f 64 2d 31 64 65 66 61 75 6c 74`,
  ],
  ['pod_resync', { type: 'pod_resync', resyncCount: 1n }, '15 cd 85 3d fe 9c 97 17 86 01 00 00 00 00 00 00 01 00 00 00 00 00 00 00'],
  ['version_info', { type: 'version_info', major: 0, minor: 11, patch: 0 }, '15 cd 85 3d fe 9c 97 17 36 01 00 00 00 00 00 00 0b 00 00 00 00 00 00 00'],
  ['connect', { type: 'connect', collectorType: 3, hostname: 'kc-host' }, '15 cd 85 3d fe 9c 97 17 24 02 0c 00 03 6b 63 2d 68 6f 73 74'],
  ['heartbeat', { type: 'heartbeat' }, '15 cd 85 3d fe 9c 97 17 88 01'],
  [
    'pod_container',
    { type: 'pod_container', uid: 'abc', containerId: 'containerd://0123', containerName: 'c', containerImage: 'img:1' },
    `15 cd 85 3d fe 9c 97 17 ee 01 24 00 03 00 11 00 01 00 61 62 63
     63 6f 6e 74 61 69 6e 65 72 64 3a 2f 2f 30 31 32 33 63 69 6d 67 3a 31`,
  ],
  ['pod_delete', { type: 'pod_delete', uid: 'abc' }, '15 cd 85 3d fe 9c 97 17 67 01 07 00 61 62 63'],
  ['metadata_complete', { type: 'metadata_complete', time: 0n }, '15 cd 85 3d fe 9c 97 17 64 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00'],
  ['report_cpu_cores', { type: 'report_cpu_cores', cpuCoreCount: 8 }, '15 cd 85 3d fe 9c 97 17 18 02 00 00 08 00 00 00'],
  ['cloud_platform', { type: 'cloud_platform', cloudPlatform: 0 }, '15 cd 85 3d fe 9c 97 17 9d 01 00 00'],
  ['collector_health', { type: 'collector_health', status: 0, detail: 0 }, '15 cd 85 3d fe 9c 97 17 f0 01 00 00 00 00'],
  [
    'set_node_info',
    { type: 'set_node_info', az: '', role: '', instanceId: 'kc-host', instanceType: '' },
    '15 cd 85 3d fe 9c 97 17 9f 01 11 00 00 00 00 00 07 00 6b 63 2d 68 6f 73 74',
  ],
  ['set_config_label', { type: 'set_config_label', key: 'k', value: 'vv' }, '15 cd 85 3d fe 9c 97 17 a0 01 09 00 01 00 6b 76 76'],
]

describe('golden vectors (docs/protocol.md §5)', () => {
  it.each(vectors)('%s encodes byte for byte', (_name, msg, bytes) => {
    expect(toHex(encodeMessage(msg, TS))).toBe(toHex(hex(bytes)))
  })

  it.each(vectors)('%s decodes back to the same message', (_name, msg, bytes) => {
    const decoder = createMessageDecoder()
    expect(decoder.push(hex(bytes))).toEqual([{ ...msg, timestamp: TS }])
    expect(decoder.buffered).toBe(0)
  })

  it('covers every message type of docs/protocol.md §3', () => {
    expect(new Set(vectors.map(([, m]) => m.type)).size).toBe(13)
  })
})
