// The model context: each one holds its own caches, and the pure layers keep no state of their own
// at module level (what two collectors or two cores in one process would otherwise share).
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createModelContext } from './context.ts'
import { ownerMetaOf, podMetaOf } from './convert.ts'

const podObject = (uid: string, images: string[], owner: string) => ({
  metadata: { uid, name: `pod-${uid}`, namespace: `ns-${uid}`, ownerReferences: [{ kind: 'ReplicaSet', uid: owner, name: `rs-${owner}`, controller: true }] },
  status: { podIP: '10.0.0.1', containerStatuses: images.map((image, i) => ({ name: `c${i}`, image, containerID: `containerd://${uid}-${i}` })) },
})

describe('model context', () => {
  it('two contexts share no cache: each counts and shares only what went through it', () => {
    const a = createModelContext()
    const b = createModelContext()
    podMetaOf(a, podObject('p1', ['nginx', 'busybox'], 'r1'))
    podMetaOf(a, podObject('p2', ['nginx', 'busybox'], 'r1'))
    ownerMetaOf(a, 'ReplicaSet', { metadata: { uid: 'r1', name: 'rs-r1', namespace: 'ns', ownerReferences: [{ kind: 'Deployment', uid: 'd1', name: 'dep', controller: true }] } })
    expect(b.stats()).toEqual({ strings: 0, stringBytes: 0, versionBytes: 0, ownerRefs: 0, ownerRefBytes: 0 })
    const filled = a.stats()
    expect(filled).toMatchObject({ ownerRefs: 1 })
    expect(filled.versionBytes).toBeGreaterThan(0)
    podMetaOf(b, podObject('p3', ['redis'], 'r2'))
    expect(a.stats()).toEqual(filled)
    expect(b.stats().versionBytes).toBeGreaterThan(0)
    expect(a.ownerRef('ReplicaSet', 'r1', 'rs-r1')).toBe(a.ownerRef('ReplicaSet', 'r1', 'rs-r1'))
    expect(a.ownerRef('ReplicaSet', 'r1', 'rs-r1')).not.toBe(b.ownerRef('ReplicaSet', 'r1', 'rs-r1'))
  })
})

// Module-level `let`/`var`, and `new …` (but a TextEncoder/TextDecoder, which keep no state between
// calls) or `[…]` at module level unless typed read-only, in the non-test sources of the pure
// layers. Allowed, with the reason:
const allowed: Record<string, string> = {
  'src/ingest/lz4-block.ts': 'the lz4-wasm instance, compiled once on first use; each call leaves nothing in it',
}
// Allowed lines, with the reason.
const allowedLines: Record<string, string> = {
  'const EMPTY = new Uint8Array(0)': 'an empty buffer: nothing can be written into it',
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

// The scanner: the JSON byte cursor and the pod layout over it (src/kube).
const scanner = (file: string): boolean => /^(json-|pod-layout|pod-scanner)/.test(file)

describe('the pure layers (src/model, src/match, src/ingest) and the scanner', () => {
  it('keep no mutable state at module level', () => {
    const found: string[] = []
    for (const dir of ['src/model', 'src/match', 'src/ingest', 'src/kube']) {
      for (const file of readdirSync(join(root, dir))) {
        const path = `${dir}/${file}`
        if (!file.endsWith('.ts') || file.endsWith('.test.ts') || path in allowed || (dir === 'src/kube' && !scanner(file))) continue
        readFileSync(join(root, path), 'utf8')
          .split('\n')
          .forEach((line, i) => {
            const mutable = /^(export )?(let|var) /.test(line) || /^(export )?const \w+(: (?!readonly |Readonly)[^=]+)? = (new (?!Text(En|De)coder\()\w|\[)/.test(line)
            if (mutable && !(line in allowedLines)) found.push(`${path}:${i + 1}: ${line.trim()}`)
          })
      }
    }
    expect(found).toEqual([])
  })
})
