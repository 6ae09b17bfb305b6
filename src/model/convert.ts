// Converters from parsed Kubernetes JSON objects to the compact metas (docs/behaviour.md §2).
// Strings that repeat across objects (namespaces, kinds, owner names, container names, images,
// versions) are interned by the model context, so that retained metas share them.
import type { ModelContext } from './context.ts'
import { listedContainer, listedPodMeta, newContainerMeta, newOwnerRef, newPodMeta } from './records.ts'
import type { OwnerKind, OwnerMeta, OwnerRef, PodMeta } from './types.ts'

// The API server sends JSON; these readers accept anything and fall back to the spec's defaults
// (docs/behaviour.md §9), so a malformed object can never throw here.
type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/**
 * The first `controller: true` ownerReference, if any (docs/behaviour.md §2). With `ctx`: the one
 * shared OwnerRef for it (owners' controllers); else a fresh one, which the core swaps for the
 * shared one when it keeps the pod (src/match/pod-store.ts) — a pod it already holds then costs no lookup.
 */
function controllerOf(metadata: Json, ctx?: ModelContext): OwnerRef | undefined {
  const refs = metadata.ownerReferences
  if (!Array.isArray(refs)) return undefined
  for (const ref of refs) {
    if (isObject(ref) && ref.controller === true) {
      return ctx ? ctx.ownerRef(str(ref.kind), str(ref.uid), str(ref.name)) : newOwnerRef(str(ref.kind), str(ref.uid), str(ref.name))
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

/**
 * The container statuses of a pod whose image and name are shared (interned; the scanner's byte
 * cache too); the strings of later ones are the pod's own (docs/behaviour.md §14), so one pod can
 * neither flush the caches nor fill the interner. 64: the version cache's admission too.
 */
export const SHARED_STATUSES = 64

/**
 * Converts a `v1/Pod` JSON object to a {@link PodMeta}; `undefined` when it has no
 * `metadata.uid` (docs/behaviour.md §9: ignored, the caller counts it). `listed`: the object is an item
 * of a first LIST, not a watch event's or a relist's (the same meta, allocated otherwise: src/model/records.ts,
 * with the shared owner reference and resourceVersion '').
 */
export function podMetaOf(ctx: ModelContext, obj: unknown, listed = false): PodMeta | undefined {
  if (!isObject(obj) || !isObject(obj.metadata)) return undefined
  const metadata = obj.metadata
  const uid = str(metadata.uid)
  if (!uid) return undefined
  const spec = isObject(obj.spec) ? obj.spec : {}
  const status = isObject(obj.status) ? obj.status : {}
  const podIP = str(status.podIP)
  const { images, containers } = ctx.scratch
  let nImages = 0
  let nContainers = 0
  const flat: string[] = [] // a LIST item's containers (records.ts, listedPodMeta)
  const statuses = status.containerStatuses
  if (Array.isArray(statuses)) {
    let entries = 0
    for (const cs of statuses) {
      if (!isObject(cs)) continue
      const shared = entries++ < SHARED_STATUSES
      const image = shared ? ctx.intern(str(cs.image)) : str(cs.image)
      if (image) images[nImages++] = image
      const id = str(cs.containerID)
      if (id) {
        const cname = shared ? ctx.intern(str(cs.name)) : str(cs.name)
        if (listed) listedContainer(flat, id, cname, image)
        else containers[nContainers++] = newContainerMeta(id, cname, image)
      }
    }
  }
  const version = ctx.versionOf(images, nImages) // sorts the scratch's first nImages in place
  const name = str(metadata.name)
  const namespace = ctx.intern(str(metadata.namespace))
  // A LIST item, which the core keeps, comes with what the core keeps of it: the shared owner
  // reference and no resourceVersion (a fresh reference and string were old-space garbage once the
  // core swapped them: bench/README.md, issue 34).
  const rv = listed ? '' : str(metadata.resourceVersion)
  const ip = podIpOf(status, podIP)
  const hasIp = podIP.length > 0
  const hostNetwork = spec.hostNetwork === true
  const owner = controllerOf(metadata, listed ? ctx : undefined)
  if (listed) return listedPodMeta(uid, name, namespace, ip, hasIp, hostNetwork, version, flat.slice(), owner) // exact size
  return newPodMeta(uid, name, namespace, rv, ip, hasIp, hostNetwork, version, containers.slice(0, nContainers), owner) // exact size, the pod's own
}

/**
 * Converts a ReplicaSet or Job (full object or `PartialObjectMetadata`) to an {@link OwnerMeta};
 * `undefined` when it has no `metadata.uid`.
 */
export function ownerMetaOf(ctx: ModelContext, kind: OwnerKind, obj: unknown): OwnerMeta | undefined {
  if (!isObject(obj) || !isObject(obj.metadata)) return undefined
  const metadata = obj.metadata
  const uid = str(metadata.uid)
  if (!uid) return undefined
  const controller = controllerOf(metadata, ctx)
  return {
    kind,
    uid: ctx.intern(uid),
    name: ctx.intern(str(metadata.name)),
    namespace: ctx.intern(str(metadata.namespace)),
    resourceVersion: str(metadata.resourceVersion),
    ...(controller ? { controller } : {}),
  }
}
