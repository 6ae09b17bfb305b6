// The pod scanner's entry points against the JSON.parse path: LIST pages (fetchListPage) and watch
// lines (openWatch) over memory responses split at every chunk boundary and over a real HTTPS
// socket; and scanner instances that share nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createModelContext } from '../model/context.ts'
import { podMetaOf } from '../model/convert.ts'
import { newOwnerRef } from '../model/records.ts'
import type { PodMeta } from '../model/types.ts'
import { cuts, listVia, watchVia } from '../../e2e/harness/memory-client.ts'
import { KubeDecodeError, KubeTransportError } from './errors.ts'
import { listBody, podObject, sendJson, startFakeApiServer, startWatchBody, type FakeApiServer } from '../../e2e/harness/fake-apiserver.ts'
import { bin, bytesOf } from '../../e2e/harness/json-text.ts'
import { podMetaFields } from '../../e2e/harness/match-fixtures.ts'
import { JsonScanError } from './json-skip.ts'
import { ByteLineFramer } from './lines.ts'
import { fetchListPage, type ListPage } from './list.ts'
import type { PodModel } from './pod-layout.ts'
import { createPodScanner, type ScannedLine } from './pod-scanner.ts'
import { podsResource, type ResourceSpec } from './resources.ts'
import { openWatch, type WatchItem } from './watch.ts'

const model = createModelContext()
const podSpec = podsResource(model)

const scanner = createPodScanner(model)

/** A meta as plain objects, every field of PodMeta as read. */
const plain = (m: PodMeta | undefined) => m && podMetaFields(m)

const textSpec: ResourceSpec<PodMeta> = { ...podSpec, scan: undefined }

const samplePods = [
  podObject({ name: 'é-pod-😀', uid: 'u1', rv: 3, ip: '10.0.0.1', images: ['nginx', 'busybox'], owner: { kind: 'ReplicaSet', name: 'rs', uid: 'r1' } }),
  { metadata: { name: 'no-uid', resourceVersion: '4' } },
  podObject({ name: 'b', uid: 'u2', rv: 5, ip: 'fd00::5', images: [] }),
]

describe('scanner.list and fetchListPage', () => {
  it('a page equals the JSON.parse path, split at every chunk boundary', async () => {
    const text = JSON.stringify(listBody('PodList', samplePods, 77, 'next-token'))
    const b = bytesOf(text)
    const want = await listVia(textSpec, [b])
    expect(want).toMatchObject({ resourceVersion: '77', continueToken: 'next-token', dropped: 1 })
    expect((want as ListPage<PodMeta>).items).toHaveLength(2)
    for (let cut = 0; cut <= b.length; cut++) expect(await listVia(podSpec, cuts(b, cut))).toStrictEqual(want)
    expect(await listVia(podSpec, cuts(b, ...Array.from({ length: b.length }, (_, i) => i)))).toStrictEqual(want)
  })

  it('many distinct and repeated interned values (the byte cache, with collisions) equal the reference', () => {
    const pods = Array.from({ length: 6000 }, (_, i) =>
      podObject({ name: `p${i}`, rv: i, namespace: `ns-${(i * 7) % 3001}`, images: [`img-${i % 2500}`, `img-${(i * 3) % 2500}`], owner: { kind: i % 2 ? 'ReplicaSet' : 'Job', name: `o-${i % 2100}`, uid: `u-${i % 2100}` } }),
    )
    const text = JSON.stringify(listBody('PodList', pods, 9))
    const want = (JSON.parse(text) as { items: unknown[] }).items.map((o) => podMetaOf(model, o, true))
    for (let pass = 0; pass < 2; pass++) expect(scanner.list(bytesOf(text), true).items).toStrictEqual(want)
  })

  it('list-level duplicates, escapes and mistypes as JSON.parse sees them', async () => {
    const bodies = [
      '{"items":[{"metadata":{"uid":"a"}}],"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"uid":"b"}},5,{}]}',
      '{"metadata":{"resourceVersion":"1","continue":7},"it\\u0065ms":[]}',
      '{"metadata":{"resourceVersion":"1"},"metadata":{"continue":"c"},"items":[]}',
      '{"metadata":[],"items":[]}',
      '{"metadata":{"resourceVersion":""},"items":[]}',
      '{"metadata":{"resourceVersion":"1"},"items":{}}',
      '{"metadata":{"resourceVersion":"1"},"items":null}',
      '{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"uid":"a"}}],"items":null}',
      '{"metadata":{"resourceVersion":"1"},"items":[]} x',
      '{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"uid":"\\z"}}]}',
      '[]',
      '7',
      'null',
      '',
    ]
    for (const body of bodies) {
      const want = await listVia(textSpec, [bytesOf(body)])
      expect(await listVia(podSpec, [bytesOf(body)]), body).toStrictEqual(want)
      if (!('error' in want)) expect(scanner.list(bytesOf(body), true).items).toStrictEqual(want.items)
    }
    // kube-apiserver's metadata-only LIST from etcd (no watch cache) answers an empty collection so.
    const empty = '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"286"},"items":null}'
    for (const spec of [podSpec, textSpec]) expect(await listVia(spec, [bytesOf(empty)])).toMatchObject({ items: [], resourceVersion: '286' })
    const before = podSpec.scan!.stats.fallbacks
    const bad = await listVia(podSpec, [bytesOf('{"items":[1,]}')])
    expect(bad).toMatchObject({ error: expect.stringMatching(/^KubeDecodeError: pods list: body is not JSON \(14 chars\)/) })
    expect(podSpec.scan!.stats.fallbacks).toBe(before)
  })
})

