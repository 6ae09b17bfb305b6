// The model's caches under hostile pods (docs/behaviour.md §14): the version of a pod with many or
// long images is exact up to the bytes the wire can carry and enters no cache; long strings and
// owner references are not shared; every cache stays within its byte budget, and what ordinary
// pods share survives a hostile one.
import { describe, expect, it } from 'vitest'
import { truncateUtf8 } from '../util/utf8.ts'
import { createModelContext } from './context.ts'
import { podMetaOf, SHARED_STATUSES } from './convert.ts'
import { VERSION_MAX_BYTES } from './versions.ts'

const utf8Compare = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
const reference = (images: string[]): string => [...images].sort(utf8Compare).map((i) => `'${i}'`).join(',')
const version = (ctx: ReturnType<typeof createModelContext>, images: readonly string[]): string => ctx.versionOf([...images], images.length)

describe('versionOf for hostile pods', () => {
  it('is the reference cut to VERSION_MAX_BYTES at a character boundary, for many images and long ones', () => {
    const ctx = createModelContext()
    const shapes: Record<string, string[]> = {
      '16,000 distinct images': Array.from({ length: 16_000 }, (_, i) => `registry.example/team-${i % 97}/app-${(i * 7919) % 16_000}:v${i}`),
      '4,000 equal images': Array.from({ length: 4_000 }, () => 'nginx:1.25'),
      'one 1 MB image': ['x'.repeat(1 << 20), 'busybox'],
      'multi-byte images across the cut': Array.from({ length: 9_000 }, (_, i) => `é😀${i}`),
      'images just under the cut': ['a'.repeat(VERSION_MAX_BYTES - 2)],
      'images just over the cut': ['a'.repeat(VERSION_MAX_BYTES - 1)],
    }
    for (const [shape, images] of Object.entries(shapes)) {
      const want = truncateUtf8(reference(images), VERSION_MAX_BYTES)
      expect(version(ctx, images), shape).toBe(want)
      expect(Buffer.byteLength(version(ctx, images)), shape).toBeLessThanOrEqual(VERSION_MAX_BYTES)
    }
  })

  it('enters no cache: the version cache neither grows nor forgets the ordinary pods’ versions', () => {
    const ctx = createModelContext()
    const ordinary = version(ctx, ['nginx:1.25', 'busybox'])
    const held = ctx.stats().versionBytes
    for (let pod = 0; pod < 50; pod++) version(ctx, Array.from({ length: 1_000 }, (_, i) => `img-${pod}-${i}`)) // too many images
    for (let pod = 0; pod < 50; pod++) version(ctx, [`${'y'.repeat(5_000)}-${pod}`]) // too long a version
    expect(ctx.stats().versionBytes).toBe(held)
    expect(version(ctx, ['busybox', 'nginx:1.25'])).toBe(ordinary)
  })

  it('keeps the version cache within its byte budget under churn', () => {
    const limit = 64 * 1024
    const ctx = createModelContext({ versionBytes: limit })
    // Four pods of 60 containers whose images change every round (issue 22's churn, admitted in size).
    for (let round = 0; round < 2_000; round++) {
      for (let pod = 0; pod < 4; pod++) version(ctx, Array.from({ length: 60 }, (_, i) => `r${round}-p${pod}-${i}`.padEnd(60, '.')))
      expect(ctx.stats().versionBytes).toBeLessThanOrEqual(limit + 2 * 4096 + 64 * 80)
    }
  })
})

describe('interning and owner references under hostile values', () => {
  it('does not intern a long string, and what was shared stays shared', () => {
    const ctx = createModelContext()
    const ns = ctx.intern(['kube', 'system'].join('-'))
    const before = ctx.stats()
    for (let i = 0; i < 1_000; i++) {
      const long = `${'z'.repeat(2_000)}${i}`
      expect(ctx.intern(long)).toBe(long)
    }
    expect(ctx.stats()).toEqual(before)
    expect(ctx.intern(['kube', 'system'].join('-'))).toBe(ns)
  })

  it('interns the image and name of only a pod’s first SHARED_STATUSES container statuses', () => {
    const ctx = createModelContext()
    const statuses = Array.from({ length: 1_000 }, (_, i) => ({ name: `c-${i}`, image: `img-${i}`, containerID: `containerd://${i}` }))
    const pod = { metadata: { uid: 'u-1', name: 'p', namespace: 'ns' }, status: { podIP: '10.0.0.1', containerStatuses: [7, ...statuses] } }
    const before = ctx.stats().strings
    const meta = podMetaOf(ctx, pod)!
    expect(meta.containers.map((c) => c.image)).toEqual(statuses.map((c) => c.image))
    // The namespace, then an image and a name for each shared status (the entry 7 is no object: not counted).
    expect(ctx.stats().strings - before).toBe(1 + 2 * SHARED_STATUSES)
    expect(podMetaOf(ctx, pod)!.containers[SHARED_STATUSES - 1]!.image).toBe(meta.containers[SHARED_STATUSES - 1]!.image)
  })

  it('keeps the interner within its byte budget', () => {
    const ctx = createModelContext({ stringBytes: 100_000 })
    for (let i = 0; i < 20_000; i++) ctx.intern(`value-${i}`.padEnd(1_000, '.'))
    expect(ctx.stats().stringBytes).toBeLessThanOrEqual(100_000 + 64 + 2 * 1_024)
  })

  it('shares no owner reference with long strings, and keeps the shared ones within the budget', () => {
    const ctx = createModelContext({ ownerRefBytes: 50_000 })
    const web = ctx.ownerRef('ReplicaSet', 'rs-1', 'web')
    const long = 'n'.repeat(5_000)
    expect(ctx.ownerRef('ReplicaSet', 'rs-2', long)).not.toBe(ctx.ownerRef('ReplicaSet', 'rs-2', long))
    expect(ctx.ownerRef('ReplicaSet', 'rs-2', long)).toEqual({ kind: 'ReplicaSet', uid: 'rs-2', name: long })
    expect(ctx.ownerRef('ReplicaSet', 'rs-1', 'web')).toBe(web)
    for (let i = 0; i < 5_000; i++) ctx.ownerRef('ReplicaSet', `uid-${i}`, `name-${i}`.padEnd(400, '.'))
    expect(ctx.stats().ownerRefBytes).toBeLessThanOrEqual(50_000 + 96 + 2 * 1_024)
  })
})
