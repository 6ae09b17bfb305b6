// The pod signature (how the core keeps a pod): what is stored decodes to exactly what was given,
// and the comparisons agree with comparing the metas themselves.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ContainerMeta, OwnerRef, PodMeta } from '../model/index.ts'
import { DescribedPod as StoredPod } from './kept-pod.ts'
import {
  compareMetas,
  compareSignature,
  DecodedPod,
  decodeSignature,
  Differs,
  SignatureWriter,
  signatureHasTuple,
  signatureHasUid,
  signatureTupleCount,
  signatureTuplesIn,
} from './signature.ts'

const writer = new SignatureWriter()
const podSignature = (m: PodMeta): string => writer.write(m)

// Strings from small pools (so that pairs often agree) and from anywhere (any UTF-16 code unit,
// lone surrogates included, and the empty string).
const anyText = fc.string({ unit: 'binary', maxLength: 12 })
const text = (...pool: string[]) => fc.oneof(fc.constantFrom(...pool), anyText)
const arbContainer: fc.Arbitrary<ContainerMeta> = fc.record({ id: text('containerd://a', 'containerd://b', ''), name: text('c0', 'main'), image: text('nginx:1.25', 'busybox', 'ü') })
const arbOwner: fc.Arbitrary<OwnerRef | undefined> = fc.option(fc.record({ kind: text('ReplicaSet', 'Job'), uid: text('r1', 'r2'), name: text('rs-1', 'rs-2') }), { nil: undefined })
const arbPod: fc.Arbitrary<PodMeta> = fc.record({
  uid: text('0a1b2c3d-0000-4000-8000-000000000001', 'p2'),
  name: text('pod-1', 'pod-2'),
  namespace: text('default', 'kube-system'),
  resourceVersion: text('1', '2'),
  ip: fc.oneof(fc.constantFrom(0, 0x0a000001, 0xffffffff), fc.nat({ max: 0xffffffff })),
  hasIp: fc.boolean(),
  hostNetwork: fc.boolean(),
  version: text("'nginx:1.25'", "'busybox','nginx:1.25'"),
  containers: fc.array(arbContainer, { maxLength: 3 }),
  owner: arbOwner,
})

/** A second pod: the first with some of its parts replaced. */
const arbPair = fc.tuple(arbPod, arbPod, fc.record({ announced: fc.boolean(), hasIp: fc.boolean(), owner: fc.boolean(), containers: fc.boolean(), uid: fc.boolean() })).map(
  ([a, b, take]): [PodMeta, PodMeta] => [
    a,
    {
      ...a,
      ...(take.uid ? { uid: b.uid } : {}),
      ...(take.announced ? { ip: b.ip, hostNetwork: b.hostNetwork, name: b.name, namespace: b.namespace, version: b.version } : {}),
      ...(take.hasIp ? { hasIp: b.hasIp } : {}),
      ...(take.owner ? { owner: b.owner } : {}),
      ...(take.containers ? { containers: b.containers } : {}),
      resourceVersion: b.resourceVersion, // never compared
    },
  ],
)

const sameTuple = (x: ContainerMeta, y: ContainerMeta) => x.id === y.id && x.name === y.name && x.image === y.image
const sameOwner = (x: OwnerRef | undefined, y: OwnerRef | undefined) => (x === undefined ? y === undefined : y !== undefined && x.kind === y.kind && x.uid === y.uid && x.name === y.name)

/** The Differs bits comparing the metas field by field gives. */
function expectedDiff(a: PodMeta, b: PodMeta): number {
  if (a.uid !== b.uid) return Differs.pod
  let d = 0
  if (a.ip !== b.ip || a.hostNetwork !== b.hostNetwork || a.name !== b.name || a.namespace !== b.namespace || a.version !== b.version) d |= Differs.announced
  if (a.hasIp !== b.hasIp) d |= Differs.hasIp
  if (!sameOwner(a.owner, b.owner)) d |= Differs.owner
  if (a.containers.length !== b.containers.length || a.containers.some((c, i) => !sameTuple(c, b.containers[i]!))) d |= Differs.containers
  return d
}

