// The model's caches, one set per collector: interned strings, shared owner references, pod
// versions, and the converters' scratch. The collector creates one and hands it to the streams'
// converters and to the core, so that two collectors (or two cores) in one process share nothing.
import { createInterner } from './intern.ts'
import { newOwnerRef } from './records.ts'
import type { ContainerMeta, OwnerRef } from './types.ts'
import { createVersionCache } from './versions.ts'

/** What the model caches hold (for /metrics). */
export interface ModelStats {
  /** Distinct strings interned. */
  readonly strings: number
  /** Nodes of the version cache. */
  readonly versions: number
  /** Shared owner references. */
  readonly ownerRefs: number
}

export interface ModelContext {
  /** One shared instance per distinct string (bounded: forgotten wholesale past its limit). */
  intern(s: string): string
  /**
   * The pod's `version` (docs/behaviour.md §2): the first `n` of `images` quoted, in UTF-8 byte
   * order, comma-joined. Sorts those entries in place.
   */
  versionOf(images: string[], n: number): string
  /** The OwnerRef shared by every holder of these strings (interned when first seen). */
  ownerRef(kind: string, uid: string, name: string): OwnerRef
  /**
   * Arrays the converters (convert.ts) gather a pod's images and started containers in, reused by
   * every call (nothing keeps them): counted, never truncated, as `length = 0` would drop their
   * backing stores.
   */
  readonly scratch: { readonly images: string[]; readonly containers: ContainerMeta[] }
  stats(): ModelStats
}

/** Bounds of the caches, in entries. */
export interface ModelLimits {
  readonly strings: number
  readonly versions: number
  readonly ownerRefs: number
}

const DEFAULT_LIMITS: ModelLimits = { strings: 200_000, versions: 50_000, ownerRefs: 100_000 }

/** A fresh set of model caches. */
export function createModelContext(limits: Partial<ModelLimits> = {}): ModelContext {
  const { strings, versions, ownerRefs: ownerRefsLimit } = { ...DEFAULT_LIMITS, ...limits }
  const intern = createInterner(strings)
  const cache = createVersionCache(intern, versions)
  // Pods of one owner share one OwnerRef, by owner uid.
  let ownerRefs = new Map<string, OwnerRef>()

  function ownerRef(kind: string, uid: string, name: string): OwnerRef {
    const known = ownerRefs.get(uid)
    if (known !== undefined && known.kind === kind && known.name === name) return known
    if (ownerRefs.size >= ownerRefsLimit) ownerRefs = new Map()
    const ref = newOwnerRef(intern(kind), intern(uid), intern(name))
    ownerRefs.set(ref.uid, ref)
    return ref
  }

  return {
    intern,
    versionOf: cache.versionOf,
    ownerRef,
    scratch: { images: [], containers: [] },
    stats: () => ({ strings: intern.size, versions: cache.size, ownerRefs: ownerRefs.size }),
  }
}
