// The byte-level pod scanner against the reference it must equal: `podMetaOf(JSON.parse(text))` of
// the TextDecoder-decoded bytes — edge cases of the converter, JSON semantics (duplicate keys,
// escapes, invalid UTF-8, whitespace), validation (throws iff JSON.parse throws), generated pods
// and mutated texts (fast-check), and the wired paths (fetchListPage, openWatch) over memory
// responses split at every chunk boundary and over a real HTTPS socket.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createModelContext } from '../model/context.ts'
import { podMetaOf } from '../model/convert.ts'
import type { PodMeta } from '../model/types.ts'
import { memoryClient } from '../../e2e/harness/memory-client.ts'
import { KubeDecodeError, KubeTransportError } from './errors.ts'
import { listBody, podObject, sendJson, startFakeApiServer, startWatchBody, type FakeApiServer } from '../../e2e/harness/fake-apiserver.ts'
import { ByteLineFramer } from './lines.ts'
import { fetchListPage, type ListPage } from './list.ts'
import { podsResource, type ResourceSpec } from './resources.ts'
import { JsonScanError, scanCounters, scanPodJson, scanPodList, scanPodWatchLine, validateJson } from './scan.ts'
import { openWatch, type WatchItem } from './watch.ts'
import { concatBytes } from '../bytes.ts'

const model = createModelContext()
const enc = new TextEncoder()
const bytesOf = (s: string): Uint8Array => enc.encode(s)
const bin = (...parts: (string | number[])[]): Uint8Array => {
  const chunks = parts.map((p) => (typeof p === 'string' ? enc.encode(p) : Uint8Array.from(p)))
  return concatBytes(chunks)
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
    return { meta: scanPodJson(b, model) }
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
    const texts = [
      '', ' ', '{', '}', '{"metadata":{"uid":"u"}} x', '{"metadata":{"uid":"u"}}}', '{"a":1,}', '[1,]', '{,}', '{"a" 1}', '{"a":}', '{a:1}', "{'a':1}",
      '{"a":01}', '{"a":-}', '{"a":1.}', '{"a":.5}', '{"a":1e}', '{"a":1e+}', '{"a":+1}', '{"a":-01}', '{"a":0x1}', '{"a":NaN}', '{"a":Infinity}',
      '{"a":tru}', '{"a":nul}', '{"a":falsey}', '{"a":True}', '{"a":[1 2]}', '{"a":{"b":1 "c":2}}', '{"a":"\t"}', '{"a":"\u0001"}', '{"a":"x\ny"}',
      '{"a":"\\x"}', '{"a":"\\u12G4"}', '{"a":"\\u12"}', '{"a":"\\', '{"a":"unterminated', '{"a\u0000":1}', '{"a":1}\u00a0', '\u00a0{}', '{"a":1}\ufeff',
      '{"metadata":{"uid":"\\q"}}', '{"metadata":{"uid":"u"},"spec":{"hostNetwork":tru}}', '{"metadata":{"uid":"u","ownerReferences":[{"controller":true},]}}',
      '[' + '[{"a":'.repeat(5000) + '1' + '}]'.repeat(5000) + ']', '[' + '['.repeat(20000) + ']'.repeat(19999),
      '{"a":-0,"b":0.0e-0,"c":1E+2,"d":-12.5E3,"e":[],"f":{},"g":"\\/","h":[[[]]]}', '{"metadata":{"uid":"u"}}\n\r\t ',
    ]
    for (const t of texts) {
      agreeText(t)
      const b = bytesOf(t)
      let parsed = true
      try {
        JSON.parse(t)
      } catch {
        parsed = false
      }
      expect(() => validateJson(b), t.slice(0, 80)).toSatisfy((f: () => void) => {
        try {
          f()
          return parsed
        } catch (err) {
          return !parsed && err instanceof JsonScanError
        }
      })
    }
  })
})

// ---- generated pods (fast-check) ---------------------------------------------------------

/** A JSON syntax tree that keeps duplicate keys and member order (JSON.stringify cannot). */
type Node = { o: [string, Node][] } | { a: Node[] } | { s: string } | { n: string } | { l: 'true' | 'false' | 'null' }

const unicodeString = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'b', '1', '.', ':', '-', ' ') },
    { weight: 2, arbitrary: fc.constantFrom('"', '\\', '/', '\n', '\t', '\u0000', '\u001f', '\u007f', '\u00e9', '\u2028', '\ufeff', '\uffff', '\ud800', '\udfff') },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  ),
  maxLength: 12,
})
const numberText = fc.oneof(fc.constantFrom('0', '-0', '1e5', '-2.5E-3', '123456789012345678901234567890', '0.000'), fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)))
const leaf: fc.Arbitrary<Node> = fc.oneof(unicodeString.map((s) => ({ s })), numberText.map((n) => ({ n })), fc.constantFrom<'true' | 'false' | 'null'>('true', 'false', 'null').map((l) => ({ l })))
const junk: fc.Arbitrary<Node> = fc.letrec<{ v: Node }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v'), { maxLength: 3 }).map((a) => ({ a })),
    fc.array(fc.tuple(unicodeString, tie('v')), { maxLength: 3 }).map((o) => ({ o })),
  ),
})).v

