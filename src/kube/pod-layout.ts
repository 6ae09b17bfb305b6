// The fields of a `v1/Pod` the byte scanner reads and how they become a PodMeta: exactly what
// `podMetaOf(JSON.parse(text))` (src/model/convert.ts) extracts, read through a JsonCursor; and a
// ReplicaSet's or Job's metadata-only object, whose metadata is read as a pod's, as `ownerMetaOf`.
// Each object kind is one loop with a switch on its keys; the last occurrence of a key wins, as
// in JSON.parse (also for a whole `metadata` given twice).
import { parseIpv4, SHARED_STATUSES } from '../model/convert.ts'
import { listedContainer, listedPodMeta, newContainerMeta, newOwnerRef, newPodMeta, NO_LISTED_CONTAINERS } from '../model/records.ts'
import type { ContainerMeta, OwnerKind, OwnerMeta, OwnerRef, PodMeta } from '../model/types.ts'
import { keyTable, type JsonCursor } from './json-cursor.ts'
import { ByteStringCache } from './json-strings.ts'

/** What the layout needs of the model: its interner and its version strings (src/model/convert.ts). */
export interface PodModel {
  /** The shared instance of `s`. */
  intern(s: string): string
  /** The pod's version string of its first `n` images (sorts them in place). */
  versionOf(images: string[], n: number): string
  /** The owner reference shared by every holder of these strings. */
  ownerRef(kind: string, uid: string, name: string): OwnerRef
}

const POD_KEYS = keyTable('metadata', 'spec', 'status')
const OWNER_KEYS = keyTable('metadata')
const META_KEYS = keyTable('uid', 'name', 'namespace', 'resourceVersion', 'ownerReferences')
const REF_KEYS = keyTable('controller', 'kind', 'uid', 'name')
const SPEC_KEYS = keyTable('hostNetwork')
const STATUS_KEYS = keyTable('podIP', 'podIPs', 'containerStatuses')
const IP_KEYS = keyTable('ip')
const CS_KEYS = keyTable('image', 'containerID', 'name')

/** What the pod needs of `metadata`. */
export interface MetaFields {
  readonly uid: string
  readonly name: string
  readonly namespace: string
  readonly rv: string
  readonly owner: OwnerRef | undefined
}

/** What the pod needs of `status`. */
export interface StatusFields {
  readonly podIP: string
  /** The first IPv4 among the object entries of `podIPs`, -1 when none. */
  readonly podIPsIp: number
  readonly images: string[]
  /** A watch event's containers. */
  readonly containers: ContainerMeta[]
  /** A first LIST's item's containers, as its meta keeps them (src/model/records.ts, listedPodMeta). */
  readonly flat: string[]
}

export const NO_STATUS: StatusFields = { podIP: '', podIPsIp: -1, images: [], containers: [], flat: [] }

/**
 * The pod of the fields read (undefined without a uid), as `podMetaOf` makes it (convert.ts);
 * `listed`: a first LIST's item (src/model/records.ts). Shared by the JSON and protobuf layouts.
 */
export function assemblePod(model: PodModel, metadata: MetaFields, hostNetwork: boolean, status: StatusFields, listed: boolean): PodMeta | undefined {
  if (!metadata.uid) return undefined
  const podIP = status.podIP
  let ip = podIP ? parseIpv4(podIP) : -1
  if (ip < 0) ip = status.podIPsIp
  ip = ip < 0 ? 0 : ip
  const hasIp = podIP.length > 0
  const version = model.versionOf(status.images, status.images.length)
  // A fresh array when shared (NO_STATUS), so no meta aliases another's; else an exact-size copy
  // (a pushed-to array keeps room for 17).
  const { uid, name, namespace, rv, owner } = metadata
  if (listed) return listedPodMeta(uid, name, namespace, ip, hasIp, hostNetwork, version, status === NO_STATUS ? NO_LISTED_CONTAINERS : status.flat.slice(), owner)
  return newPodMeta(uid, name, namespace, rv, ip, hasIp, hostNetwork, version, status === NO_STATUS ? [] : status.containers.slice(), owner)
}

/** Reads pods through one cursor; repeated strings come from its own cache, interned by the model. */
export class PodLayout {
  /** `metadata.resourceVersion` of the last pod read when its metadata is an object, else ''. */
  rv = ''
  private readonly cache: ByteStringCache

  constructor(
    private readonly cur: JsonCursor,
    private readonly model: PodModel,
  ) {
    this.cache = new ByteStringCache(model)
  }

