// Converters from parsed Kubernetes JSON objects to the compact metas (docs/behaviour.md §2).
import { createInterner } from './intern.ts'
import { listedContainerMeta, listedPodMeta, newContainerMeta, newOwnerRef, newPodMeta } from './records.ts'
import type { ContainerMeta, OwnerKind, OwnerMeta, OwnerRef, PodMeta } from './types.ts'

// Strings that repeat across objects (namespaces, kinds, owner names, container names, images,
// versions) are interned so that retained metas share them (shared with the byte scanner, src/kube/scan.ts).
export const intern = createInterner()

// The API server sends JSON; these readers accept anything and fall back to the spec's defaults
// (docs/behaviour.md §9), so a malformed object can never throw here.
type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

// Pods of one owner share one OwnerRef (bounded like the interner: forgotten wholesale past the limit).
const OWNER_REFS_LIMIT = 100_000
let ownerRefs = new Map<string, OwnerRef>()

/** The shared OwnerRef for these strings (interned when first seen). */
export function ownerRef(kind: string, uid: string, name: string): OwnerRef {
  const known = ownerRefs.get(uid)
  if (known !== undefined && known.kind === kind && known.name === name) return known
  if (ownerRefs.size >= OWNER_REFS_LIMIT) ownerRefs = new Map()
  const ref = newOwnerRef(intern(kind), intern(uid), intern(name))
  ownerRefs.set(ref.uid, ref)
  return ref
}

/**
 * The first `controller: true` ownerReference, if any (docs/behaviour.md §2). `shared`: the one shared
 * OwnerRef for it (owners' controllers); else a fresh one, which the core swaps for the shared one
 * when it keeps the pod (src/match/core.ts) — a pod it already holds then costs no lookup.
 */
export function controllerOf(metadata: Json, shared = true): OwnerRef | undefined {
  const refs = metadata.ownerReferences
  if (!Array.isArray(refs)) return undefined
  for (const ref of refs) {
    if (isObject(ref) && ref.controller === true) {
      return shared ? ownerRef(str(ref.kind), str(ref.uid), str(ref.name)) : newOwnerRef(str(ref.kind), str(ref.uid), str(ref.name))
    }
  }
  return undefined
}

/**
 * Parses a dotted IPv4 address into a u32 whose big-endian bytes are the octets; -1 when `s` is
 * not an IPv4 address (IPv6, empty, garbage).
 */
export function parseIpv4(s: string): number {
  let value = 0
  let octet = 0
  let digits = 0
  let dots = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      octet = octet * 10 + (c - 48)
      if (++digits > 3 || octet > 255) return -1
    } else if (c === 46 && digits > 0 && dots < 3) {
      value = value * 256 + octet
      octet = 0
      digits = 0
      dots++
    } else {
      return -1
    }
  }
  if (dots !== 3 || digits === 0) return -1
  return value * 256 + octet
}

/** Formats a u32 from {@link parseIpv4} back to dotted notation. */
export function formatIpv4(ip: number): string {
  return `${(ip >>> 24) & 255}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`
}

/**
 * Compares two strings in UTF-8 byte order (= code point order), which differs from JavaScript's
 * UTF-16 order when a supplementary character meets one in U+E000–U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const xs = x >= 0xd800 && x <= 0xdfff
    const ys = y >= 0xd800 && y <= 0xdfff
    if (xs && !ys && y >= 0xe000) return 1
    if (ys && !xs && x >= 0xe000) return -1
    return x - y
  }
  return a.length - b.length
}

// Versions by their (sorted) images, as a trie of Maps keyed by image: pods of one workload find
// theirs without building and hashing the joined string (bounded: forgotten wholesale past the limit).
interface VersionNode {
  version: string
  next: Map<string, VersionNode> | undefined
}
const VERSIONS_LIMIT = 50_000
let versions = new Map<string, VersionNode>()
let versionNodes = 0

/**
 * The pod's `version`: its non-empty images quoted, in UTF-8 byte order, comma-joined. Reads the
 * first `n` entries of `images` and sorts them in place.
 */
