// Pods as Kubernetes protobuf (the default; `protobuf: false` turns it off), as kube-apiserver v1.37.2 answers a client that
// asks for `application/vnd.kubernetes.protobuf` first (docs/kube-api.md "Protobuf responses"): a
// LIST page as `k8s\0` + Unknown{PodList}, a streaming list and a watch as length-prefixed
// WatchEvent frames. Each pod read back by the request-body decoder (protobuf.ts, checked against
// kubectl's golden bodies) equals the JSON the same request gets, in the fields the table covers.
import https from 'node:https'
import { describe, expect, it } from 'vitest'
import { decodeKubeProtobuf } from './http/protobuf.ts'
import { useSimulator } from './test-client.ts'

const t = useSimulator({ nodes: 2, controllers: false }, 'sim-pb-')
const off = useSimulator({ nodes: 1, controllers: false, protobuf: false }, 'sim-pb-off-')
const PROTOBUF_FIRST = 'application/vnd.kubernetes.protobuf, application/json'

function get(path: string, accept: string, sim = t.sim): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, sim.url), { headers: { Authorization: `Bearer ${sim.token}`, Accept: accept }, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** The length-delimited fields of `b[s, e)` as [number, start, end] (varints skipped). */
function fields(b: Buffer, s = 0, e = b.length): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = []
  let p = s
  const varint = () => {
    let x = 0
    for (let m = 1; ; m *= 128) {
      const c = b[p++]!
      x += (c & 127) * m
      if (c < 128) return x
    }
  }
  while (p < e) {
    const key = varint()
    if ((key & 7) === 2) {
      const n = varint()
      out.push([key >> 3, p, p + n])
      p += n
    } else if ((key & 7) === 0) varint()
    else throw new Error(`wire type ${key & 7}`)
  }
  return out
}
const field = (b: Buffer, f: Array<[number, number, number]>, n: number) => f.filter((x) => x[0] === n).map(([, s, e]) => b.subarray(s, e))
const text = (b: Buffer | undefined) => b?.toString('utf8') ?? ''

/** The collector's fields of a pod in JSON form. */
const essentials = (p: any) => ({
  name: p.metadata.name, namespace: p.metadata.namespace, uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion,
  podIP: p.status?.podIP, podIPs: p.status?.podIPs, hostNetwork: p.spec?.hostNetwork,
  containers: (p.status?.containerStatuses ?? []).map((c: any) => [c.name, c.image, c.containerID]),
})

describe('the simulator answers pods as protobuf to a client that asks for it first', () => {
  it('LIST pages: k8s\\0 + Unknown{v1 PodList}, its ListMeta and items equal to the JSON page', async () => {
    t.sim.bulk.createPods(5, { namespace: 'pb', containers: 2 })
    const pb = await get('/api/v1/namespaces/pb/pods?limit=3', PROTOBUF_FIRST)
    expect(pb.status).toBe(200)
    expect(pb.type).toBe('application/vnd.kubernetes.protobuf')
    expect([...pb.body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0])
    const unknown = fields(pb.body, 4)
    const typeMeta = field(pb.body, unknown, 1)[0]!
    const tm = fields(typeMeta)
    expect([text(field(typeMeta, tm, 1)[0]), text(field(typeMeta, tm, 2)[0])]).toEqual(['v1', 'PodList'])
    const list = field(pb.body, unknown, 2)[0]!
    const lf = fields(list)
    const listMeta = field(list, lf, 1)[0]!
    const lm = fields(listMeta)
    const items = field(list, lf, 2)

    const json = JSON.parse((await get('/api/v1/namespaces/pb/pods?limit=3', 'application/json')).body.toString())
    expect(text(field(listMeta, lm, 2)[0])).toBe(json.metadata.resourceVersion)
    expect(text(field(listMeta, lm, 3)[0])).not.toBe('')
    expect(items).toHaveLength(3)
    // Each item is a Pod message: wrapped in an envelope, the request decoder reads it.
    const read = items.map((item) => decodeKubeProtobuf(Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), envelopeOf('v1', 'Pod', item)])))
    expect(read.map(essentials)).toEqual(json.items.map(essentials))
    expect(read[0]!.status).toMatchObject({ phase: 'Running' })
  })

  it('a streaming list: length-prefixed WatchEvent frames, ADDED for each pod, then the end bookmark', async () => {
    const res = await get('/api/v1/namespaces/pb/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1', PROTOBUF_FIRST)
    expect(res.type).toBe('application/vnd.kubernetes.protobuf;stream=watch')
    const events: Array<{ type: string; object: any }> = []
    for (let at = 0; at < res.body.length; ) {
      const n = res.body.readUInt32BE(at)
      const ev = res.body.subarray(at + 4, at + 4 + n)
      at += 4 + n
      const f = fields(ev)
      const rawExt = field(ev, f, 2)[0]!
      events.push({ type: text(field(ev, f, 1)[0]), object: decodeKubeProtobuf(field(rawExt, fields(rawExt), 1)[0]!) })
    }
    const json = JSON.parse((await get('/api/v1/namespaces/pb/pods', 'application/json')).body.toString())
    expect(events.filter((e) => e.type === 'ADDED').map((e) => essentials(e.object))).toEqual(json.items.map(essentials))
    const end = events.find((e) => e.type === 'BOOKMARK')!
    expect(end.object.metadata).toEqual({ resourceVersion: json.metadata.resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } })
  })

  it('JSON for a client that asks for JSON first, and for every other kind', async () => {
    for (const [path, accept] of [
      ['/api/v1/namespaces/pb/pods', 'application/json, application/vnd.kubernetes.protobuf'],
      ['/apis/apps/v1/replicasets', PROTOBUF_FIRST],
      ['/api/v1/namespaces', PROTOBUF_FIRST],
    ]) {
      const res = await get(path!, accept!)
      expect([path, res.status, res.type]).toEqual([path, 200, 'application/json'])
    }
    // protobuf: false answers pods as JSON too.
    off.sim.bulk.createPods(2, { namespace: 'off' })
    const res = await get('/api/v1/namespaces/off/pods', PROTOBUF_FIRST, off.sim)
    expect([res.status, res.type, JSON.parse(res.body.toString()).items.length]).toEqual([200, 'application/json', 2])
  })
})

/** runtime.Unknown{typeMeta{apiVersion, kind}, raw} (without the magic). */
function envelopeOf(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const len = (n: number) => {
    const out: number[] = []
    for (; n >= 128; n = Math.floor(n / 128)) out.push((n & 127) | 128)
    out.push(n)
    return Buffer.from(out)
  }
  const bytesField = (f: number, b: Buffer) => Buffer.concat([Buffer.from([(f << 3) | 2]), len(b.length), b])
  const typeMeta = Buffer.concat([bytesField(1, Buffer.from(apiVersion)), bytesField(2, Buffer.from(kind))])
  return Buffer.concat([bytesField(1, typeMeta), bytesField(2, raw)])
}