describe('scanner.watchLine and openWatch', () => {
  const lines = [
    JSON.stringify({ type: 'ADDED', object: samplePods[0] }),
    JSON.stringify({ object: samplePods[2], type: 'MODIFIED' }) + '\r',
    '',
    '\r',
    JSON.stringify({ type: 'DELETED', object: samplePods[1] }),
    '{"type":"DELETED","object":{"metadata":{"resourceVersion":"9"}},"type":"MOD\\u0049FIED"}',
    '{"type":"ADDED","object":[{"metadata":{"resourceVersion":"9"}}]}',
    '{"type":"ADDED"}',
    JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } } } }),
    JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } }),
  ]

  it('a body equals the text path (line text + JSON.parse), split at every chunk boundary, with a BOM', async () => {
    const b = bin([0xef, 0xbb, 0xbf], lines.join('\n') + '\n')
    const want = await watchVia(textSpec, [b])
    expect(want.map((i) => ('type' in i ? i.type : i.error))).toStrictEqual(['ADDED', 'MODIFIED', 'DELETED', 'MODIFIED', 'ADDED', 'ADDED', 'BOOKMARK', 'ERROR'])
    for (let cut = 0; cut <= b.length; cut++) expect(await watchVia(podSpec, cuts(b, cut))).toStrictEqual(want)
    for (let cut = 0; cut + 7 <= b.length; cut += 3) expect(await watchVia(podSpec, cuts(b, cut, cut + 1, cut + 7))).toStrictEqual(want)
  })

  it('malformed lines, unknown types and truncated bodies fail as on the text path', async () => {
    const bodies = [
      '{"type":"ADDED","object":{"metadata":{"uid":"u"}},}\n',
      '{"type":"ADDED","object":{"metadata":{"uid":"u",\u00e9}}}\n',
      '{"type":"NOPE","object":{}}\n',
      '{"type":7}\n',
      '[]\n',
      '{"type":"ADDED","object":{"metadata":{"uid":"u"}}}\n{"type":"ADDED","obj',
      '{"type":"ADDED","object":{"metadata":{"uid":"u"}}}\n  \r\t',
      '\ufeff\ufeff{"type":"ADDED"}\n',
    ]
    for (const body of bodies) {
      const want = await watchVia(textSpec, [bytesOf(body)])
      expect(want.at(-1), body).toSatisfy((x: object) => 'error' in x || body.endsWith('\t'))
      expect(await watchVia(podSpec, [bytesOf(body)]), body).toStrictEqual(want)
    }
    const cut = await watchVia(podSpec, [bytesOf('{"type":"ADDED","object":{}}\n{"type"')])
    expect(cut.at(-1)).toStrictEqual({ error: expect.stringMatching(/^KubeTransportError/) })
    expect(new KubeTransportError('x')).toBeInstanceOf(Error)
    expect(new KubeDecodeError('x')).toBeInstanceOf(Error)
  })

  it('scans a line inside a larger buffer without reading past its end', () => {
    const line = '{"type":"ADDED","object":{"metadata":{"uid":"u","resourceVersion":"5"}}}'
    const b = bytesOf(`xx${line}"more":"{"}\n`)
    expect(scanner.watchLine(b, 2, 2 + line.length)).toMatchObject({ type: 'ADDED', resourceVersion: '5', object: { uid: 'u' } })
    for (let end = 2; end < 2 + line.length; end++) expect(() => scanner.watchLine(b, 2, end)).toThrow(JsonScanError)
  })

  it('ByteLineFramer keeps lines spanning chunks whole', () => {
    const f = new ByteLineFramer()
    const got: string[] = []
    for (const chunk of ['ab', 'c\nd', 'e', '', 'f\n\ng', 'h']) {
      f.push(bytesOf(chunk))
      while (f.next()) got.push(f.text())
    }
    expect(got).toStrictEqual(['abc', 'def', ''])
    expect(f.pendingLength).toBe(2)
    expect(f.rest()).toBe('gh')
  })
})

