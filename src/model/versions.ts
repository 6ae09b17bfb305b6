// Pod versions by their sorted images: a bounded cache that lets pods of one workload share the
// `version` string instead of building it again (docs/behaviour.md §2).
import { compareUtf8 } from './convert.ts'

/** Versions by their (sorted) images, as a trie of Maps keyed by image. */
interface VersionNode {
  version: string
  next: Map<string, VersionNode> | undefined
}

/**
 * A `versionOf` with its own cache of at most `limit` trie nodes (forgotten wholesale past it);
 * `intern` shares the strings it makes.
 */
export function createVersionCache(intern: (s: string) => string, limit: number): { versionOf(images: string[], n: number): string; readonly size: number } {
  let versions = new Map<string, VersionNode>()
  let nodes = 0

  function versionOf(images: string[], n: number): string {
    if (n === 0) return ''
    // Insertion sort: pods have a handful of images.
    for (let i = 1; i < n; i++) {
      const x = images[i]!
      let j = i - 1
      for (; j >= 0 && compareUtf8(images[j]!, x) > 0; j--) images[j + 1] = images[j]!
      images[j + 1] = x
    }
    let level = versions
    let node: VersionNode | undefined
    for (let i = 0; i < n; i++) {
      const image = images[i]!
      node = level.get(image)
      if (node === undefined) {
        if (nodes >= limit) {
          versions = new Map()
          nodes = 0
          level = versions
          i = -1 // start over in the fresh trie
          continue
        }
        node = { version: intern(images.slice(0, i + 1).map((m) => `'${m}'`).join(',')), next: undefined }
        level.set(image, node)
        nodes++
      }
      if (i + 1 < n) level = node.next ??= new Map()
    }
    return node!.version
  }

  return {
    versionOf,
    get size() {
      return nodes
    },
  }
}