export function versionOf(images: string[], n = images.length): string {
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
      if (versionNodes >= VERSIONS_LIMIT) {
        versions = new Map()
        versionNodes = 0
        level = versions
        i = -1 // start over in the fresh trie
        continue
      }
      node = { version: intern(images.slice(0, i + 1).map((m) => `'${m}'`).join(',')), next: undefined }
      level.set(image, node)
      versionNodes++
    }
    if (i + 1 < n) level = node.next ??= new Map()
  }
  return node!.version
}

/** The first IPv4 address among `status.podIP` and `status.podIPs[*].ip` (u32), or 0 (docs/behaviour.md §2). */
function podIpOf(status: Json, podIP: string): number {
  let ip = podIP ? parseIpv4(podIP) : -1
  if (ip < 0 && Array.isArray(status.podIPs)) {
    for (const entry of status.podIPs) {
      if (!isObject(entry)) continue
      ip = parseIpv4(str(entry.ip))
      if (ip >= 0) break
    }
  }
  return ip < 0 ? 0 : ip
}

// Scratch arrays reused by every podMetaOf call (nothing keeps them): a pod's images and started
// containers are gathered here and copied out at their exact size, instead of growing fresh arrays.
const imagesScratch: string[] = []
const containersScratch: ContainerMeta[] = []

/**
 * Converts a `v1/Pod` JSON object to a {@link PodMeta}; `undefined` when it has no
 * `metadata.uid` (docs/behaviour.md §9: ignored, the caller counts it). `listed`: the object is a LIST
 * item, not a watch event's (the same meta, allocated otherwise: src/model/records.ts).
 */
export function podMetaOf(obj: unknown, listed = false): PodMeta | undefined {
  if (!isObject(obj) || !isObject(obj.metadata)) return undefined
  const metadata = obj.metadata
  const uid = str(metadata.uid)
  if (!uid) return undefined
  const spec = isObject(obj.spec) ? obj.spec : {}
  const status = isObject(obj.status) ? obj.status : {}
  const podIP = str(status.podIP)

  // Counted, not truncated: `length = 0` would drop the arrays' backing stores.
  const images = imagesScratch
  const containers = containersScratch
  let nImages = 0
  let nContainers = 0
  const statuses = status.containerStatuses
  if (Array.isArray(statuses)) {
    for (const cs of statuses) {
      if (!isObject(cs)) continue
      const image = intern(str(cs.image))
      if (image) images[nImages++] = image
      const id = str(cs.containerID)
      if (id) {
        const cname = intern(str(cs.name))
        containers[nContainers++] = listed ? listedContainerMeta(id, cname, image) : newContainerMeta(id, cname, image)
      }
    }
  }
  const version = versionOf(images, nImages) // sorts the scratch's first nImages in place
  const name = str(metadata.name)
  const namespace = intern(str(metadata.namespace))
  const rv = str(metadata.resourceVersion)
  const ip = podIpOf(status, podIP)
  const hasIp = podIP.length > 0
  const hostNetwork = spec.hostNetwork === true
  const kept = containers.slice(0, nContainers) // exact size, the pod's own
  const owner = controllerOf(metadata, false)
  return listed
    ? listedPodMeta(uid, name, namespace, rv, ip, hasIp, hostNetwork, version, kept, owner)
    : newPodMeta(uid, name, namespace, rv, ip, hasIp, hostNetwork, version, kept, owner)
}

/**
 * Converts a ReplicaSet or Job (full object or `PartialObjectMetadata`) to an {@link OwnerMeta};
 * `undefined` when it has no `metadata.uid`.
 */
export function ownerMetaOf(kind: OwnerKind, obj: unknown): OwnerMeta | undefined {
  if (!isObject(obj) || !isObject(obj.metadata)) return undefined
  const metadata = obj.metadata
  const uid = str(metadata.uid)
  if (!uid) return undefined
  const controller = controllerOf(metadata)
  return {
    kind,
    uid: intern(uid),
    name: intern(str(metadata.name)),
    namespace: intern(str(metadata.namespace)),
    resourceVersion: str(metadata.resourceVersion),
    ...(controller ? { controller } : {}),
  }
}
