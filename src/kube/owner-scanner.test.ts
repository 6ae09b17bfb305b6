// The ReplicaSets' and Jobs' byte scanners (metadata-only objects, issue 34) against the reference
// they must equal: `ownerMetaOf(JSON.parse(text))` — generated and mutated objects (fast-check),
// LIST pages through fetchListPage and watch bodies through openWatch split at every chunk
// boundary, JSON semantics (duplicated keys, escapes, mistypes), and what the model is asked.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createModelContext } from '../model/context.ts'
import { ownerMetaOf } from '../model/convert.ts'
import type { OwnerKind, OwnerMeta } from '../model/types.ts'
import { cuts, listVia, watchVia } from '../../e2e/harness/memory-client.ts'
import { listBody } from '../../e2e/harness/fake-apiserver.ts'
import { bytesOf, corrupted, junk, metadataFields, objectOf, punctuation, serialize, strNode as str, unicodeString, validityCases, type Node } from '../../e2e/harness/json-text.ts'
import { JsonScanError } from './json-skip.ts'
import { createOwnerScanner } from './pod-scanner.ts'
import { jobsResource, replicaSetsResource, type ResourceSpec } from './resources.ts'

const model = createModelContext()
const rsSpec = replicaSetsResource(model)
const jobSpec = jobsResource(model)
const textSpec = (spec: ResourceSpec<OwnerMeta>): ResourceSpec<OwnerMeta> => ({ ...spec, scan: undefined })

/** One watch line's object through the scanner, or what it threw. */
function scanned(kind: OwnerKind, text: string): { meta: OwnerMeta | undefined } | { error: unknown } {
  const line = bytesOf(`{"type":"ADDED","object":${text}}`)
  try {
    return { meta: createOwnerScanner(model, kind).watchLine(line, 0, line.length).object }
  } catch (error) {
    return { error }
  }
}

/** Asserts the scanner agrees with JSON.parse + ownerMetaOf: both throw, or both give deep-equal metas. */
function agree(kind: OwnerKind, text: string): OwnerMeta | undefined {
  let want: OwnerMeta | undefined
  try {
    want = ownerMetaOf(model, kind, JSON.parse(text))
  } catch {
    const got = scanned(kind, text)
    expect('error' in got, `the scanner accepted what JSON.parse rejects: ${JSON.stringify(text.slice(0, 200))}`).toBe(true)
    expect((got as { error: unknown }).error).toBeInstanceOf(JsonScanError)
    return undefined
  }
  const got = scanned(kind, text)
  if ('error' in got) throw new Error(`the scanner rejected valid JSON ${JSON.stringify(text.slice(0, 200))}: ${String(got.error)}`)
  expect(got.meta).toStrictEqual(want)
  return got.meta
}

const rs = (metadata: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata, ...extra })

describe('owner scanners: one object', () => {
  it('a ReplicaSet of a Deployment and a Job of a CronJob, field for field, the controller shared', () => {
    const meta = agree(
      'ReplicaSet',
      rs({
        name: 'web-5d9c',
        namespace: 'shop',
        uid: 'rs-1',
        resourceVersion: '42',
        labels: { app: 'web' },
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'o-0', controller: false },
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-1', controller: true, blockOwnerDeletion: true },
          { kind: 'Second', name: 'later', uid: 'd-2', controller: true },
        ],
        managedFields: [{ manager: 'kube-controller-manager', fieldsV1: { 'f:metadata': {} } }],
      }),
    )!
    expect(meta).toStrictEqual({ kind: 'ReplicaSet', uid: 'rs-1', name: 'web-5d9c', namespace: 'shop', resourceVersion: '42', controller: model.ownerRef('Deployment', 'd-1', 'web') })
    expect(meta.controller).toBe(model.ownerRef('Deployment', 'd-1', 'web'))
    // The strings are the interned ones, as the JSON.parse path's.
    expect(meta.name).toBe(model.intern('web-5d9c'))
    const job = agree('Job', rs({ name: 'backup-29000', namespace: 'ops', uid: 'j-1', resourceVersion: '7', ownerReferences: [{ kind: 'CronJob', name: 'backup', uid: 'cj-1', controller: true }] }))
    expect(job).toMatchObject({ kind: 'Job', controller: { kind: 'CronJob', uid: 'cj-1', name: 'backup' } })
    expect(Object.keys(agree('Job', rs({ uid: 'j-2' }))!)).toStrictEqual(['kind', 'uid', 'name', 'namespace', 'resourceVersion'])
  })

  it('no uid, an empty uid, a metadata or object that is not an object: undefined, as JSON.parse sees it', () => {
    for (const text of [
      rs({ name: 'n' }),
      rs({ uid: '' }),
      rs({ uid: 7 }),
      '{"metadata":[]}',
      '{"metadata":null}',
      '{"metadata":{"uid":"a"},"metadata":5}',
      '[{"metadata":{"uid":"a"}}]',
      '"x"',
      'null',
    ]) {
      expect(agree('ReplicaSet', text), text).toBeUndefined()
    }
  })

  it('duplicated keys (the last wins, whole metadata included), escapes and mistypes', () => {
    expect(agree('ReplicaSet', '{"metadata":{"uid":"a","name":"first"},"metadata":{"uid":"b"}}')).toMatchObject({ uid: 'b', name: '' })
    expect(agree('ReplicaSet', '{"metadata":{"uid":"a","uid":"b","name":"n\\u00e9","namespace":"\\ud83d\\ude00","resourceVersion":5}}')).toMatchObject({ uid: 'b', name: 'né', namespace: '😀', resourceVersion: '' })
    expect(agree('Job', '{"metadata":{"uid":"a","ownerReferences":[{"controller":true,"controller":false,"kind":"CronJob"},{"kind":1,"uid":["x"],"name":{},"controller":true}]}}')!.controller).toStrictEqual(model.ownerRef('', '', ''))
    expect(agree('Job', '{"metadata":{"uid":"a","ownerReferences":{"kind":"CronJob","controller":true}}}')!.controller).toBeUndefined()
    expect(agree('Job', '{"metadata":{"uid":"a","ownerReferences":[{"kind":"CronJob","controller":"true"}]}}')!.controller).toBeUndefined()
    for (const t of validityCases) agree('ReplicaSet', t)
  })
})

