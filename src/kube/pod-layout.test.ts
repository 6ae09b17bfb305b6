// The pod layout read through a JSON cursor against the reference it must equal:
// `podMetaOf(JSON.parse(text))` of the TextDecoder-decoded bytes — edge cases of the converter,
// JSON semantics (duplicate keys, escapes, invalid UTF-8, whitespace), validation (throws iff
// JSON.parse throws), generated pods and mutated texts (fast-check).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createModelContext } from '../model/context.ts'
import { podMetaOf } from '../model/convert.ts'
import type { PodMeta } from '../model/types.ts'
import { arrayOfNodes as arrayOf, bin, bytesOf, corrupted, idString, metadataFields, objectOf, punctuation, serialize, strNode as str, unicodeString, type Node, validityCases } from '../../e2e/harness/json-text.ts'
import { JsonCursor } from './json-cursor.ts'
import { JsonScanError } from './json-skip.ts'
import { PodLayout } from './pod-layout.ts'

const model = createModelContext()

const cur = new JsonCursor()
const pods = new PodLayout(cur, model)

/** A whole JSON text (BOM allowed) as one watch event's pod. */
function scanPodJson(b: Uint8Array): PodMeta | undefined {
  try {
    const meta = pods.read(cur.openText(b), false)
    cur.expectEnd(cur.pos)
    return meta
  } finally {
    cur.close()
  }
}

/** The reference: what the JSON.parse path yields for these bytes (or the error it throws). */
function reference(b: Uint8Array): { meta: PodMeta | undefined } | { error: unknown } {
  try {
    return { meta: podMetaOf(model, JSON.parse(new TextDecoder().decode(b))) }
  } catch (error) {
    return { error }
  }
}

function scanned(b: Uint8Array): { meta: PodMeta | undefined } | { error: unknown } {
  try {
    return { meta: scanPodJson(b) }
  } catch (error) {
    return { error }
  }
}

/** Asserts the scanner agrees with the reference: both throw, or both yield deep-equal metas. */
function agree(b: Uint8Array): PodMeta | undefined {
  const want = reference(b)
  const got = scanned(b)
  if ('error' in want) {
    expect('error' in got, `scanner accepted what JSON.parse rejects: ${JSON.stringify(new TextDecoder().decode(b).slice(0, 200))}`).toBe(true)
    expect((got as { error: unknown }).error).toBeInstanceOf(JsonScanError)
    return undefined
  }
  if ('error' in got) throw new Error(`scanner rejected valid JSON ${JSON.stringify(new TextDecoder().decode(b).slice(0, 200))}: ${String(got.error)}`)
  expect(got.meta).toStrictEqual(want.meta)
  return got.meta
}
const agreeText = (text: string): PodMeta | undefined => agree(bytesOf(text))

/** A meta as plain objects (the converters build class instances: src/model/records.ts), every key kept. */
const plain = (m: PodMeta | undefined) => m && { ...m, containers: m.containers.map((c) => ({ ...c })), owner: m.owner && { ...m.owner } }

const basePod = {
  metadata: {
    name: 'web-1',
    namespace: 'shop',
    uid: 'u-1',
    resourceVersion: '42',
    ownerReferences: [
      { kind: 'Other', uid: 'o-0', name: 'x', controller: false },
      { kind: 'ReplicaSet', uid: 'rs-1', name: 'web', controller: true },
      { kind: 'Second', uid: 'rs-2', name: 'later', controller: true },
    ],
    managedFields: [{ manager: 'kubelet', fieldsV1: { 'f:status': { 'f:podIP': {} } } }],
  },
  spec: { hostNetwork: false, containers: [{ name: 'app', image: 'nginx' }] },
  status: {
    podIP: '10.0.0.7',
    podIPs: [{ ip: '10.0.0.7' }],
    containerStatuses: [
      { name: 'app', image: 'nginx:1.25', containerID: 'containerd://aa', ready: true },
      { name: 'side', image: 'busybox', containerID: 'containerd://bb', state: { running: {} } },
    ],
  },
}
const podWith = (patch: (p: Record<string, any>) => void): string => {
  const p = structuredClone(basePod) as Record<string, any>
  patch(p)
  return JSON.stringify(p)
}

