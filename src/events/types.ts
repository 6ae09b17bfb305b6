// What an Event is about and what it says, whichever API group it is written through.

/** The object an Event is about: events.k8s.io `regarding`, core/v1 `involvedObject`. */
export interface ObjectRef {
  readonly apiVersion: string
  readonly kind: string
  readonly namespace: string
  readonly name: string
  /** `kubectl describe` matches events on it; absent when unknown. */
  readonly uid?: string
}

export type EventType = 'Normal' | 'Warning'

/**
 * One Event as recorded. Two specs with equal fields are isomorphic: they become one object whose
 * series counts them (docs/events.md "Series").
 */
export interface EventSpec {
  readonly regarding: ObjectRef
  readonly type: EventType
  readonly reason: string
  readonly action: string
  /** What happened and what to check, at most 1 KiB; never changing details such as attempt numbers or times. */
  readonly note: string
}

/** The collector's own Pod, from the downward API (`POD_NAME`, `POD_NAMESPACE`, `POD_UID`). */
export interface PodIdentity {
  readonly name: string
  readonly namespace: string
  readonly uid: string
}
