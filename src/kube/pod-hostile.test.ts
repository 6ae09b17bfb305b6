// Hostile but valid pods through the byte scanner (issue 22): long strings, escape-heavy strings,
// deep nesting, many statuses, owner references and IPs each read exactly as JSON.parse +
// podMetaOf reads them, with the work that must not grow with them counted through the model
// (what is interned, what the cache keeps, how often versions are made); and whatever the scanner
// throws ends as a KubeDecodeError of that body or line, never an unlabelled error.
import { describe, expect, it } from 'vitest'
import { createModelContext } from '../model/context.ts'
import { podMetaOf } from '../model/convert.ts'
import type { PodMeta } from '../model/types.ts'
import { memoryClient } from '../../e2e/harness/memory-client.ts'
import { listBody, podObject } from '../../e2e/harness/fake-apiserver.ts'
import { bytesOf } from '../../e2e/harness/json-text.ts'
import { KubeDecodeError } from './errors.ts'
import { JsonScanError } from './json-skip.ts'
import { fetchListPage } from './list.ts'
import type { PodModel } from './pod-layout.ts'
import { createPodScanner } from './pod-scanner.ts'
import { podsResource } from './resources.ts'
import { openWatch } from './watch.ts'

const model = createModelContext()
const podSpec = podsResource(model)

type Json = Record<string, any>

/** The model's interner, versions and shared owner references, with every call recorded. */
function countingModel(): PodModel & { interned: string[]; versions: number[]; refs: string[][] } {
  const { intern, versionOf, ownerRef } = createModelContext()
  const interned: string[] = []
  const versions: number[] = []
  const refs: string[][] = []
  return {
    interned,
    versions,
    refs,
    intern: (s) => (interned.push(s), intern(s)),
    versionOf: (images, n) => (versions.push(n), versionOf(images, n)),
    ownerRef: (kind, uid, name) => (refs.push([kind, uid, name]), ownerRef(kind, uid, name)),
  }
}

const HOLE = '"@@hole@@"'
/** A watch line of a regular pod with `patch` applied; `raw` (JSON text) as the value of annotation `hole`. */
function podLine(patch: (p: Json) => void = () => {}, raw = ''): string {
  const p = podObject({ name: 'web-1', uid: 'u-1', rv: 7, ip: '10.0.0.7', images: ['nginx', 'busybox'], owner: { kind: 'ReplicaSet', name: 'web', uid: 'rs-1' } }) as Json
  if (raw) p.metadata.annotations = { hole: HOLE.slice(1, -1) }
  patch(p)
  const text = JSON.stringify({ type: 'MODIFIED', object: p })
  return raw ? text.replace(HOLE, raw) : text
}

/** Scans `text` as a watch line and asserts it equals the JSON.parse path; returns the meta. */
function agree(text: string, scanModel: PodModel = countingModel()): PodMeta | undefined {
  const want = podMetaOf(model, (JSON.parse(text) as Json).object)
  const b = bytesOf(text)
  const got = createPodScanner(scanModel).watchLine(b, 0, b.length).object
  expect(got).toStrictEqual(want)
  return got
}

const MB = 1 << 20

describe('hostile pods: long strings', () => {
  it.each([
    ['name', (p: Json, s: string) => (p.metadata.name = s)],
    ['namespace', (p: Json, s: string) => (p.metadata.namespace = s)],
    ['uid', (p: Json, s: string) => (p.metadata.uid = s)],
    ['image', (p: Json, s: string) => (p.status.containerStatuses[0].image = s)],
    ['containerID', (p: Json, s: string) => (p.status.containerStatuses[0].containerID = s)],
    ['owner uid', (p: Json, s: string) => (p.metadata.ownerReferences[0].uid = s)],
    ['skipped annotation', (p: Json, s: string) => (p.metadata.labels = { big: s })],
  ])('a 1 MB %s is read as JSON.parse reads it', (_what, set) => {
    agree(podLine((p) => set(p, 'x'.repeat(MB))))
    agree(podLine((p) => set(p, 'é😀'.repeat(MB / 6))))
  })

  it('the string cache keeps values up to 256 bytes: longer ones are interned on every read, never kept', () => {
    const model = countingModel()
    const scanner = createPodScanner(model)
    const sizes = [255, 256, 257, 4096, MB]
    const lines = sizes.map((n) => bytesOf(podLine((p) => (p.status.containerStatuses[0].image = 'i'.repeat(n)))))
    for (let pass = 0; pass < 3; pass++) for (const b of lines) scanner.watchLine(b, 0, b.length)
    const times = (n: number): number => model.interned.filter((s) => s.length === n).length
    expect(sizes.map(times)).toStrictEqual([1, 1, 3, 3, 3])
  })
})

