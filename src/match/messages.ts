// The core's outgoing messages, built by `new` of a class and never by an object literal: a burst
// the reducer reads slowly keeps many of them alive at once, which would make V8 pretenure a
// literal's allocation site for good and allocate every later event's messages, which die at once,
// in old space (src/model/records.ts says why that costs). A new epoch's announcements are made
// only as the link encodes them (DeferredAnnouncements).
import type { DeferredMessages, PodContainer, PodDelete, PodMessage, PodNewWithName, PodResync } from '../ingest/messages.ts'
import type { PodMeta } from '../model/index.ts'
import type { KeptPod } from './kept-pod.ts'
import type { Resolution } from './types.ts'

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

/**
 * Rule 5.1 for every pod of a new epoch, as the link encodes it: item `i` is `kept[i]` announced
 * with `resolutions[i]`, its values read from the kept form (which never changes) only then. Two
 * references a pod wait for the reducer instead of three messages (bench/README.md, issue 34).
 */
export class DeferredAnnouncements implements DeferredMessages {
  readonly type = 'deferred' as const
  readonly count: number

  /** `values`: the kept form's values, valid until its next call (the pod store's). */
  constructor(
    private readonly kept: readonly KeptPod[],
    private readonly resolutions: readonly Resolution[],
    private readonly values: (kept: KeptPod) => PodMeta,
  ) {
    this.count = kept.length
  }

  expand(i: number, emit: (msg: PodMessage) => void): void {
    const v = this.values(this.kept[i]!)
    const res = this.resolutions[i]!
    emit(newPodNewWithName(v.uid, v.ip, res.name, v.name, res.code, res.uid, v.hostNetwork, v.namespace, v.version))
    const cs = v.containers
    for (let k = 0; k < cs.length; k++) emit(newPodContainer(v.uid, cs[k]!.id, cs[k]!.name, cs[k]!.image))
  }
}
