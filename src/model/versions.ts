// Pod versions (docs/behaviour.md §2, §14): a pod's images quoted, in UTF-8 byte order,
// comma-joined, kept to the part the wire can carry. Pods of a workload share one string through a
// cache bounded in bytes that admits only pods with few, short images: a pod with many or long
// images costs its own size, once, and pushes no other pod's version out.
import { compareUtf8 } from './utf8-order.ts'
import { truncateUtf8, utf8Length } from '../util/utf8.ts'

/**
 * The longest `version` kept, in UTF-8 bytes: `version` is the last blob of `pod_new_with_name`,
 * which is shortened to fit 64 KiB (docs/protocol.md §1.3), so no byte past this one is ever sent.
 */
export const VERSION_MAX_BYTES = 0xffff

/** Pods with more images, or a longer version, than these are not cached (the admission rule). */
const ADMIT_IMAGES = 64
const ADMIT_CHARS = 4096
/** What a trie node costs beside its version string, estimated: the node and its Map entry. */
const NODE_BYTES = 80

/** Versions by their sorted images, as a trie of Maps keyed by image; a node has its version once a pod ended there. */
interface VersionNode {
  version: string | undefined
  next: Map<string, VersionNode> | undefined
}

export interface VersionCache {
  /** The version of the first `n` of `images` (may reorder those entries). */
  versionOf(images: string[], n: number): string
  /** Estimated bytes the cache holds. */
  readonly bytes: number
}

/** A version cache holding at most about `maxBytes` (forgotten wholesale past it). */
export function createVersionCache(maxBytes: number): VersionCache {
  let root = new Map<string, VersionNode>()
  let bytes = 0

  function versionOf(images: string[], n: number): string {
    if (n === 0) return ''
    const sorted = sortImages(images, n)
    if (n > ADMIT_IMAGES) return joinVersion(sorted, n)
    let chars = n - 1
    for (let i = 0; i < n; i++) chars += sorted[i]!.length + 2
    if (chars > ADMIT_CHARS) return joinVersion(sorted, n)
    if (bytes > maxBytes) {
      root = new Map()
      bytes = 0
    }
    let level = root
    let node: VersionNode | undefined
    for (let i = 0; i < n; i++) {
      const image = sorted[i]!
      node = level.get(image)
      if (node === undefined) {
        node = { version: undefined, next: undefined }
        level.set(image, node)
        bytes += NODE_BYTES
      }
      if (i + 1 < n) level = node.next ??= new Map()
    }
    if (node!.version === undefined) {
      node!.version = joinVersion(sorted, n)
      bytes += 2 * chars
    }
    return node!.version
  }

  return {
    versionOf,
    get bytes() {
      return bytes
    },
  }
}

/** The first `n` of `images` in UTF-8 byte order: in place for a handful, else in a sorted copy (N log N). */
function sortImages(images: string[], n: number): string[] {
  if (n > 16) return images.slice(0, n).sort(compareUtf8)
  for (let i = 1; i < n; i++) {
    const x = images[i]!
    let j = i - 1
    for (; j >= 0 && compareUtf8(images[j]!, x) > 0; j--) images[j + 1] = images[j]!
    images[j + 1] = x
  }
  return images
}

/** The sorted images quoted and comma-joined, to at most {@link VERSION_MAX_BYTES}: one pass, one flat string. */
function joinVersion(sorted: readonly string[], n: number): string {
  const parts: string[] = []
  let left = VERSION_MAX_BYTES
  for (let i = 0; i < n && left > 0; i++) {
    const part = `${i === 0 ? '' : ','}'${sorted[i]!}'`
    const size = utf8Length(part)
    if (size > left) {
      parts.push(truncateUtf8(part, left))
      break
    }
    parts.push(part)
    left -= size
  }
  return parts.join('')
}