// ---- generated owners (fast-check) ---------------------------------------------------------

const ownerNode: fc.Arbitrary<Node> = objectOf({
  metadata: objectOf({ ...metadataFields, labels: objectOf({ app: str(unicodeString) }) }),
  kind: str(fc.constantFrom('PartialObjectMetadata', 'ReplicaSet')),
  spec: junk,
})
const ownerText = fc.tuple(ownerNode, fc.integer()).map(([n, seed]) => serialize(n, seed))
const kinds = fc.constantFrom<OwnerKind>('ReplicaSet', 'Job')

describe('owner scanners: generated objects (fast-check)', () => {
  it('equal ownerMetaOf(JSON.parse(text)) for generated owner-like objects', () => {
    fc.assert(fc.property(kinds, ownerText, (kind, text) => void agree(kind, text)), { numRuns: 1000 })
  })

  it('throw iff JSON.parse throws for byte flips, cuts, insertions and random texts', () => {
    const decoder = new TextDecoder()
    fc.assert(fc.property(corrupted(ownerText), (b) => void agree('ReplicaSet', decoder.decode(b))), { numRuns: 1000 })
    fc.assert(fc.property(fc.json(), (t) => void agree('Job', t)), { numRuns: 1000 })
    fc.assert(fc.property(punctuation, (t) => void agree('ReplicaSet', t)), { numRuns: 1000 })
  })
})

// ---- through fetchListPage and openWatch ---------------------------------------------------

const owners = [
  { metadata: { name: 'web-1', namespace: 'shop', uid: 'rs-1', resourceVersion: '3', ownerReferences: [{ kind: 'Deployment', name: 'web', uid: 'd-1', controller: true }] } },
  { metadata: { name: 'no-uid', resourceVersion: '4' } },
  { metadata: { name: 'bare', namespace: 'é', uid: 'rs-2', resourceVersion: '5' } },
]

describe('owner scanners: LIST pages and watch bodies', () => {
  it('a page equals the JSON.parse path, split at every chunk boundary; every owner of it is scanned', async () => {
    const b = bytesOf(JSON.stringify(listBody('PartialObjectMetadataList', owners, 77, 'next-token')))
    const want = await listVia(textSpec(rsSpec), [b])
    expect(want).toMatchObject({ resourceVersion: '77', continueToken: 'next-token', dropped: 1, items: [{ uid: 'rs-1' }, { uid: 'rs-2' }] })
    for (let cut = 0; cut <= b.length; cut++) expect(await listVia(rsSpec, cuts(b, cut))).toStrictEqual(want)
    const fallbacks = rsSpec.scan!.stats.fallbacks
    // kube-apiserver's metadata-only LIST from etcd answers an empty collection with `items: null`.
    const empty = '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"286"},"items":null}'
    expect(await listVia(jobSpec, [bytesOf(empty)])).toStrictEqual(await listVia(textSpec(jobSpec), [bytesOf(empty)]))
    expect(await listVia(jobSpec, [bytesOf('{"items":[1,]}')])).toMatchObject({ error: expect.stringMatching(/^KubeDecodeError: jobs list: body is not JSON/) })
    expect(rsSpec.scan!.stats.fallbacks).toBe(fallbacks)
  })

  it('a watch body equals the text path, split at every chunk boundary; bookmarks and errors parsed as before', async () => {
    const lines = [
      JSON.stringify({ type: 'ADDED', object: owners[0] }),
      JSON.stringify({ object: owners[2], type: 'MODIFIED' }),
      JSON.stringify({ type: 'DELETED', object: owners[1] }),
      JSON.stringify({ type: 'BOOKMARK', object: { kind: 'PartialObjectMetadata', metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } } } }),
      JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } }),
    ]
    const b = bytesOf(lines.join('\n') + '\n')
    const want = await watchVia(textSpec(rsSpec), [b])
    expect(want.map((i) => ('type' in i ? i.type : i.error))).toStrictEqual(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'])
    expect(want[2]).toMatchObject({ type: 'DELETED', object: undefined, resourceVersion: '4' })
    const parsed = rsSpec.scan!.stats.parsedLines
    for (let cut = 0; cut <= b.length; cut += 2) expect(await watchVia(rsSpec, cuts(b, cut))).toStrictEqual(want)
    expect(rsSpec.scan!.stats.parsedLines).toBeGreaterThan(parsed)
  })
})
