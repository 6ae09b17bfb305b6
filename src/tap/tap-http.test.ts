// The tap's HTTP API over real HTTP: a docs/protocol.md §6 session gives the expected /state, /events
// pages through the log, and --out holds the same records as JSON lines.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeMessage, type IngestMessage } from '../ingest/index.ts'
import { logger } from '../observe/log.ts'
import { SESSION, TS, VERSION, createCollectorStream } from '../../e2e/harness/tap-fixtures.ts'
import { getJson, rawClient, until, type RawClient } from '../../e2e/harness/net.ts'
import { startTap, type Tap } from './start.ts'

const dir = mkdtempSync(join(tmpdir(), 'tap-http-'))
const outFile = join(dir, 'out.jsonl')
let tap: Tap
let client: RawClient
const stream = createCollectorStream()

// The session in two parts: epoch 1 up to the first heartbeat round, then epoch 2.
const cut = SESSION.findIndex((m) => m.type === 'pod_resync' && m.resyncCount === 2n)
const part1 = SESSION.slice(0, cut)
const part2 = SESSION.slice(cut)
const wireSize = (msgs: readonly IngestMessage[]): number => msgs.reduce((n, m) => n + encodeMessage(m, TS).length, 0)

beforeAll(async () => {
  logger.level = -999
  tap = await startTap({ listen: { host: '127.0.0.1', port: 0 }, http: { host: '127.0.0.1', port: 0 }, out: outFile })
  client = await rawClient(tap.tcpPort)
})
afterAll(async () => {
  client.destroy()
  await tap.close()
  rmSync(dir, { recursive: true, force: true })
})

const connState = async (): Promise<any> => (await getJson(tap.httpPort!, '/state')).body.connections[0]

describe('GET /state after a docs/protocol.md §6 session', () => {
  it('shows the handshake, epoch 1 with de-duplicated containers, deletes and ignored messages', async () => {
    const bytes = [stream.first(VERSION), stream.send(part1)]
    for (const b of bytes) await client.write(b)
    await until(() => (tap.state().totals.messages === 1 + part1.length ? true : undefined), 'part 1')
    const conn = await connState()
    expect(conn).toEqual({
      id: 1,
      remote: `127.0.0.1:${client.localPort}`,
      open: true,
      openedAt: expect.any(String),
      lastDataAt: expect.any(String),
      version: '0.11.0',
      hostname: 'kc-host',
      agent: {
        collectorType: 3,
        cpuCores: 8,
        labels: { cluster: 'prod' },
        cloudPlatform: { code: 0, name: 'unknown' },
        nodeInfo: { az: '', role: '', instanceId: 'kc-host', instanceType: '' },
        health: { status: 0, name: 'healthy', detail: 0 },
        metadataComplete: { time: 0, receivedAt: expect.any(String) },
      },
      epochs: [1],
      counters: {
        messages: 19,
        byType: {
          version_info: 1,
          connect: 1,
          report_cpu_cores: 1,
          set_config_label: 1,
          cloud_platform: 1,
          set_node_info: 1,
          metadata_complete: 1,
          pod_resync: 1,
          pod_new_with_name: 3,
          pod_container: 4,
          pod_delete: 2,
          heartbeat: 1,
          collector_health: 1,
        },
        bytesReceived: bytes[0]!.length + bytes[1]!.length,
        bytesRaw: wireSize([VERSION, ...part1]),
        bytesCompressed: bytes[1]!.length,
        ignored: 2, // the container of u-ghost, the delete of u-never
      },
      pods: [
        {
          uid: 'u-web',
          ns: 'default',
          podName: 'web-7d9f-abcde',
          ip: '10.244.1.5',
          ownerKind: 1,
          ownerKindName: 'Deployment',
          ownerUid: 'd-web',
          ownerName: 'web',
          isHostNetwork: false,
          version: "'nginx:1.25'",
          // docker://aaaa has the same stripped id as containerd://aaaa: the first report wins.
          containers: [{ id: 'containerd://aaaa', key: 'aaaa', name: 'nginx', image: 'nginx:1.25' }],
        },
        {
          uid: 'u-node',
          ns: 'kube-system',
          podName: 'node-agent',
          ip: '10.0.0.2',
          ownerKind: 254,
          ownerKindName: 'NoOwner',
          ownerUid: '',
          ownerName: 'node-agent',
          isHostNetwork: true,
          version: "'agent:1'",
          containers: [{ id: 'containerd://bbbb', key: 'bbbb', name: 'agent', image: 'agent:1' }],
        },
      ],
    })
  })

  it('clears the pods on pod_resync and keeps only what epoch 2 announced', async () => {
    await client.write(stream.send(part2))
    await until(() => (tap.state().totals.messages === 1 + SESSION.length ? true : undefined), 'part 2')
    const { body } = await getJson(tap.httpPort!, '/state')
    expect(body.totals).toEqual({ open: 1, closed: 0, messages: 1 + SESSION.length, pods: 1 })
    const conn = body.connections[0]
    expect(conn.epochs).toEqual([1, 2])
    expect(conn.pods.map((p: any) => [p.uid, p.containers.map((c: any) => c.key)])).toEqual([['u-web', ['aaaa', 'dddd']]])
  })
})

