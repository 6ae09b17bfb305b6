// The core's outgoing messages, built by `new` of a class and never by an object literal: a new
// connection's announcement keeps hundreds of thousands of them alive at once, which would make V8
// pretenure a literal's allocation site for good and allocate every later event's messages, which
// die at once, in old space (src/model/records.ts says why that costs).
import type { PodContainer, PodDelete, PodNewWithName, PodResync } from '../ingest/messages.ts'

class PodNewWithNameRecord implements PodNewWithName {
  readonly type: 'pod_new_with_name'
  readonly uid: string
  readonly ip: number
  readonly ownerName: string
  readonly podName: string
  readonly ownerKind: number
  readonly ownerUid: string
  readonly isHostNetwork: boolean
  readonly ns: string
  readonly version: string

  constructor(uid: string, ip: number, ownerName: string, podName: string, ownerKind: number, ownerUid: string, isHostNetwork: boolean, ns: string, version: string) {
    this.type = 'pod_new_with_name'
    this.uid = uid
    this.ip = ip
    this.ownerName = ownerName
    this.podName = podName
    this.ownerKind = ownerKind
    this.ownerUid = ownerUid
    this.isHostNetwork = isHostNetwork
    this.ns = ns
    this.version = version
  }
}

class PodContainerRecord implements PodContainer {
  readonly type: 'pod_container'
  readonly uid: string
  readonly containerId: string
  readonly containerName: string
  readonly containerImage: string

  constructor(uid: string, containerId: string, containerName: string, containerImage: string) {
    this.type = 'pod_container'
    this.uid = uid
    this.containerId = containerId
    this.containerName = containerName
    this.containerImage = containerImage
  }
}

class PodDeleteRecord implements PodDelete {
  readonly type: 'pod_delete'
  readonly uid: string

  constructor(uid: string) {
    this.type = 'pod_delete'
    this.uid = uid
  }
}

class PodResyncRecord implements PodResync {
  readonly type: 'pod_resync'
  readonly resyncCount: bigint

  constructor(resyncCount: bigint) {
    this.type = 'pod_resync'
    this.resyncCount = resyncCount
  }
}

export const newPodNewWithName = (
  uid: string,
  ip: number,
  ownerName: string,
  podName: string,
  ownerKind: number,
  ownerUid: string,
  isHostNetwork: boolean,
  ns: string,
  version: string,
): PodNewWithName => new PodNewWithNameRecord(uid, ip, ownerName, podName, ownerKind, ownerUid, isHostNetwork, ns, version)

export const newPodContainer = (uid: string, containerId: string, containerName: string, containerImage: string): PodContainer =>
  new PodContainerRecord(uid, containerId, containerName, containerImage)

export const newPodDelete = (uid: string): PodDelete => new PodDeleteRecord(uid)

export const newPodResync = (resyncCount: bigint): PodResync => new PodResyncRecord(resyncCount)