describe('hostile pods: escapes', () => {
  it('values made of escapes and surrogate pairs, extracted or skipped, read as JSON.parse reads them', () => {
    const escapes = '\\u00e9\\ud83d\\ude00\\u0041\\n\\"\\\\\\u4e2d\\/'.repeat(20_000) // 760 KB
    const text = podLine(() => {}, `"${escapes}"`)
    const meta = agree(text.replace('"name":"web-1"', `"name":"${escapes}"`).replaceAll('"image":"nginx"', `"image":"x${escapes}"`))!
    expect(meta.name.length).toBe(9 * 20_000)
    agree(podLine(() => {}, `"${'\\ud800'.repeat(50_000)}"`).replace('"uid":"u-1"', `"uid":"${'\\udfff\\ud800x'.repeat(50_000)}"`))
  })

  it('escaped keys, many of them, last one wins', () => {
    expect(agree(podLine().replace('"name":"web-1"', '"\\u006eame":"x",'.repeat(50_000) + '"n\\u0061me":"web-2"'))!.name).toBe('web-2')
  })
})

describe('hostile pods: nesting', () => {
  it.each([
    ['arrays', (d: number) => '['.repeat(d) + ']'.repeat(d)],
    ['objects', (d: number) => '{"a":'.repeat(d) + 'null' + '}'.repeat(d)],
    ['both', (d: number) => '[{"a":'.repeat(d / 2) + '[]' + '}]'.repeat(d / 2)],
  ])('300,000 levels of %s in a skipped field: read as JSON.parse reads it, or rejected as it rejects it', (_kind, nest) => {
    const scanner = createPodScanner(countingModel())
    const deep = nest(300_000)
    agree(podLine(() => {}, deep))
    for (const bad of [deep.slice(0, -1), deep.slice(0, 150_000) + ']' + deep.slice(150_000)]) {
      const text = podLine(() => {}, bad)
      expect(() => JSON.parse(text)).toThrow(SyntaxError)
      expect(() => scanner.watchLine(bytesOf(text), 0, text.length)).toThrow(JsonScanError)
    }
    // The scanner goes on as before.
    const ok = bytesOf(podLine())
    expect(scanner.watchLine(ok, 0, ok.length).object?.uid).toBe('u-1')
  })
})