/** An object of chosen fields (each maybe mistyped, maybe duplicated) plus unknown fields, in random order. */
function objectOf(fields: Record<string, fc.Arbitrary<Node>>): fc.Arbitrary<Node> {
  const entries = Object.entries(fields).map(([k, v]) => fc.array(fc.tuple(fc.constant(k), fc.oneof({ weight: 5, arbitrary: v }, { weight: 1, arbitrary: junk })), { maxLength: 2 }))
  return fc
    .tuple(fc.tuple(...entries), fc.array(fc.tuple(unicodeString, junk), { maxLength: 2 }), fc.integer())
    .map(([known, extra, seed]) => {
      const members = [...known.flat(), ...extra]
      // Fisher–Yates with the seed, so the key order is random and shrinkable.
      let x = seed | 1
      for (let i = members.length - 1; i > 0; i--) {
        x = (x * 1103515245 + 12345) | 0
        const j = Math.abs(x) % (i + 1)
        ;[members[i], members[j]] = [members[j], members[i]]
      }
      return { o: members }
    })
}
const str = (a: fc.Arbitrary<string>): fc.Arbitrary<Node> => a.map((s) => ({ s }))
const arrayOf = (a: fc.Arbitrary<Node>): fc.Arbitrary<Node> => fc.array(fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: junk }), { maxLength: 4 }).map((x) => ({ a: x }))
const ipText = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('', '1.2.3', '01.2.3.4', '1.2.3.4 '))
const pick = <T,>(...xs: T[]): fc.Arbitrary<T> => fc.constantFrom(...xs)
const idString = fc.oneof(unicodeString, pick('u-1', 'u-2', ''))

const podNode: fc.Arbitrary<Node> = objectOf({
  metadata: objectOf({
    uid: str(idString),
    name: str(unicodeString),
    namespace: str(unicodeString),
    resourceVersion: str(unicodeString),
    ownerReferences: arrayOf(objectOf({ controller: fc.constantFrom<Node>({ l: 'true' }, { l: 'false' }, { s: 'true' }), kind: str(unicodeString), uid: str(idString), name: str(unicodeString) })),
  }),
  spec: objectOf({ hostNetwork: fc.constantFrom<Node>({ l: 'true' }, { l: 'false' }) }),
  status: objectOf({
    podIP: str(ipText),
    podIPs: arrayOf(objectOf({ ip: str(ipText) })),
    containerStatuses: arrayOf(objectOf({ name: str(unicodeString), image: str(fc.oneof(unicodeString, pick('nginx', 'busybox', '\u{1F600}', '\uffff'))), containerID: str(idString) })),
  }),
  kind: str(pick('Pod')),
})

/** Serializes with random whitespace and random escaping (raw, short escapes, \uXXXX). */
function serialize(node: Node, seed: number): string {
  let x = seed | 1
  const rnd = (n: number): number => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % n
  }
  const ws = (): string => (rnd(4) === 0 ? [' ', '\n', '\t', '\r', '  \n'][rnd(5)] : '')
  const quote = (s: string): string => {
    let out = '"'
    for (const ch of s) {
      const c = ch.charCodeAt(0)
      const mustEscape = ch === '"' || ch === '\\' || c < 0x20 || (c >= 0xd800 && c <= 0xdfff && ch.length === 1)
      const r = rnd(8)
      if (!mustEscape && r > 1) out += ch
      else if (ch === '"') out += '\\"'
      else if (ch === '\\') out += '\\\\'
      else if (ch === '\n' && r === 0) out += '\\n'
      else if (ch === '/' && r === 0) out += '\\/'
      else for (let k = 0; k < ch.length; k++) out += '\\u' + ch.charCodeAt(k).toString(16).padStart(4, '0')[rnd(2) ? 'toUpperCase' : 'toLowerCase']()
    }
    return out + '"'
  }
  const go = (n: Node): string => {
    if ('s' in n) return quote(n.s)
    if ('n' in n) return n.n
    if ('l' in n) return n.l
    if ('a' in n) return '[' + ws() + n.a.map((v) => ws() + go(v) + ws()).join(',') + ws() + ']'
    return '{' + ws() + n.o.map(([k, v]) => ws() + quote(k) + ws() + ':' + ws() + go(v) + ws()).join(',') + ws() + '}'
  }
  return ws() + go(node) + ws()
}

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
    const mutated = fc.tuple(podText, fc.array(fc.tuple(fc.nat(), fc.nat(255), fc.constantFrom('flip', 'cut', 'insert', 'delete')), { minLength: 1, maxLength: 3 })).map(([text, edits]) => {
      let b = bytesOf(text)
      for (const [pos, byte, op] of edits) {
        const at = b.length === 0 ? 0 : pos % (b.length + (op === 'insert' ? 1 : 0))
        if (op === 'flip' && b.length > 0) b[at] = byte
        else if (op === 'cut') b = b.slice(0, at)
        else if (op === 'insert') b = bin(Array.from(b.subarray(0, at)), [byte], Array.from(b.subarray(at)))
        else if (op === 'delete' && b.length > 0) b = bin(Array.from(b.subarray(0, at)), Array.from(b.subarray(at + 1)))
      }
      return b
    })
    fc.assert(fc.property(mutated, (b) => void agree(b)), { numRuns: 2000 })
    fc.assert(fc.property(fc.json(), (t) => void agreeText(t)), { numRuns: 1000 })
    fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), (b) => void agree(b)), { numRuns: 1000 })
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', '-', '.', 'e', 't', 'r', 'u', 'n', 'l', ' ', '\\', 'a', '0') , maxLength: 20 }), (t) => void agreeText(t)),
      { numRuns: 2000 },
    )
  })
})