describe('scanPodJson: the converter edge cases', () => {
  it('extracts a regular pod field for field', () => {
    expect(plain(agreeText(JSON.stringify(basePod)))).toStrictEqual({
      uid: 'u-1',
      name: 'web-1',
      namespace: 'shop',
      resourceVersion: '42',
      ip: 0x0a000007,
      hasIp: true,
      hostNetwork: false,
      version: "'busybox','nginx:1.25'",
      containers: [
        { id: 'containerd://aa', name: 'app', image: 'nginx:1.25' },
        { id: 'containerd://bb', name: 'side', image: 'busybox' },
      ],
      owner: { kind: 'ReplicaSet', uid: 'rs-1', name: 'web' },
    })
  })

  it('podIP before podIPs; IPv6 podIP falls through to the first IPv4 of podIPs; hasIp follows podIP', () => {
    expect(agreeText(podWith((p) => (p.status.podIPs = [{ ip: '10.9.9.9' }])))!.ip).toBe(0x0a000007)
    const v6 = agreeText(podWith((p) => ((p.status.podIP = 'fd00::1'), (p.status.podIPs = [{ ip: 'fd00::1' }, 7, { ip: 5 }, { ip: '10.1.2.3' }, { ip: '10.4.4.4' }]))))!
    expect([v6.ip, v6.hasIp]).toStrictEqual([0x0a010203, true])
    const none = agreeText(podWith((p) => ((p.status.podIP = ''), (p.status.podIPs = [{ ip: '10.1.2.3' }]))))!
    expect([none.ip, none.hasIp]).toStrictEqual([0x0a010203, false])
    expect(agreeText(podWith((p) => ((p.status.podIP = 'garbage'), (p.status.podIPs = 'x'))))!.ip).toBe(0)
    expect(agreeText(podWith((p) => ((p.status.podIP = 7), delete p.status.podIPs)))!.hasIp).toBe(false)
    agreeText(podWith((p) => ((p.status.podIP = '1.2.3.4.5'), (p.status.podIPs = [{ ip: '256.1.1.1' }, { ip: ['10.0.0.1'] }]))))
    agreeText(podWith((p) => (p.status.podIPs = [{ ip: 'fd00::2', ip2: '1.1.1.1' }, { ip: '1.1.1.1' }])))
  })

  it('hostNetwork only when literally true', () => {
    expect(agreeText(podWith((p) => (p.spec.hostNetwork = true)))!.hostNetwork).toBe(true)
    for (const v of ['true', 1, null, {}, [true]]) expect(agreeText(podWith((p) => (p.spec.hostNetwork = v)))!.hostNetwork).toBe(false)
    expect(agreeText(podWith((p) => (p.spec = [true])))!.hostNetwork).toBe(false)
    expect(agreeText('{"metadata":{"uid":"u"},"spec":{"hostNetwork":true},"spec":{"x":1}}')!.hostNetwork).toBe(false)
    expect(agreeText('{"metadata":{"uid":"u"},"spec":{"hostNetwork":true,"hostNetwork":false,"hostNetwork":true}}')!.hostNetwork).toBe(true)
  })

  it('containers: only with a containerID, images of all statuses, sorted by UTF-8 bytes', () => {
    const m = agreeText(
      podWith(
        (p) =>
          (p.status.containerStatuses = [
            { name: 'a', image: '\u{1F600}img', containerID: 'c://1' },
            { name: 'b', image: '\uFFFDimg' },
            { name: 'c', image: '', containerID: 'c://3' },
            'not-an-object',
            null,
            { name: 5, image: 'z', containerID: 7 },
            { name: 'd', image: 'zz', containerID: '' },
          ]),
      ),
    )!
    // UTF-16 order would put the astral character before U+FFFD; UTF-8 byte order puts it last.
    expect(m.version).toBe("'z','zz','\uFFFDimg','\u{1F600}img'")
    expect(m.containers.map((c) => c.id)).toStrictEqual(['c://1', 'c://3'])
    expect(agreeText(podWith((p) => (p.status.containerStatuses = { 0: {} })))!.version).toBe('')
    expect(agreeText(podWith((p) => (p.status.containerStatuses = [{ image: 'one' }])))!.version).toBe("'one'")
  })

  it('the first controller ownerReference only; wrong types ignored', () => {
    expect({ ...agreeText(podWith((p) => (p.metadata.ownerReferences = [{ controller: 'true', kind: 'A' }, 3, { controller: true }])))!.owner }).toStrictEqual({ kind: '', uid: '', name: '' })
    expect(agreeText(podWith((p) => (p.metadata.ownerReferences = { controller: true })))!.owner).toBeUndefined()
    expect(agreeText(podWith((p) => (p.metadata.ownerReferences = [])))!.owner).toBeUndefined()
    agreeText(podWith((p) => (p.metadata.ownerReferences = [{ controller: true, kind: 1, uid: null, name: ['n'] }])))
  })

  it('no uid, or a metadata or object that is not an object, yields undefined', () => {
    for (const t of ['{"metadata":{"name":"x"}}', '{"metadata":{"uid":""}}', '{"metadata":{"uid":7}}', '{"metadata":[{"uid":"u"}]}', '{"metadata":"u"}', '{"metadata":null}', '{}', '[]', 'null', '"pod"', '12', 'true']) {
      expect(agreeText(t)).toBeUndefined()
    }
    expect(agreeText('{"metadata":{"uid":"u"},"status":null,"spec":7}')).toMatchObject({ uid: 'u', ip: 0, version: '' })
  })
})