describe('hostile pods: many entries', () => {
  const N = 16_000

  it('many containerStatuses: one version of all images; names read only for containers with an id', () => {
    const model = countingModel()
    const n = 2_000
    const statuses = Array.from({ length: n }, (_, i) => (i % 2 ? { name: `named-${i}`, image: `img-${i}` } : { name: `c-${i}`, image: `img-${i}`, containerID: `containerd://${i}` }))
    const meta = agree(podLine((p) => (p.status.containerStatuses = statuses)), model)!
    expect(meta.containers).toHaveLength(n / 2)
    expect(model.versions).toStrictEqual([n])
    expect(model.interned.filter((s) => s.startsWith('named-'))).toStrictEqual([])
  })

  it('many containerStatuses: only the first 64 share their strings, the rest are the pod\'s own', () => {
    const counted = countingModel()
    const n = 1_000
    const statuses = Array.from({ length: n }, (_, i) => ({ name: `c-${i}`, image: `img-${i}`, containerID: `containerd://${i}` }))
    const line = podLine((p) => (p.status.containerStatuses = [{ name: 'skipped', image: 7 }, ...statuses]))
    const scanner = createPodScanner(counted)
    for (let pass = 0; pass < 2; pass++) {
      const b = bytesOf(line)
      expect(scanner.watchLine(b, 0, b.length).object).toStrictEqual(podMetaOf(model, (JSON.parse(line) as Json).object))
    }
    // Entry 0 is an object too (its image not a string): 63 of the statuses are shared.
    const shared = Array.from({ length: 63 }, (_, i) => [`img-${i}`, `c-${i}`]).flat()
    expect(new Set(counted.interned.filter((s) => /^(img|c)-/.test(s)))).toStrictEqual(new Set(shared))
  })

  it('many ownerReferences: the controller found after them, no string made of the others', () => {
    const model = countingModel()
    const refs = Array.from({ length: N }, (_, i) => ({ kind: 'ConfigMap', name: `cm-${i}`, uid: `cm-uid-${i}`, controller: i === N - 1 }))
    const line = podLine((p) => (p.metadata.ownerReferences = [...refs, { kind: 'ReplicaSet', name: 'late', uid: 'x', controller: true }]))
    const meta = agree(line, model)!
    expect({ ...meta.owner }).toStrictEqual({ kind: 'ConfigMap', name: `cm-${N - 1}`, uid: `cm-uid-${N - 1}` })
    // The controller's uid and name are read as they are (not interned, not cached: one owner's),
    // the other entries' not at all; a first LIST's item asks the model for the shared reference once.
    expect(model.interned.filter((s) => s.startsWith('cm-'))).toStrictEqual([])
    const page = bytesOf(JSON.stringify(listBody('PodList', [(JSON.parse(line) as Json).object], 1)))
    const listedModel = countingModel()
    const listed = createPodScanner(listedModel).list(page, true).items![0]!
    expect(listed.owner).toBe(listedModel.ownerRef('ConfigMap', `cm-uid-${N - 1}`, `cm-${N - 1}`))
    expect(listedModel.refs.slice(0, -1)).toStrictEqual([['ConfigMap', `cm-uid-${N - 1}`, `cm-${N - 1}`]])
    expect(listedModel.interned.filter((s) => s.startsWith('cm-'))).toStrictEqual([])
  })

  it('many podIPs, labels, statuses without objects, metadata given again and again', () => {
    agree(podLine((p) => ((p.status.podIP = 'fd00::1'), (p.status.podIPs = [...Array.from({ length: N }, (_, i) => ({ ip: `fd00::${i.toString(16)}` })), { ip: '10.1.2.3' }]))))
    agree(podLine((p) => (p.metadata.labels = Object.fromEntries(Array.from({ length: N }, (_, i) => [`l-${i}`, `v-${i}`])))))
    agree(podLine((p) => (p.status.containerStatuses = Array.from({ length: N }, (_, i) => (i % 3 ? i : null)))))
    expect(agree(podLine().replace('"metadata":', '"metadata":{"uid":"x","name":"y"},'.repeat(N) + '"metadata":'))!.uid).toBe('u-1')
  })
})

describe('hostile pods: whatever the scanner throws is the body’s or the line’s failure', () => {
  const failing: PodModel = {
    intern: () => {
      throw new RangeError('Invalid string length')
    },
    versionOf: model.versionOf,
    ownerRef: model.ownerRef,
  }
  const spec = { ...podSpec, scan: createPodScanner(failing) }

  it('a LIST page: KubeDecodeError with the cause', async () => {
    const body = bytesOf(JSON.stringify(listBody('PodList', [podObject({ name: 'a', rv: 1 })], 5)))
    const err = await fetchListPage(memoryClient([body]), spec, { limit: 500, idleTimeoutMs: 5000 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KubeDecodeError)
    expect((err as Error).message).toMatch(/^pods list: body of \d+ bytes cannot be read: RangeError: Invalid string length$/)
    expect((err as Error).cause).toBeInstanceOf(RangeError)
  })

  it('a watch line of no known type, however deep or long its type: a short KubeDecodeError', async () => {
    for (const [type, shown] of [
      ['['.repeat(300_000) + ']'.repeat(300_000), 'an array'],
      [`"${'t'.repeat(MB)}"`, `"${'t'.repeat(60)}…"`],
    ]) {
      const conn = await openWatch(memoryClient([bytesOf(`{"type":${type},"object":{}}\n`)]), podSpec, { streamingList: false, resourceVersion: '1', timeoutSeconds: 60, idleTimeoutMs: 5000 })
      const err = await conn.next().catch((e: unknown) => e)
      expect(err).toStrictEqual(new KubeDecodeError(`pods watch: unknown event type ${shown}`))
    }
  })

  it('a watch line: KubeDecodeError with the cause; the scanner reads the next body', async () => {
    const conn = await openWatch(memoryClient([bytesOf(podLine() + '\n')]), spec, { streamingList: false, resourceVersion: '1', timeoutSeconds: 60, idleTimeoutMs: 5000 })
    const err = await conn.next().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KubeDecodeError)
    expect((err as Error).message).toMatch(/^pods watch: line of \d+ bytes cannot be read: RangeError: Invalid string length$/)
    const ok = bytesOf('{"type":"DELETED","object":{"metadata":{"uid":"u","resourceVersion":"9"}}}')
    expect(spec.scan.watchLine(ok, 0, ok.length)).toMatchObject({ type: 'DELETED', resourceVersion: '9', object: { uid: 'u' } })
  })
})
