// One stored object, several API groups: how each resource shows stored objects and stores what it is
// given (only events differ: events.k8s.io/v1 is a view of core/v1 Events, as in the API server).
import type { Entry, KubeObject } from '../store/entry.ts'
import { coreEvent, fromEventsV1, toEventsV1 } from './events.ts'
import type { ResourceInfo } from './resources.ts'

/** The object as `r` serves it. */
export function toView(r: ResourceInfo, stored: KubeObject): KubeObject {
  return r.storageGroup !== undefined && r.kind === 'Event' ? toEventsV1(stored) : stored
}

/** The object to store for one written through `r` (laid out as the server prints it). */
export function toStorage(r: ResourceInfo, obj: KubeObject): KubeObject {
  if (r.kind !== 'Event') return obj
  return r.storageGroup !== undefined ? fromEventsV1(obj) : coreEvent(obj)
}

/** A stored entry as `r` serves it (the entry itself unless `r` is a view). */
export function viewEntry(r: ResourceInfo, e: Entry): Entry {
  return r.storageGroup === undefined ? e : e.as(r, (obj) => toView(r, obj))
}
