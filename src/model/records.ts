// The objects the converters hand out, allocated where V8 will place them by how long they live
// (bench/README.md, issue 3, has the measurements). V8 pretenures an object literal whose objects
// survive, for good; a `new` of a class is always born young. So a watch event's pod, which dies
// once the core has compared it, is built by `new`; a LIST item's pod, which the core keeps until
// its first watch event, by a literal of its own. Both have the same properties in the same order.
// A relist's item is built by `new` too: it mostly equals the pod the core keeps and dies with its
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
 * A LIST item's container, which the core keeps: its id packed (container-id.ts: 40 bytes less a
 * container), made whole again when read (what reads it: a new connection's announcements, the
 * comparison with the pod's next event).
 */
class ListedContainerRecord implements ContainerMeta {
  private readonly packedId: string
  readonly name: string
  readonly image: string

  constructor(id: string, name: string, image: string) {
    this.packedId = packContainerId(id)
    this.name = name
    this.image = image
  }

  get id(): string {
    return unpackContainerId(this.packedId)
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

/** A LIST item's meta (a literal: see the top of this file); same fields as {@link newPodMeta}. */
export const listedPodMeta = (
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
): PodMeta => ({ uid, name, namespace, resourceVersion, ip, hasIp, hostNetwork, version, containers, owner })
/** A LIST item's container, its id kept packed (a class: see {@link ListedContainerRecord}). */
export const listedContainerMeta = (id: string, name: string, image: string): ContainerMeta => new ListedContainerRecord(id, name, image)