  /**
   * The value at `i` (no whitespace before) as a pod: undefined when it is not an object or has no
   * `metadata.uid`; cur.pos = after it. `listed`: a first LIST's item, allocated otherwise than a watch
   * event's object (src/model/records.ts).
   */
  read(i: number, listed: boolean): PodMeta | undefined {
    const cur = this.cur
    this.rv = ''
    if (!cur.opens(i, 123)) return undefined
    let metadata: MetaFields | undefined
    let hostNetwork = false
    let status = NO_STATUS
    for (let k = cur.firstKey(i); k >= 0; k = cur.nextKey(cur.pos)) {
      switch (cur.readKey(k, POD_KEYS)) {
        case 0:
          metadata = cur.opens(cur.pos, 123) ? this.metadata(cur.pos, !listed, listed) : undefined
          break
        case 1:
          hostNetwork = this.spec(cur.pos)
          break
        case 2:
          status = this.status(cur.pos, listed)
          break
        default:
          cur.pos = cur.skipValue(cur.pos)
      }
    }
    if (metadata === undefined) return undefined
    this.rv = metadata.rv
    return assemblePod(this.model, metadata, hostNetwork, status, listed)
  }

  /**
   * The value at `i` (no whitespace before) as a metadata-only ReplicaSet or Job (`kind`), exactly
   * `ownerMetaOf(JSON.parse(text))` (convert.ts): undefined when it is not an object or has no
   * `metadata.uid`; its strings interned, its controller the shared reference; cur.pos = after it.
   * A LIST page of owners read so leaves no page text and no parsed objects behind (bench/README.md,
   * issue 34).
   */
  owner(i: number, kind: OwnerKind): OwnerMeta | undefined {
    const cur = this.cur
    this.rv = ''
    if (!cur.opens(i, 123)) return undefined
    let metadata: MetaFields | undefined
    for (let k = cur.firstKey(i); k >= 0; k = cur.nextKey(cur.pos)) {
      if (cur.readKey(k, OWNER_KEYS) === 0) metadata = cur.opens(cur.pos, 123) ? this.metadata(cur.pos, true, true) : undefined
      else cur.pos = cur.skipValue(cur.pos)
    }
    if (metadata === undefined) return undefined
    this.rv = metadata.rv
    if (!metadata.uid) return undefined
    const model = this.model
    const uid = model.intern(metadata.uid)
    const name = model.intern(metadata.name)
    const { namespace, rv, owner } = metadata
    // The two shapes convert.ts's literal has.
    return owner ? { kind, uid, name, namespace, resourceVersion: rv, controller: owner } : { kind, uid, name, namespace, resourceVersion: rv }
  }

