// The human line of every record type, and what a hostile collector cannot do to a terminal.
import { describe, expect, it } from 'vitest'
import type { IngestMessage } from '../ingest/index.ts'
import { TS, container, podNew } from '../../e2e/harness/tap-fixtures.ts'
import { formatRecord, isKeepAlive, printable } from './format.ts'
import { closeRecord, messageRecord, openRecord, type MessageContext } from './record.ts'

const line = (msg: IngestMessage, context: MessageContext = {}, color = false): string =>
  formatRecord(messageRecord(1, 3, { ...msg, timestamp: TS }, 10, '1970-01-01T00:00:00.000Z', context), { color })

describe('formatRecord', () => {
  it.each<[IngestMessage, MessageContext, string]>([
    [podNew('u', 'default', 'web-7d9f-abcde', 0x0af40105, { kind: 1, uid: 'd', name: 'web' }, "'nginx:1.25'"), {}, "#3 pod_new_with_name default/web-7d9f-abcde 10.244.1.5 owner=Deployment/web version='nginx:1.25'"],
    [podNew('u', 'kube-system', 'agent', 0, { kind: 254, uid: '', name: 'agent' }, '', true), {}, '#3 pod_new_with_name kube-system/agent no-ipv4 owner=none hostNetwork version=""'],
    [podNew('u', 'db', 'pg-0', 0x0a000001, { kind: 255, uid: 's', name: 'pg' }, "'pg:16'"), {}, "#3 pod_new_with_name db/pg-0 10.0.0.1 owner=Other/pg version='pg:16'"],
    [container('u', 'containerd://0123456789abcdef0123', 'nginx', 'nginx:1.25'), { pod: 'default/web' }, '#3 pod_container default/web nginx containerd://0123456789ab nginx:1.25'],
    [container('u-x', 'containerd://01', 'c', 'i'), { ignored: true }, '#3 pod_container uid=u-x c containerd://01 i (ignored: unknown pod)'],
    [{ type: 'pod_delete', uid: 'u' }, { pod: 'default/web' }, '#3 pod_delete default/web'],
    [{ type: 'pod_resync', resyncCount: 4n }, { podsCleared: 12 }, '#3 pod_resync epoch=4 (cleared 12 pods)'],
    [{ type: 'pod_resync', resyncCount: 1n }, { podsCleared: 0 }, '#3 pod_resync epoch=1'],
    [{ type: 'version_info', major: 0, minor: 11, patch: 0 }, {}, '#3 version_info 0.11.0'],
    [{ type: 'connect', collectorType: 3, hostname: 'kc-host' }, {}, '#3 connect kc-host collector_type=3'],
    [{ type: 'heartbeat' }, {}, '#3 heartbeat'],
    [{ type: 'collector_health', status: 1, detail: 7 }, {}, '#3 collector_health unknown detail=7'],
    [{ type: 'report_cpu_cores', cpuCoreCount: 8 }, {}, '#3 report_cpu_cores 8'],
    [{ type: 'set_config_label', key: 'cluster', value: 'prod eu' }, {}, '#3 set_config_label cluster="prod eu"'],
    [{ type: 'set_node_info', az: '', role: '', instanceId: 'kc', instanceType: '' }, {}, '#3 set_node_info instanceId=kc'],
    [{ type: 'set_node_info', az: 'eu-1a', role: '', instanceId: '', instanceType: 'm5' }, {}, '#3 set_node_info az=eu-1a instanceType=m5'],
    [container('u', 'docker://01', 'c', 'i'), { pod: 'a/b', duplicate: true }, '#3 pod_container a/b c docker://01 i (duplicate id: first report kept)'],
    [{ type: 'cloud_platform', cloudPlatform: 1 }, {}, '#3 cloud_platform aws'],
    [{ type: 'metadata_complete', time: 0n }, {}, '#3 metadata_complete time=0'],
  ])('formats message %#', (msg, context, expected) => {
    expect(line(msg, context)).toBe(expected)
  })

  it('prints connection records', () => {
    expect(formatRecord(openRecord(1, 2, '10.1.2.3:5555', 0))).toBe('#2 connection_open 10.1.2.3:5555')
    expect(formatRecord(closeRecord(9, 2, { kind: 'unknownRpc', rpcId: 999 }, 0))).toBe('#2 connection_close unknown rpc_id 999')
  })

  it('never lets message text reach the terminal raw', () => {
    const evil = podNew('u', 'ns\x1b[2J', 'a\nb', 1, { kind: 1, uid: 'd', name: 'x\u009b31m' }, 'v')
    const text = line(evil)
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(text).toBe('#3 pod_new_with_name "ns\\u001b[2J"/"a\\nb" 0.0.0.1 owner=Deployment/"x\\u009b31m" version=v')
    expect(printable('plain-text')).toBe('plain-text')
  })

  it('colours only when asked', () => {
    expect(line({ type: 'heartbeat' }, {}, true)).toBe('\x1b[2m#3\x1b[22m \x1b[1mheartbeat\x1b[22m')
  })

  it('classes heartbeats and healthy collector_health as keep-alive traffic', () => {
    const rec = (msg: IngestMessage) => messageRecord(1, 1, { ...msg, timestamp: TS }, 10, '1970-01-01T00:00:00.000Z', {})
    expect(isKeepAlive(rec({ type: 'heartbeat' }))).toBe(true)
    expect(isKeepAlive(rec({ type: 'collector_health', status: 0, detail: 0 }))).toBe(true)
    expect(isKeepAlive(rec({ type: 'collector_health', status: 1, detail: 0 }))).toBe(false)
    expect(isKeepAlive(rec({ type: 'pod_delete', uid: 'u' }))).toBe(false)
  })
})