describe('scanner instances', () => {
  it('two scanners, one called from inside the other, give what each gives alone', () => {
    const body = bytesOf(JSON.stringify(listBody('PodList', samplePods, 7)))
    const lines = samplePods.map((p) => bytesOf(JSON.stringify({ type: 'ADDED', object: p })))
    // Each model tags what it makes, so a string from the other scanner's cache would show.
    const model = (tag: string, inner = (): void => {}): PodModel => ({
      intern: (s) => (inner(), tag + s),
      versionOf: (images, n) => tag + images.slice(0, n).join(),
      ownerRef: newOwnerRef,
    })
    const gotB: ScannedLine<PodMeta>[] = []
    const b = createPodScanner(model('B:'))
    // A's model runs B in the middle of A's scan, each time it interns.
    const a = createPodScanner(
      model('A:', () => {
        const line = lines[gotB.length % lines.length]
        gotB.push(b.watchLine(line, 0, line.length))
      }),
    )
    const gotA = [a.list(body, true), a.list(body, true)]

    const aloneA = createPodScanner(model('A:'))
    const aloneB = createPodScanner(model('B:'))
    const wantA = [aloneA.list(body, true), aloneA.list(body, true)]
    const wantB = gotB.map((_, k) => aloneB.watchLine(lines[k % lines.length], 0, lines[k % lines.length].length))
    expect(gotB.length).toBeGreaterThan(lines.length)
    expect(gotA).toStrictEqual(wantA)
    expect(gotB).toStrictEqual(wantB)
    expect([gotA[1].items![0].namespace, gotB[0].object!.namespace]).toStrictEqual(['A:default', 'B:default'])
  })
})

describe('over a real HTTPS socket', () => {
  let api: FakeApiServer
  beforeAll(async () => {
    api = await startFakeApiServer()
  })
  afterAll(async () => {
    await api.close()
  })

  it('bytes() returns the body undecoded; fetchListPage and openWatch scan pods from the socket', async () => {
    const pods = Array.from({ length: 300 }, (_, i) => podObject({ name: `p-${i}-ü`, rv: 100 + i, ip: `10.0.${i >> 8}.${i & 255}`, images: ['img', `img-${i % 3}`] }))
    api.script('/raw', (_r, res) => sendJson(res, 200, { s: 'é😀' }))
    const res = await api.client().get('/raw', { accept: 'application/json', idleTimeoutMs: 5000 })
    expect(new TextDecoder().decode(await res.bytes!())).toBe('{"s":"é😀"}')

    api.script('/api/v1/pods', (_r, res) => sendJson(res, 200, listBody('PodList', pods, 500)))
    const page = await fetchListPage(api.client(), podSpec, { limit: 500, idleTimeoutMs: 5000 })
    expect(page.items).toStrictEqual(pods.map((p) => podMetaOf(model, JSON.parse(JSON.stringify(p)), true)))

    api.script('/api/v1/pods', (_r, res) => {
      const w = startWatchBody(res)
      for (const p of pods) w.event('MODIFIED', p)
      w.bookmark(600, true)
      w.end()
    })
    const conn = await openWatch(api.client(), podSpec, { streamingList: false, resourceVersion: '500', timeoutSeconds: 60, idleTimeoutMs: 5000 })
    const items: WatchItem<PodMeta>[] = []
    for (let item = await conn.next(); item; item = await conn.next()) items.push(item)
    // Watch events' metas are class instances, LIST items' literals (src/model/records.ts): the same
    // fields, but for the resourceVersion, which a LIST item comes without.
    expect(items.slice(0, -1).map((i) => ({ ...plain(i.type === 'MODIFIED' ? i.object : undefined), resourceVersion: '' }))).toStrictEqual(page.items.map(plain))
    expect(items.at(-1)).toStrictEqual({ type: 'BOOKMARK', resourceVersion: '600', initialEventsEnd: true })
  })
})