  /**
   * `metadata` at `at`, an object: its resourceVersion when `keepRv` (a first LIST's pod item, read
   * as the core keeps it, has '': convert.ts, podMetaOf), its controller reference the shared one
   * when `sharedRef` (else a fresh one, which the core swaps for the shared one).
   */
  private metadata(at: number, keepRv: boolean, sharedRef: boolean): MetaFields {
    const cur = this.cur
    let uid = ''
    let name = ''
    let namespace = ''
    let rv = ''
    let owner: OwnerRef | undefined
    for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
      switch (cur.readKey(k, META_KEYS)) {
        case 0:
          uid = cur.readStr(cur.pos)
          break
        case 1:
          name = cur.readStr(cur.pos)
          break
        case 2:
          namespace = cur.readCached(cur.pos, this.cache)
          break
        case 3:
          if (keepRv) rv = cur.readStr(cur.pos)
          else cur.pos = cur.skipValue(cur.pos)
          break
        case 4:
          owner = this.ownerRefs(cur.pos, sharedRef)
          break
        default:
          cur.pos = cur.skipValue(cur.pos)
      }
    }
    return { uid, name, namespace, rv, owner }
  }

  /**
   * `ownerReferences` at `at`: its first `controller: true` entry (controllerOf). The strings of
   * that entry alone are made: where each key's value starts is noted, and read at the end.
   */
  private ownerRefs(at: number, shared: boolean): OwnerRef | undefined {
    const cur = this.cur
    if (!cur.opens(at, 91)) return undefined
    let owner: OwnerRef | undefined
    for (let e = cur.firstElement(at); e >= 0; e = cur.nextElement(cur.pos)) {
      if (owner !== undefined) cur.pos = cur.skipValue(e)
      else if (cur.opens(e, 123)) owner = this.ownerRef(e, shared)
    }
    return owner
  }

  /** An `ownerReferences` entry at `at`, an object: the reference when `controller: true` (the shared one when `shared`). */
  private ownerRef(at: number, shared: boolean): OwnerRef | undefined {
    const cur = this.cur
    let controller = false
    let kind = -1
    let uid = -1
    let name = -1
    for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
      const key = cur.readKey(k, REF_KEYS)
      if (key === 0) controller = cur.readTrue(cur.pos)
      else {
        if (key === 1) kind = cur.pos
        else if (key === 2) uid = cur.pos
        else if (key === 3) name = cur.pos
        cur.pos = cur.skipValue(cur.pos)
      }
    }
    if (!controller) return undefined
    // The uid and name through the byte cache would keep a copy of their bytes in it for every
    // owner (one owner a few pods): promoted, then evicted, ~10 MB of old garbage a 150k-pod
    // list (bench/README.md, issue 34). The shared reference holds interned strings anyway.
    const k = this.stringAt(kind, true)
    const u = this.stringAt(uid, false)
    const n = this.stringAt(name, false)
    // A watch event's pod's: shared by the core when it keeps the pod.
    return shared ? this.model.ownerRef(k, u, n) : newOwnerRef(k, u, n)
  }

  /** The value at `at` (-1: absent) as a string, through the cache when `cached`; '' when not a string; cur.pos stays. */
  private stringAt(at: number, cached: boolean): string {
    if (at < 0) return ''
    const cur = this.cur
    const pos = cur.pos
    const s = cached ? cur.readCached(at, this.cache) : cur.readStr(at)
    cur.pos = pos
    return s
  }

  /** `spec` at `at`: `hostNetwork === true`. */
  private spec(at: number): boolean {
    const cur = this.cur
    if (!cur.opens(at, 123)) return false
    let hostNetwork = false
    for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
      if (cur.readKey(k, SPEC_KEYS) === 0) hostNetwork = cur.readTrue(cur.pos)
      else cur.pos = cur.skipValue(cur.pos)
    }
    return hostNetwork
  }

  /** `status.podIPs` at `at`: the first IPv4 `ip` of its object entries (podIpOf), -1 when none. */
  private podIPs(at: number): number {
    const cur = this.cur
    if (!cur.opens(at, 91)) return -1
    let found = -1
    for (let e = cur.firstElement(at); e >= 0; e = cur.nextElement(cur.pos)) {
      if (found >= 0) cur.pos = cur.skipValue(e)
      else if (cur.opens(e, 123)) found = this.podIP(e)
    }
    return found
  }

  /** A `podIPs` entry at `at`, an object: its `ip` as IPv4, -1 when not one. */
  private podIP(at: number): number {
    const cur = this.cur
    let ip = ''
    for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
      if (cur.readKey(k, IP_KEYS) === 0) ip = cur.readStr(cur.pos)
      else cur.pos = cur.skipValue(cur.pos)
    }
    return parseIpv4(ip)
  }

  /** `status` at `at`. */
  private status(at: number, listed: boolean): StatusFields {
    const cur = this.cur
    if (!cur.opens(at, 123)) return NO_STATUS
    let podIP = ''
    let podIPsIp = -1
    let images: string[] = []
    let containers: ContainerMeta[] = []
    let flat: string[] = []
    for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
      switch (cur.readKey(k, STATUS_KEYS)) {
        case 0:
          podIP = cur.readStr(cur.pos)
          break
        case 1:
          podIPsIp = this.podIPs(cur.pos)
          break
        case 2:
          images = []
          containers = []
          flat = []
          this.containerStatuses(cur.pos, images, containers, flat, listed)
          break
        default:
          cur.pos = cur.skipValue(cur.pos)
      }
    }
    return { podIP, podIPsIp, images, containers, flat }
  }

  /**
   * `status.containerStatuses` at `at`: every non-empty image, and the containers that have an id
   * (a name is read only for those), into `containers`, or `flat` for a first LIST's item (`listed`);
   * strings shared (the byte cache too) for the first {@link SHARED_STATUSES} entries.
   */
  private containerStatuses(at: number, images: string[], containers: ContainerMeta[], flat: string[], listed: boolean): void {
    const cur = this.cur
    if (!cur.opens(at, 91)) return
    let entries = 0
    for (let e = cur.firstElement(at); e >= 0; e = cur.nextElement(cur.pos)) {
      if (!cur.opens(e, 123)) continue
      const shared = entries++ < SHARED_STATUSES
      let image = ''
      let id = ''
      let name = -1
      for (let m = cur.firstKey(e); m >= 0; m = cur.nextKey(cur.pos)) {
        switch (cur.readKey(m, CS_KEYS)) {
          case 0:
            image = shared ? cur.readCached(cur.pos, this.cache) : cur.readStr(cur.pos)
            break
          case 1:
            id = cur.readStr(cur.pos)
            break
          case 2:
            name = cur.pos
            cur.pos = cur.skipValue(cur.pos)
            break
          default:
            cur.pos = cur.skipValue(cur.pos)
        }
      }
      if (image) images.push(image)
      if (id) {
        const containerName = this.stringAt(name, shared)
        if (listed) listedContainer(flat, id, containerName, image)
        else containers.push(newContainerMeta(id, containerName, image))
      }
    }
  }
}