describe('scanPodJson: JSON semantics', () => {
  it('duplicate keys: the last wins, also for whole nested objects', () => {
    expect(agreeText('{"metadata":{"uid":"a","name":"n1"},"metadata":{"uid":"b"}}')).toMatchObject({ uid: 'b', name: '' })
    expect(agreeText('{"metadata":{"uid":"a"},"metadata":{"name":"x"}}')).toBeUndefined()
    expect(agreeText('{"metadata":{"name":"x"},"metadata":{"uid":"a"}}')).toMatchObject({ uid: 'a' })
    expect(agreeText('{"metadata":{"uid":"a"},"metadata":5}')).toBeUndefined()
    expect(agreeText('{"metadata":{"uid":"a","uid":"b","uid":"c"}}')!.uid).toBe('c')
    expect(agreeText('{"metadata":{"uid":"a","uid":3}}')).toBeUndefined()
    expect(agreeText('{"metadata":{"uid":"a","ownerReferences":[{"controller":true,"kind":"A"}],"ownerReferences":[]}}')!.owner).toBeUndefined()
    expect(agreeText('{"metadata":{"uid":"a","ownerReferences":[{"controller":true,"kind":"A","kind":"B","controller":false},{"controller":true,"kind":"C"}]}}')!.owner!.kind).toBe('C')
    expect(agreeText('{"metadata":{"uid":"a"},"status":{"podIP":"1.1.1.1"},"status":{"podIPs":[{"ip":"2.2.2.2"}]}}')).toMatchObject({ ip: 0x02020202, hasIp: false })
    agreeText('{"metadata":{"uid":"a"},"status":{"podIPs":[{"ip":"1.1.1.1"}],"podIPs":[{"ip":"x"}],"containerStatuses":[{"image":"i","containerID":"c"}],"containerStatuses":7}}')
  })

  it('escaped keys and values, surrogates, lone surrogates', () => {
    expect(agreeText('{"meta\\u0064ata":{"\\u0075id":"u\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00","name":"\\ud800x\\udfff"}}')).toMatchObject({
      uid: 'u"\\/\b\f\n\r\té\u{1F600}',
      name: '\ud800x\udfff',
    })
    agreeText('{"metadata":{"uid":"a","n\\u0061me":"caf\u00e9 \\u0041 \u65e5\u672c \u{1F600}"}}')
    agreeText('{"\\u006detadata":{"uid":"a"}, "metadat\\u0061\\u0000":{"uid":"b"}}')
  })

  it('invalid UTF-8 in extracted strings decodes like TextDecoder', () => {
    const cases: number[][] = [[0xf0, 0x9f], [0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xff], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0xc3]]
    for (const bad of cases) {
      agree(bin('{"metadata":{"uid":"x', bad, '","name":"', bad, '\\n', bad, 'y"}}'))
      agree(bin('{"metadata":{"uid":"', bad, '"}}'))
      agree(bin('{"metadata":{"uid":"u"},"skipped":"', bad, '"}'))
      agree(bin('{"metadata":{"uid":"u"}', bad, '}')) // outside a string: invalid
    }
  })

  it('a BOM: stripped at the start, kept inside strings, an error elsewhere', () => {
    expect(agree(bin([0xef, 0xbb, 0xbf], '{"metadata":{"uid":"u"}}'))!.uid).toBe('u')
    expect(agree(bin('{"metadata":{"uid":"', [0xef, 0xbb, 0xbf], 'u"}}'))!.uid).toBe('\ufeffu')
    agree(bin(' ', [0xef, 0xbb, 0xbf], '{"metadata":{"uid":"u"}}'))
    agree(bin([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], '{}'))
  })

  it('whitespace anywhere, any key order, unknown and nested fields skipped', () => {
    const text = ' \t\r\n{ "spec" : { "x" : [ 1 , -2.5e+3 , { } , [ ] , null , true , false , "s" ] , "hostNetwork" : true } ,\n "status" :{"containerStatuses":[ { "containerID" : "c" , "image" : "i" } ] } , "metadata" : { "uid" : "u" } }\r\n '
    expect(agreeText(text)).toMatchObject({ uid: 'u', hostNetwork: true, version: "'i'" })
    agreeText('{"__proto__":{"uid":"p"},"metadata":{"__proto__":{"uid":"q"},"uid":"u","constructor":1}}')
  })

  it('validates like JSON.parse, skipped regions included', () => {
    for (const t of validityCases) agreeText(t)
  })
})

