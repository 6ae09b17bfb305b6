// The objects the converters hand out, allocated where V8 will place them by how long they live.
//
// V8 gives every object literal an allocation site and watches how many of its objects survive
// young-generation collections. When nearly all do, it pretenures the site: from then on, for good,
// that literal allocates straight into old space. A `new` of a class has no allocation site: its
// objects are always born young. So the converters build:
// - a watch event's pod by `new` (newPodMeta): it dies once the core has compared it (the core
//   keeps a signature of the pod, src/match/signature.ts). Built by the same literal as the LIST's
//   pods, which are kept and so had the site pretenured, they filled old space with garbage that
//   only full mark-compacts reclaim, each allocation touching fresh pages: converting an event took
//   2.3–3.2 µs instead of 0.7–1.1 µs in the churn benchmark after a 150,000-pod list
//   (bench/README.md, issue 3).
// - a LIST item's pod by a literal of its own (listedPodMeta): the core keeps it as listed until
//   the pod's first watch event (src/match/core.ts), and once V8 has pretenured the literal each
//   pod's meta and containers are laid out side by side in old space, not scattered by the
//   scavenger's copying (the churn's match + encode measured 4.3 µs an event with the literal,
//   4.9 without).
// Both give objects with the same properties in the same order, which is what the core reads.
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
/** A LIST item's container (a literal: see the top of this file). */
export const listedContainerMeta = (id: string, name: string, image: string): ContainerMeta => ({ id, name, image })
