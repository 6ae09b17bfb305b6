// docs/protocol.md §5: every golden vector, read from the document itself, checked byte for byte both ways.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createMessageDecoder, encodeMessage, type IngestMessage } from './index.ts'
import { LAYOUTS } from './layout.ts'

/** The message each vector of docs/protocol.md §5 encodes, by the vector's name there. */
const MESSAGES: Readonly<Record<string, IngestMessage>> = {
  pod_new_with_name: { type: 'pod_new_with_name', uid: 'abc', ip: 0x0a000001, ownerName: 'dep', podName: 'pod-1', ownerKind: 1, ownerUid: 'd1', isHostNetwork: false, ns: 'default', version: "'img:1'" },
  'pod_new_with_name/no-owner': { type: 'pod_new_with_name', uid: 'abc', ip: 0x0a000001, ownerName: 'pod-1', podName: 'pod-1', ownerKind: 254, ownerUid: '', isHostNetwork: true, ns: 'default', version: '' },
  pod_container: { type: 'pod_container', uid: 'abc', containerId: 'containerd://0123', containerName: 'c', containerImage: 'img:1' },
  pod_delete: { type: 'pod_delete', uid: 'abc' },
  pod_resync: { type: 'pod_resync', resyncCount: 1n },
  version_info: { type: 'version_info', major: 0, minor: 11, patch: 0 },
  connect: { type: 'connect', collectorType: 3, hostname: 'kc-host' },
  heartbeat: { type: 'heartbeat' },
  metadata_complete: { type: 'metadata_complete', time: 0n },
  report_cpu_cores: { type: 'report_cpu_cores', cpuCoreCount: 8 },
  cloud_platform: { type: 'cloud_platform', cloudPlatform: 0 },
  collector_health: { type: 'collector_health', status: 0, detail: 0 },
  set_node_info: { type: 'set_node_info', az: '', role: '', instanceId: 'kc-host', instanceType: '' },
  set_config_label: { type: 'set_config_label', key: 'k', value: 'vv' },
}

interface GoldenSection {
  readonly timestamp: bigint
  /** The timestamp's bytes as the document writes them. */
  readonly timestampBytes: Uint8Array
  readonly vectors: ReadonlyMap<string, Uint8Array>
}

const toHex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ')

/** Two-digit hex numbers separated by white space, nothing else. */
function hexBytes(text: string, where: string): Uint8Array {
  const tokens = text.trim().split(/\s+/)
  for (const t of tokens) if (!/^[0-9a-f]{2}$/.test(t)) throw new Error(`${where}: "${t}" is not a two-digit lower-case hex byte`)
  return new Uint8Array(tokens.map((t) => parseInt(t, 16)))
}

/**
 * Reads §5 of docs/protocol.md: the timestamp line and every fenced block opened by ```` ```hex NAME ````.
 * Strict, so that a malformed document fails here instead of losing a vector: any other fence in
 * the section, a missing or repeated name, or a non-hex token is an error.
 */
function readGoldenSection(markdown: string): GoldenSection {
  const lines = markdown.split('\n')
  const start = lines.findIndex((l) => l.startsWith('## 5. '))
  if (start < 0) throw new Error('docs/protocol.md has no "## 5. " section')
  let end = lines.findIndex((l, i) => i > start && l.startsWith('## '))
  if (end < 0) end = lines.length
  const section = lines.slice(start, end)

  const stamp = section.join('\n').match(/^Timestamp of every vector: `(\d+)` ns, which is `([0-9a-f ]+)`\.$/m)
  if (!stamp) throw new Error('docs/protocol.md §5: no "Timestamp of every vector: `N` ns, which is `…`." line')

  const vectors = new Map<string, Uint8Array>()
  for (let i = 0; i < section.length; i++) {
    const line = section[i]!
    if (!line.startsWith('```')) continue
    const open = line.match(/^```hex ([a-z_]+(?:\/[a-z-]+)?)$/)
    if (!open) throw new Error(`docs/protocol.md §5: a fence that is not \`\`\`hex NAME: ${line}`)
    const name = open[1]!
    const close = section.indexOf('```', i + 1)
    if (close < 0) throw new Error(`docs/protocol.md §5: vector ${name} is not closed`)
    if (vectors.has(name)) throw new Error(`docs/protocol.md §5: vector ${name} appears twice`)
    vectors.set(name, hexBytes(section.slice(i + 1, close).join('\n'), `docs/protocol.md §5, vector ${name}`))
    i = close
  }
  return { timestamp: BigInt(stamp[1]!), timestampBytes: hexBytes(stamp[2]!, 'docs/protocol.md §5, timestamp'), vectors }
}

const golden = readGoldenSection(readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8'))
const names = [...golden.vectors.keys()]
const bytesOf = (name: string): Uint8Array => golden.vectors.get(name)!
const messageOf = (name: string): IngestMessage => {
  const msg = MESSAGES[name]
  if (!msg) throw new Error(`docs/protocol.md §5 has a vector "${name}" this test does not know`)
  return msg
}

describe('golden vectors (docs/protocol.md §5)', () => {
  it('the document has exactly the vectors this test knows', () => {
    expect([...names].sort()).toEqual(Object.keys(MESSAGES).sort())
  })

  it("the document's timestamp and its bytes agree (u64 little-endian)", () => {
    const le = new Uint8Array(8)
    new DataView(le.buffer).setBigUint64(0, golden.timestamp, true)
    expect(toHex(golden.timestampBytes)).toBe(toHex(le))
  })

  it.each(names)('%s encodes byte for byte', (name) => {
    expect(toHex(encodeMessage(messageOf(name), golden.timestamp))).toBe(toHex(bytesOf(name)))
  })

  it.each(names)('%s decodes back to the same message', (name) => {
    const decoder = createMessageDecoder()
    expect(decoder.push(bytesOf(name))).toEqual([{ ...messageOf(name), timestamp: golden.timestamp }])
    expect(decoder.buffered).toBe(0)
  })

  it('covers every message type of docs/protocol.md §3', () => {
    const covered = new Set(names.map((n) => messageOf(n).type))
    expect([...covered].sort()).toEqual(LAYOUTS.map((l) => l.type).sort())
  })
})