describe('pod signature', () => {
  it('a stored pod decodes to exactly the values it was built from (resourceVersion is not kept)', () => {
    fc.assert(
      fc.property(arbPod, (m) => {
        const owner = m.owner
        const s = new StoredPod(m, owner, podSignature(m))
        expect(s.sig).toBe(podSignature(m))
        expect({ uid: s.uid, name: s.name, namespace: s.namespace, version: s.version, containers: s.containers }).toStrictEqual({
          uid: m.uid,
          name: m.name,
          namespace: m.namespace,
          version: m.version,
          containers: m.containers.map((c) => ({ ...c })),
        })
        expect([s.ip, s.hasIp, s.hostNetwork, s.owner, s.resourceVersion]).toEqual([m.ip, m.hasIp, m.hostNetwork, owner, ''])
        const d = decodeSignature(s.sig, owner, (x) => x, (n) => new DecodedPod(n))
        expect([d.uid, d.name, d.namespace, d.version, d.containers.length]).toEqual([m.uid, m.name, m.namespace, m.version, m.containers.length])
        expect([d.ip, d.hasIp, d.hostNetwork, d.owner]).toEqual([m.ip, m.hasIp, m.hostNetwork, owner])
        expect(d.containers.map((c) => ({ ...c }))).toEqual(m.containers.map((c) => ({ ...c })))
      }),
      { numRuns: 2000 },
    )
  })

  it('compareSignature reports exactly the parts that differ (0 iff the signatures are equal)', () => {
    fc.assert(
      fc.property(arbPair, ([a, b]) => {
        const sig = podSignature(a)
        const diff = compareSignature(sig, b)
        expect(diff).toBe(expectedDiff(a, b))
        expect(diff === 0).toBe(sig === podSignature(b))
        expect(signatureHasUid(sig, b.uid)).toBe(a.uid === b.uid)
        if (sig !== '') expect(compareMetas(a, b)).toBe(diff) // the same for a pod kept whole
      }),
      { numRuns: 3000 },
    )
  })

  it('the tuple look-ups agree with the container list', () => {
    fc.assert(
      fc.property(arbPod, fc.array(arbContainer, { maxLength: 3 }), (m, others) => {
        const sig = podSignature(m)
        expect(signatureTupleCount(sig)).toBe(m.containers.length)
        for (const c of [...m.containers, ...others]) expect(signatureHasTuple(sig, c)).toBe(m.containers.some((x) => sameTuple(x, c)))
        expect(signatureTuplesIn(sig, others)).toBe(m.containers.every((c) => others.some((x) => sameTuple(x, c))))
        expect(signatureTuplesIn(sig, m.containers)).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })

  it.each([0, 1, 2, 3])('an IP differing in its byte %i alone differs', (k) => {
    const m: PodMeta = { uid: 'u', name: 'n', namespace: 'ns', resourceVersion: '1', ip: 0x0a0b0c0d, hasIp: true, hostNetwork: false, version: '', containers: [], owner: undefined }
    expect(compareSignature(podSignature(m), { ...m, ip: (m.ip ^ (1 << (8 * k))) >>> 0 })).toBe(Differs.announced)
  })

  it.each([255, 256, 1023, 1024, 4097, 0xffff])('a value of %i code units is described and compared by its whole length', (n) => {
    const m: PodMeta = { uid: 'u', name: 'n'.repeat(n), namespace: 'ns', resourceVersion: '1', ip: 1, hasIp: true, hostNetwork: false, version: '', containers: [], owner: undefined }
    const s = new StoredPod(m, undefined, podSignature(m))
    expect([s.name.length, s.namespace, compareSignature(s.sig, m)]).toEqual([n, 'ns', 0])
    expect(compareSignature(s.sig, { ...m, name: 'n'.repeat(n - 1) })).toBe(Differs.announced)
  })

  it('a Latin-1 pod has a signature of code units up to 0xFF (a one-byte string in V8)', () => {
    const m: PodMeta = {
      uid: 'u',
      name: 'n'.repeat(300), // a length over 0xFF: two code units
      namespace: 'ns',
      resourceVersion: '1',
      ip: 0xfffefdfc,
      hasIp: true,
      hostNetwork: true,
      version: "'ü'",
      containers: Array.from({ length: 3 }, (_, i) => ({ id: `id${i}`, name: 'c', image: 'ü' })),
      owner: { kind: 'ReplicaSet', uid: 'r', name: 'rs' },
    }
    const sig = podSignature(m)
    expect([...sig].every((ch) => ch.charCodeAt(0) <= 0xff)).toBe(true)
    expect(new StoredPod(m, m.owner, sig).name).toBe(m.name)
  })

  it('a value longer than 65,535 code units: the signature is empty and matches nothing', () => {
    const m: PodMeta = {
      uid: 'u',
      name: 'n',
      namespace: 'ns',
      resourceVersion: '1',
      ip: 1,
      hasIp: true,
      hostNetwork: false,
      version: "'x'",
      containers: [{ id: 'id', name: 'c', image: 'x'.repeat(0x10000) }],
      owner: undefined,
    }
    expect(podSignature(m)).toBe('')
    expect(compareSignature('', m)).toBe(Differs.pod)
    expect(podSignature({ ...m, containers: [{ id: 'id', name: 'c', image: 'x'.repeat(0xffff) }] })).not.toBe('') // the longest that fits
  })
})
