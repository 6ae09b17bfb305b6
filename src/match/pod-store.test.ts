// The pod store: what it keeps decodes to what it was given, in either form; owner references are
// shared; compare/keep agree with the metas; settled marks and counters survive slots moving.
import { describe, expect, it } from 'vitest'
import { ctr, ownedBy, pod } from '../../e2e/harness/match-fixtures.ts'
import { createModelContext, type PodMeta } from '../model/index.ts'
import { keptSig, type KeptPod } from './kept-pod.ts'
import { ABSENT, createPodStore, NOT_SETTLED, type StoreSlot } from './pod-store.ts'
import { Differs } from './signature.ts'

interface Entry extends StoreSlot<Entry> {
  readonly n: number
}

function store() {
  const s = createPodStore<Entry>(createModelContext())
  let n = 0
  const add = (meta: PodMeta, listed = false) => s.add(meta, listed, (kept: KeptPod) => ({ meta: kept, n: n++, slot: -1, prev: undefined, next: undefined }))
  return { s, add }
}

/** The values a pod's messages read. */
const values = (m: PodMeta) => ({
  uid: m.uid,
  ip: m.ip,
  hasIp: m.hasIp,
  hostNetwork: m.hostNetwork,
  name: m.name,
  namespace: m.namespace,
  version: m.version,
  containers: m.containers.map((c) => ({ id: c.id, name: c.name, image: c.image })),
})