// ---- LIST pages and watch lines --------------------------------------------------------------

const textSpec: ResourceSpec<PodMeta> = { ...podsResource(model), scan: undefined }

const cuts = (b: Uint8Array, ...at: number[]): Uint8Array[] => {
  const out: Uint8Array[] = []
  let start = 0
  for (const c of at) {
    out.push(b.subarray(start, c))
    start = c
  }
  out.push(b.subarray(start))
  return out
}

async function listVia(spec: ResourceSpec<PodMeta>, chunks: Uint8Array[]): Promise<ListPage<PodMeta> | { error: string }> {
  try {
    return await fetchListPage(memoryClient(chunks), spec, { limit: 500, idleTimeoutMs: 5000 })
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` }
  }
}

const samplePods = [
  podObject({ name: 'é-pod-😀', uid: 'u1', rv: 3, ip: '10.0.0.1', images: ['nginx', 'busybox'], owner: { kind: 'ReplicaSet', name: 'rs', uid: 'r1' } }),
  { metadata: { name: 'no-uid', resourceVersion: '4' } },
  podObject({ name: 'b', uid: 'u2', rv: 5, ip: 'fd00::5', images: [] }),
]

describe('scanPodList and fetchListPage', () => {
  it('a page equals the JSON.parse path, split at every chunk boundary', async () => {
    const text = JSON.stringify(listBody('PodList', samplePods, 77, 'next-token'))
    const b = bytesOf(text)
    const want = await listVia(textSpec, [b])
    expect(want).toMatchObject({ resourceVersion: '77', continueToken: 'next-token', dropped: 1 })
    expect((want as ListPage<PodMeta>).items).toHaveLength(2)
    for (let cut = 0; cut <= b.length; cut++) expect(await listVia(podsResource(model), cuts(b, cut))).toStrictEqual(want)
    expect(await listVia(podsResource(model), cuts(b, ...Array.from({ length: b.length }, (_, i) => i)))).toStrictEqual(want)
  })

  it('many distinct and repeated interned values (the byte cache, with collisions) equal the reference', () => {
    const pods = Array.from({ length: 6000 }, (_, i) =>
      podObject({ name: `p${i}`, rv: i, namespace: `ns-${(i * 7) % 3001}`, images: [`img-${i % 2500}`, `img-${(i * 3) % 2500}`], owner: { kind: i % 2 ? 'ReplicaSet' : 'Job', name: `o-${i % 2100}`, uid: `u-${i % 2100}` } }),
    )
    const text = JSON.stringify(listBody('PodList', pods, 9))
    const want = (JSON.parse(text) as { items: unknown[] }).items.map((o) => podMetaOf(model, o, true))
    for (let pass = 0; pass < 2; pass++) expect(scanPodList(bytesOf(text), model).items).toStrictEqual(want)
  })

  it('list-level duplicates, escapes and mistypes as JSON.parse sees them', async () => {
    const bodies = [
      '{"items":[{"metadata":{"uid":"a"}}],"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"uid":"b"}},5,{}]}',
      '{"metadata":{"resourceVersion":"1","continue":7},"it\\u0065ms":[]}',
      '{"metadata":{"resourceVersion":"1"},"metadata":{"continue":"c"},"items":[]}',
      '{"metadata":[],"items":[]}',
      '{"metadata":{"resourceVersion":""},"items":[]}',
      '{"metadata":{"resourceVersion":"1"},"items":{}}',
      '{"metadata":{"resourceVersion":"1"},"items":[]} x',
      '{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"uid":"\\z"}}]}',
      '[]',
      '7',
      'null',
      '',
    ]
    for (const body of bodies) {
      const want = await listVia(textSpec, [bytesOf(body)])
      expect(await listVia(podsResource(model), [bytesOf(body)]), body).toStrictEqual(want)
      if (!('error' in want)) expect(scanPodList(bytesOf(body), model).items).toStrictEqual(want.items)
    }
    const before = scanCounters.fallbacks
    const bad = await listVia(podsResource(model), [bytesOf('{"items":[1,]}')])
    expect(bad).toMatchObject({ error: expect.stringMatching(/^KubeDecodeError: pods list: body is not JSON \(14 chars\)/) })
    expect(scanCounters.fallbacks).toBe(before)
  })
})

async function watchVia(spec: ResourceSpec<PodMeta>, chunks: Uint8Array[]): Promise<(WatchItem<PodMeta> | { error: string })[]> {
  const conn = await openWatch(memoryClient(chunks), spec, { streamingList: false, resourceVersion: '1', timeoutSeconds: 60, idleTimeoutMs: 5000 })
  const out: (WatchItem<PodMeta> | { error: string })[] = []
  try {
    for (let item = await conn.next(); item; item = await conn.next()) out.push(item)
  } catch (err) {
    out.push({ error: `${(err as Error).name}: ${(err as Error).message}` })
  }
  return out
}

describe('scanPodWatchLine and openWatch', () => {
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

  it('a body equals the text path (LineFramer + JSON.parse), split at every chunk boundary, with a BOM', async () => {
    const b = bin([0xef, 0xbb, 0xbf], lines.join('\n') + '\n')
    const want = await watchVia(textSpec, [b])
    expect(want.map((i) => ('type' in i ? i.type : i.error))).toStrictEqual(['ADDED', 'MODIFIED', 'DELETED', 'MODIFIED', 'ADDED', 'ADDED', 'BOOKMARK', 'ERROR'])
    for (let cut = 0; cut <= b.length; cut++) expect(await watchVia(podsResource(model), cuts(b, cut))).toStrictEqual(want)
    for (let cut = 0; cut + 7 <= b.length; cut += 3) expect(await watchVia(podsResource(model), cuts(b, cut, cut + 1, cut + 7))).toStrictEqual(want)
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
      expect(await watchVia(podsResource(model), [bytesOf(body)]), body).toStrictEqual(want)
    }
    const cut = await watchVia(podsResource(model), [bytesOf('{"type":"ADDED","object":{}}\n{"type"')])
    expect(cut.at(-1)).toStrictEqual({ error: expect.stringMatching(/^KubeTransportError/) })
    expect(new KubeTransportError('x')).toBeInstanceOf(Error)
    expect(new KubeDecodeError('x')).toBeInstanceOf(Error)
  })

  it('scans a line inside a larger buffer without reading past its end', () => {
    const line = '{"type":"ADDED","object":{"metadata":{"uid":"u","resourceVersion":"5"}}}'
    const b = bytesOf(`xx${line}"more":"{"}\n`)
    expect(scanPodWatchLine(b, 2, 2 + line.length, model)).toMatchObject({ type: 'ADDED', resourceVersion: '5', object: { uid: 'u' } })
    for (let end = 2; end < 2 + line.length; end++) expect(() => scanPodWatchLine(b, 2, end, model)).toThrow(JsonScanError)
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
    const page = await fetchListPage(api.client(), podsResource(model), { limit: 500, idleTimeoutMs: 5000 })
    expect(page.items).toStrictEqual(pods.map((p) => podMetaOf(model, JSON.parse(JSON.stringify(p)), true)))

    api.script('/api/v1/pods', (_r, res) => {
      const w = startWatchBody(res)
      for (const p of pods) w.event('MODIFIED', p)
      w.bookmark(600, true)
      w.end()
    })
    const conn = await openWatch(api.client(), podsResource(model), { streamingList: false, resourceVersion: '500', timeoutSeconds: 60, idleTimeoutMs: 5000 })
    const items: WatchItem<PodMeta>[] = []
    for (let item = await conn.next(); item; item = await conn.next()) items.push(item)
    // Watch events' metas are class instances, LIST items' literals (src/model/records.ts): the same fields.
    expect(items.slice(0, -1).map((i) => plain(i.type === 'MODIFIED' ? i.object : undefined))).toStrictEqual(page.items.map(plain))
    expect(items.at(-1)).toStrictEqual({ type: 'BOOKMARK', resourceVersion: '600', initialEventsEnd: true })
  })
})
