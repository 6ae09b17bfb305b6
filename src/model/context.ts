// The model's caches, one set per collector: interned strings, shared owner references, pod
// versions, and the converters' scratch. The collector creates one and hands it to the streams'
// converters and to the core, so that two collectors (or two cores) in one process share nothing.
import { createInterner } from './intern.ts'
import { newOwnerRef } from './records.ts'
import type { ContainerMeta, OwnerRef } from './types.ts'
import { createVersionCache } from './versions.ts'

/** What the model caches hold (for /metrics and the bench), each an estimate in bytes beside its count. */
export interface ModelStats {
  /** Distinct strings interned. */
  readonly strings: number
  readonly stringBytes: number
  /** Bytes of the version cache. */
  readonly versionBytes: number
  /** Shared owner references. */
  readonly ownerRefs: number
  readonly ownerRefBytes: number
}

export interface ModelContext {
  /** One shared instance per distinct short string (bounded: forgotten wholesale past its limit). */
  intern(s: string): string
  /**
   * The pod's `version` (docs/behaviour.md §2): the first `n` of `images` quoted, in UTF-8 byte
   * order, comma-joined, to at most VERSION_MAX_BYTES (versions.ts) bytes of UTF-8. May reorder those entries.
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

/**
 * Bounds of the caches, in estimated bytes (docs/behaviour.md §14): past one, a cache starts
 * afresh. Each also admits only small values (intern.ts, versions.ts, {@link OWNER_REF_MAX_CHARS}),
 * so no one object fills it.
 */
export interface ModelLimits {
  readonly stringBytes: number
  readonly versionBytes: number
  readonly ownerRefBytes: number
}

const DEFAULT_LIMITS: ModelLimits = { stringBytes: 32 << 20, versionBytes: 8 << 20, ownerRefBytes: 16 << 20 }

/** An owner reference whose strings are longer than this in all is not shared (a fresh one each time). */
export const OWNER_REF_MAX_CHARS = 1024
/** What a shared reference costs beside its strings, estimated: the record and its Map entry. */
const OWNER_REF_BYTES = 96

/** A fresh set of model caches. */
export function createModelContext(limits: Partial<ModelLimits> = {}): ModelContext {
  const { stringBytes, versionBytes, ownerRefBytes: ownerRefLimit } = { ...DEFAULT_LIMITS, ...limits }
  const intern = createInterner(stringBytes)
  const cache = createVersionCache(versionBytes)
  // Pods of one owner share one OwnerRef, by owner uid.
  let ownerRefs = new Map<string, OwnerRef>()
  let ownerRefBytes = 0

  function ownerRef(kind: string, uid: string, name: string): OwnerRef {
    const known = ownerRefs.get(uid)
    if (known !== undefined && known.kind === kind && known.name === name) return known
    const chars = kind.length + uid.length + name.length
    if (chars > OWNER_REF_MAX_CHARS) return newOwnerRef(kind, uid, name)
    if (ownerRefBytes >= ownerRefLimit) {
      ownerRefs = new Map()
      ownerRefBytes = 0
    }
    const ref = newOwnerRef(intern(kind), intern(uid), intern(name))
    ownerRefs.set(ref.uid, ref)
    ownerRefBytes += OWNER_REF_BYTES + 2 * chars
    return ref
  }

  return {
    intern,
    versionOf: cache.versionOf,
    ownerRef,
    scratch: { images: [], containers: [] },
    stats: () => ({ strings: intern.size, stringBytes: intern.bytes, versionBytes: cache.bytes, ownerRefs: ownerRefs.size, ownerRefBytes }),
  }
}