// ---- generated pods (fast-check) ---------------------------------------------------------

const ipText = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('', '1.2.3', '01.2.3.4', '1.2.3.4 '))
const pick = <T,>(...xs: T[]): fc.Arbitrary<T> => fc.constantFrom(...xs)

const podNode: fc.Arbitrary<Node> = objectOf({
  metadata: objectOf(metadataFields),
  spec: objectOf({ hostNetwork: fc.constantFrom<Node>({ l: 'true' }, { l: 'false' }) }),
  status: objectOf({
    podIP: str(ipText),
    podIPs: arrayOf(objectOf({ ip: str(ipText) })),
    containerStatuses: arrayOf(objectOf({ name: str(unicodeString), image: str(fc.oneof(unicodeString, pick('nginx', 'busybox', '\u{1F600}', '\uffff'))), containerID: str(idString) })),
  }),
  kind: str(pick('Pod')),
})

const podText = fc.tuple(podNode, fc.integer()).map(([n, seed]) => serialize(n, seed))

describe('scanPodJson: generated pods (fast-check)', () => {
  it('equals podMetaOf(JSON.parse(text)) for generated pod-like objects', () => {
    fc.assert(
      fc.property(podText, (text) => {
        expect(() => JSON.parse(text)).not.toThrow()
        agreeText(text)
      }),
      { numRuns: 1000 },
    )
  })

  it('throws iff JSON.parse throws for byte flips, cuts, insertions and random texts', () => {
    fc.assert(fc.property(corrupted(podText), (b) => void agree(b)), { numRuns: 2000 })
    fc.assert(fc.property(fc.json(), (t) => void agreeText(t)), { numRuns: 1000 })
    fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), (b) => void agree(b)), { numRuns: 1000 })
    fc.assert(fc.property(punctuation, (t) => void agreeText(t)), { numRuns: 2000 })
  })
})