describe('GET /events', () => {
  it('pages through the decoded log by sequence number', async () => {
    const all: any[] = []
    let since = 0
    for (;;) {
      const { status, body } = await getJson(tap.httpPort!, `/events?since=${since}&limit=7`)
      expect(status).toBe(200)
      if (body.events.length === 0) break
      expect(body.events.length).toBeLessThanOrEqual(7)
      all.push(...body.events)
      since = body.next
    }
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1))
    expect(all.map((e) => e.type)).toEqual(['connection_open', 'version_info', ...SESSION.map((m) => m.type)])
    expect(all[1]).toEqual({
      seq: 2,
      conn: 1,
      type: 'version_info',
      timestamp: '1700000000123456789',
      time: '2023-11-14T22:13:20.123Z',
      receivedAt: expect.any(String),
      size: 24,
      fields: { major: 0, minor: 11, patch: 0 },
    })
    const pod = all.find((e) => e.type === 'pod_new_with_name')
    expect(pod.fields).toEqual({
      uid: 'u-web',
      ip: '10.244.1.5',
      ownerName: 'web',
      podName: 'web-7d9f-abcde',
      ownerKind: 1,
      ownerUid: 'd-web',
      isHostNetwork: false,
      ns: 'default',
      version: "'nginx:1.25'",
    })
    const containers = all.filter((e) => e.type === 'pod_container')
    expect(containers.map((e) => [e.pod ?? null, e.ignored ?? e.duplicate ?? null])).toEqual([
      ['default/web-7d9f-abcde', null],
      ['default/web-7d9f-abcde', true], // docker://aaaa after containerd://aaaa: duplicate
      ['kube-system/node-agent', null],
      [null, true], // u-ghost: ignored
      ['default/web-7d9f-abcde', null],
      ['default/web-7d9f-abcde', null],
    ])
    expect(containers[1].duplicate).toBe(true)
    expect(containers[3].ignored).toBe(true)
    expect(all.filter((e) => e.type === 'pod_resync').map((e) => [e.fields.resyncCount, e.podsCleared])).toEqual([
      [1, 0],
      [2, 2],
    ])
  })

  it('filters by type and connection, and reports where the log stands', async () => {
    const { body } = await getJson(tap.httpPort!, '/events?type=pod_delete,pod_resync&conn=1')
    expect(body.events.map((e: any) => e.type)).toEqual(['pod_resync', 'pod_delete', 'pod_delete', 'pod_resync'])
    expect(body.events[1]).toMatchObject({ pod: 'batch/nightly-123-xyz' })
    expect(body.events[2]).toMatchObject({ ignored: true, fields: { uid: 'u-never' } })
    expect(body).toMatchObject({ first: 1, last: 2 + SESSION.length, next: 2 + SESSION.length, missed: 0 })
    expect((await getJson(tap.httpPort!, '/events?conn=2')).body.events).toEqual([])
  })

  it('long-polls with wait=ms until a record arrives', async () => {
    const last = tap.events().last
    const polling = getJson(tap.httpPort!, `/events?since=${last}&wait=10000`)
    await new Promise((r) => setTimeout(r, 50))
    await client.write(stream.send([{ type: 'heartbeat' }]))
    const { body } = await polling
    expect(body.events.map((e: any) => [e.seq, e.type])).toEqual([[last + 1, 'heartbeat']])
  })

  it('answers bad requests with a JSON error', async () => {
    expect(await getJson(tap.httpPort!, '/events?since=abc')).toEqual({ status: 400, body: { error: 'since="abc" is not a whole number' } })
    expect((await getJson(tap.httpPort!, '/nope')).status).toBe(404)
    expect((await getJson(tap.httpPort!, '/state', { method: 'POST' })).status).toBe(405)
    expect(await getJson(tap.httpPort!, '/healthz')).toEqual({ status: 200, body: { status: 'ok', open: 1, closed: 0 } })
  })
})

describe('--out', () => {
  it('holds every record as a JSON line, the same as /events', async () => {
    client.destroy()
    await until(() => (tap.state().totals.closed === 1 ? true : undefined), 'the close')
    await tap.close()
    const lines = readFileSync(outFile, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
    expect(lines).toEqual(tap.events(0, 100_000).events)
    expect(lines.at(-1)).toMatchObject({ type: 'connection_close', reason: { kind: 'peerClosed' } })
  })
})
