// versionOf against a plain reference: images quoted, sorted by UTF-8 bytes, comma-joined
// (docs/behaviour.md §2), whatever the order of calls that filled its trie.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createModelContext } from './context.ts'
import { podMetaOf } from './convert.ts'
import { podMetaFields } from '../../e2e/harness/match-fixtures.ts'

function reference(images: string[]): string {
  const sorted = [...images].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')))
  return sorted.map((i) => `'${i}'`).join(',')
}

// A small alphabet, so that image lists share prefixes and trie nodes; astral and BMP characters
// above the surrogates, where UTF-16 order and UTF-8 order differ.
const image = fc.string({ unit: fc.constantFrom('a', 'b', ':', '1', '\u00e9', '\uff21', '\u{1F600}'), maxLength: 4 })

describe('versionOf', () => {
  const ctx = createModelContext()
  const versionOf = (images: string[]) => ctx.versionOf(images, images.length)
  it('equals the reference for any sequence of image lists', () => {
    fc.assert(
      fc.property(fc.array(fc.array(image, { maxLength: 4 }), { minLength: 1, maxLength: 30 }), (lists) => {
        for (const images of lists) expect(versionOf([...images])).toBe(reference(images))
      }),
      { numRuns: 500 },
    )
  })

  it('examples', () => {
    expect(versionOf([])).toBe('')
    expect(versionOf(['nginx:1.25', 'busybox'])).toBe("'busybox','nginx:1.25'")
    expect(versionOf(['busybox'])).toBe("'busybox'")
    expect(versionOf(['\uff21', '\u{1F600}'])).toBe("'\uff21','\u{1F600}'")
  })
})

describe('ownerRef', () => {
  it('shares one object per owner, and a changed name or kind gets its own', () => {
    const { ownerRef } = createModelContext()
    const a = ownerRef('ReplicaSet', 'u-1', 'web-1')
    expect(ownerRef('ReplicaSet', 'u-1', 'web-1')).toBe(a)
    expect(ownerRef('ReplicaSet', 'u-1', 'web-2')).toEqual({ kind: 'ReplicaSet', uid: 'u-1', name: 'web-2' })
    expect(ownerRef('Job', 'u-1', 'web-2')).toEqual({ kind: 'Job', uid: 'u-1', name: 'web-2' })
  })
})

describe('podMetaOf: LIST items and watch events', () => {
  // The two are built differently (src/model/records.ts: a LIST item is kept as the core keeps it)
  // and must not differ otherwise: the same values, but for what the core does not keep (a LIST
  // item has no resourceVersion) and shares (its owner reference is the shared one).
  const pod = (withOwner: boolean) => ({
    metadata: {
      uid: 'u-1',
      name: 'web-1',
      namespace: 'shop',
      resourceVersion: '7',
      ...(withOwner ? { ownerReferences: [{ kind: 'ReplicaSet', uid: 'rs-1', name: 'web', controller: true }] } : {}),
    },
    spec: { hostNetwork: true },
    status: {
      podIP: '10.0.0.7',
      containerStatuses: [
        { name: 'app', image: 'nginx', containerID: 'containerd://a' },
        { name: 'side', image: 'busybox', containerID: '' },
      ],
    },
  })
  for (const withOwner of [true, false]) {
    it(`gives the same meta, field for field (${withOwner ? 'with' : 'without'} an owner)`, () => {
      const ctx = createModelContext()
      const listed = podMetaOf(ctx, pod(withOwner), true)!
      const watched = podMetaOf(ctx, pod(withOwner))!
      expect(podMetaFields(listed)).toStrictEqual({ ...podMetaFields(watched), resourceVersion: '' })
      expect([watched.resourceVersion, listed.owner === ctx.ownerRef('ReplicaSet', 'rs-1', 'web')]).toEqual(['7', withOwner])
      expect(listed.containers).toHaveLength(1)
      expect(watched.owner === undefined).toBe(!withOwner)
    })
  }
})
