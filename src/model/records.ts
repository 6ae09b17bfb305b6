// The objects the converters hand out, allocated where V8 will place them by how long they live
// (bench/README.md, issue 3, has the measurements). V8 pretenures an object literal whose objects
// survive, for good; a `new` of a class is always born young. So a watch event's pod, which dies
// once the core has compared it, is built by `new`. A LIST item's pod, which the core keeps until
// its first watch event, is a record of its own kind, compact (ListedPodRecord): it is promoted
// once, as it lives. A relist's item is built by `new` too: it mostly equals the pod the core keeps and dies with its
// page, where a literal (pretenured by then) left 150k metas of old-space garbage a relist. So is
// everything that holds a page's objects (its arrays, the page, its events and step): an old
// object keeps the young ones it refers to alive through every scavenge, into old space.
import { packContainerId, unpackContainerId } from './container-id.ts'
import type { ContainerMeta, OwnerRef, PodMeta } from './types.ts'

class PodRecord implements PodMeta {
  readonly uid: string
  readonly name: string
  readonly namespace: string
  readonly resourceVersion: string
  readonly ip: number
  readonly hasIp: boolean
  readonly hostNetwork: boolean
  readonly version: string
  readonly containers: readonly ContainerMeta[]
  readonly owner: OwnerRef | undefined

  constructor(
    uid: string,
    name: string,
    namespace: string,
    resourceVersion: string,
    ip: number,
    hasIp: boolean,
    hostNetwork: boolean,
    version: string,
    containers: readonly ContainerMeta[],
    owner: OwnerRef | undefined,
  ) {
    this.uid = uid
    this.name = name
    this.namespace = namespace
    this.resourceVersion = resourceVersion
    this.ip = ip
    this.hasIp = hasIp
    this.hostNetwork = hostNetwork
    this.version = version
    this.containers = containers
    this.owner = owner
  }
}

class ContainerRecord implements ContainerMeta {
  readonly id: string
  readonly name: string
  readonly image: string

  constructor(id: string, name: string, image: string) {
    this.id = id
    this.name = name
    this.image = image
  }
}

/**
 * A LIST item's meta, which the core keeps until the pod's first watch event: its containers kept
 * as one flat array of strings (per container its packed id, container-id.ts, its name and its
 * image), made into records when read; its resourceVersion not kept (''). Two container records
 * and their array cost 160 bytes a pod, their 77-character ids 96 bytes each (bench/README.md,
 * issue 34). What reads the containers: a new connection's announcements and the comparison with
 * the pod's next event or relist item.
 */
class ListedPodRecord implements PodMeta {
  readonly uid: string
  readonly name: string
  readonly namespace: string
  readonly ip: number
  readonly hasIp: boolean
  readonly hostNetwork: boolean
  readonly version: string
  readonly owner: OwnerRef | undefined
  private readonly flat: readonly string[]

  constructor(
    uid: string,
    name: string,
    namespace: string,
    ip: number,
    hasIp: boolean,
    hostNetwork: boolean,
    version: string,
    flat: readonly string[],
    owner: OwnerRef | undefined,
  ) {
    this.uid = uid
    this.name = name
    this.namespace = namespace
    this.ip = ip
    this.hasIp = hasIp
    this.hostNetwork = hostNetwork
    this.version = version
    this.flat = flat
    this.owner = owner
  }

  get resourceVersion(): string {
    return ''
  }

  get containers(): readonly ContainerMeta[] {
    const f = this.flat
    const cs = new Array<ContainerMeta>(f.length / 3)
    for (let i = 0, j = 0; j < f.length; i++, j += 3) cs[i] = new ContainerRecord(unpackContainerId(f[j]!), f[j + 1]!, f[j + 2]!)
    return cs
  }
}

class OwnerRefRecord implements OwnerRef {
  readonly kind: string
  readonly uid: string
  readonly name: string

  constructor(kind: string, uid: string, name: string) {
    this.kind = kind
    this.uid = uid
    this.name = name
  }
}

/** A watch event's pod meta; `owner` is always set (maybe undefined): one object shape for every pod. */
export const newPodMeta = (
  uid: string,
  name: string,
  namespace: string,
  resourceVersion: string,
  ip: number,
  hasIp: boolean,
  hostNetwork: boolean,
  version: string,
  containers: readonly ContainerMeta[],
  owner: OwnerRef | undefined,
): PodMeta => new PodRecord(uid, name, namespace, resourceVersion, ip, hasIp, hostNetwork, version, containers, owner)

/** A watch event's container. */
export const newContainerMeta = (id: string, name: string, image: string): ContainerMeta => new ContainerRecord(id, name, image)

/** A controller reference (the shared ones and the fresh ones a pod comes with). */
export const newOwnerRef = (kind: string, uid: string, name: string): OwnerRef => new OwnerRefRecord(kind, uid, name)

/**
 * An empty array for one LIST page's objects, born young whatever became of the arrays made here
 * before (see the top of this file): an array literal whose arrays survived is pretenured for
 * good, `new Array` is not (bench/README.md, issue 34).
 */
export const pageArray = <T>(): T[] => new Array<T>()

/** No containers, for a LIST item's {@link listedPodMeta} (never written). */
export const NO_LISTED_CONTAINERS: readonly string[] = Object.freeze([])

/**
 * A LIST item's meta, which the core keeps (see {@link ListedPodRecord}): `flat` holds per
 * container {@link listedContainer}'s three strings, exactly (the meta keeps the array).
 */
export const listedPodMeta = (
  uid: string,
  name: string,
  namespace: string,
  ip: number,
  hasIp: boolean,
  hostNetwork: boolean,
  version: string,
  flat: readonly string[],
  owner: OwnerRef | undefined,
): PodMeta => new ListedPodRecord(uid, name, namespace, ip, hasIp, hostNetwork, version, flat, owner)

/** Appends a LIST item's container to the `flat` array of its {@link listedPodMeta}. */
export function listedContainer(flat: string[], id: string, name: string, image: string): void {
  flat.push(packContainerId(id), name, image)
}