describe('pod store', () => {
  it('kept pods of one owner share one OwnerRef; an equal fresh reference is replaced by it, a different one is not', () => {
    const { s, add } = store()
    const a = pod('p1', ownedBy('ReplicaSet', 'r1'))
    const b = pod('p2', ownedBy('ReplicaSet', 'r1'))
    const p1 = add(a)
    const p2 = add(b)
    const shared = p1.meta.owner
    expect(shared).not.toBe(a.owner) // the fresh reference is not kept…
    expect(p2.meta.owner).toBe(shared) // …the shared one is
    s.keep(p1, pod('p1', ownedBy('ReplicaSet', 'r1'), { ip: 0x0a000002 }))
    expect(p1.meta.owner).toBe(shared)
    s.keep(p1, pod('p1', ownedBy('ReplicaSet', 'r1', 'other-name'), { ip: 0x0a000002 }))
    expect(p1.meta.owner).not.toBe(shared)
    expect(p1.meta.owner).toEqual({ kind: 'ReplicaSet', uid: 'r1', name: 'other-name' })
    expect(p2.meta.owner).toBe(shared)
  })

  it('listed pods are kept whole, without their resourceVersion, and share their owner reference too; the first keep describes them', () => {
    const { s, add } = store()
    const [p1, p2] = ['p1', 'p2'].map((uid) => add(pod(uid, ownedBy('ReplicaSet', 'r1')), true)) as [Entry, Entry]
    expect(p1.meta.owner).toBe(p2.meta.owner)
    expect([keptSig(p1.meta), p1.meta]).toEqual(['', pod('p1', ownedBy('ReplicaSet', 'r1'), { resourceVersion: '' })])
    const same = pod('p1', ownedBy('ReplicaSet', 'r1'), { resourceVersion: '2' })
    s.settle(p1, 1)
    s.settle(p2, 1)
    expect(s.find(same, 2, false)).toBe(NOT_SETTLED)
    expect(s.found()).toBe(p1)
    expect(s.find(pod('p3', undefined), 1, false)).toBe(ABSENT)
    expect(s.lookup('p1')).toBe(p1)
    expect(s.find(same, 1, false)).toBe(Differs.form) // nothing differs, but it is not described yet
    s.keep(p1, same, Differs.form)
    expect(keptSig(p1.meta)).not.toBe('')
    expect(p1.meta.owner).toBe(p2.meta.owner)
    expect(s.find(same, 1, false)).toBe(0)
    const changed = pod('p2', ownedBy('ReplicaSet', 'r1'), { ip: 0x0a000002 })
    expect(s.find(changed, 1, false)).toBe(Differs.form | Differs.announced)
    expect(s.found()).toBe(p2)
    s.keep(p2, changed)
    s.keep(p1, pod('p1', ownedBy('ReplicaSet', 'r1'), { resourceVersion: '3' })) // unchanged: the kept form stays
    expect(values(s.decode(p2))).toEqual(values(changed))
    expect(values(p2.meta)).toEqual(values(changed))
  })

  it('a relist item equal to a pod kept whole finds it unchanged and leaves it whole; one that differs describes it', () => {
    const { s, add } = store()
    const p1 = add(pod('p1', ownedBy('ReplicaSet', 'r1')), true)
    const whole = p1.meta
    s.settle(p1, 1)
    const relisted = pod('p1', ownedBy('ReplicaSet', 'r1'), { resourceVersion: '2' })
    expect(s.find(relisted, 1, true)).toBe(0)
    expect(s.find(relisted, 1, false)).toBe(Differs.form) // a watch event describes it
    expect(p1.meta).toBe(whole)
    expect(p1.meta).not.toBe(relisted)
    const changed = pod('p1', ownedBy('ReplicaSet', 'r1'), { ip: 0x0a000002 })
    expect(s.find(changed, 1, true)).toBe(Differs.form | Differs.announced)
    s.keep(p1, changed, Differs.form | Differs.announced)
    expect(keptSig(p1.meta)).not.toBe('')
    expect(s.find(changed, 1, true)).toBe(0)
    expect(values(s.decode(p1))).toEqual(values(changed))
  })

  it('decodes a described pod to its values, also right after another pod was kept', () => {
    const { s, add } = store()
    const metas = [
      pod('p1', undefined, { containers: [ctr('a', 'app', 'nginx:1'), ctr('b', 'side', 'busybox')], version: "'busybox','nginx:1'", hostNetwork: true }),
      pod('p2', ownedBy('Job', 'j1'), { ip: 0xfffefdfc, hasIp: false, namespace: 'ns-ü', name: 'n'.repeat(300) }),
    ]
    const pods = metas.map((m) => add(m))
    for (let i = 0; i < 2; i++) for (const k of [0, 1]) expect(values(s.decode(pods[k]!))).toEqual(values(metas[k]!))
  })

  it('a pod with a value too long to describe is kept whole, compared and decoded as such', () => {
    const { s, add } = store()
    const image = `registry/${'x'.repeat(70_000)}`
    const big = pod('p2', undefined, { version: `'${image}'`, containers: [ctr('p2-0', 'c', image)] })
    const p = add(big)
    expect(keptSig(p.meta)).toBe('')
    expect(values(s.decode(p))).toEqual(values(big))
    s.settle(p, 1)
    expect(s.find({ ...big, resourceVersion: '2' }, 1, false)).toBe(Differs.pod)
    s.keep(p, { ...big, ip: 0x0a000009 })
    expect([keptSig(p.meta), p.meta.ip]).toEqual(['', 0x0a000009])
    const small = pod('p2', undefined, { containers: [ctr('p2-0', 'c', 'img:1')] })
    s.keep(p, small) // short again: described
    expect(keptSig(p.meta)).not.toBe('')
    expect(values(p.meta)).toEqual(values(small))
  })

  it('settled marks and the pods without an IP stay right while slots move (removals, growth)', () => {
    const { s, add } = store()
    const all = Array.from({ length: 200 }, (_, i) => add(pod(`12345678-${i}-87654321`, undefined, { hasIp: i % 3 !== 0 })))
    expect(s.withoutIp).toBe(67)
    all.forEach((p, i) => (i % 4 ? s.settle(p, i) : s.unsettle(p)))
    for (let i = 0; i < all.length; i += 5) {
      const p = all[i + 2]!
      s.remove(all[i + 1]!) // moves later members of the probe run, p among them
      expect(s.find(p.meta, i + 2, false) !== NOT_SETTLED).toBe((i + 2) % 4 !== 0)
      expect(s.found()).toBe(p)
      expect(s.lookup(all[i + 1]!.meta.uid)).toBeUndefined()
    }
    expect(s.size).toBe(160)
    expect(s.withoutIp).toBe(all.filter((p, i) => i % 5 !== 1 && !p.meta.hasIp).length)
    const p = s.lookup(all[0]!.meta.uid)!
    s.keep(p, pod(all[0]!.meta.uid, undefined, { hasIp: true, containers: [] }))
    expect(s.withoutIp).toBe(all.filter((q, i) => i % 5 !== 1 && i !== 0 && !q.meta.hasIp).length)
    const moved = all[3]!
    for (let i = 0; i < 1000; i++) add(pod(`grow-${i}`)) // the table grows: slots move
    expect(s.find(moved.meta, 3, false)).toBe(0)
    expect(s.found()).toBe(moved)
    expect(s.all().map((q) => q.n)).toEqual([...all.filter((_, i) => i % 5 !== 1).map((q) => q.n), ...Array.from({ length: 1000 }, (_, i) => 200 + i)])
  })

  it('two stores with their own model contexts share no owner references', () => {
    const a = store()
    const b = store()
    const pa = a.add(pod('p1', ownedBy('ReplicaSet', 'r1')))
    const pb = b.add(pod('p1', ownedBy('ReplicaSet', 'r1')))
    expect(pa.meta.owner).toEqual(pb.meta.owner)
    expect(pa.meta.owner).not.toBe(pb.meta.owner)
  })
})
