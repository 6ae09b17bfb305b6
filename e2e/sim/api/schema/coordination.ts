// coordination.k8s.io/v1 Lease and events.k8s.io/v1 Event: the kinds of leader election and event reporting.
import { definePackage } from './dsl.ts'

export const COORDINATION = definePackage('coordination', {
  Lease: {
    _kind: 'coordination.k8s.io/v1/Lease',
    _: 'A lease: who holds it and until when.',
    metadata: 'meta/ObjectMeta | Standard object metadata.',
    spec: 'LeaseSpec | The lease.',
  },
  LeaseSpec: {
    _: 'The specification of a lease.',
    acquireTime: 'microtime | When the current lease was acquired.',
    holderIdentity: 'string | Identity of the holder.',
    leaseDurationSeconds: 'integer | Seconds candidates wait before trying to take the lease, measured from renewTime.',
    leaseTransitions: 'integer | Times the lease changed holders.',
    preferredHolder: 'string | Signals a holder to give the lease up.',
    renewTime: 'microtime | When the holder last renewed the lease.',
    strategy: 'string | How candidates are chosen (coordinated leader election).',
  },
})

export const EVENTS = definePackage('events', {
  Event: {
    _kind: 'events.k8s.io/v1/Event',
    _: 'A report of an event somewhere in the cluster.',
    metadata: 'meta/ObjectMeta | Standard object metadata.',
    eventTime: 'microtime! | When this event was first observed. Required.',
    series: 'EventSeries | Data about the series this event represents; unset for singleton events.',
    reportingController: 'string | Name of the controller that emitted this event (required for new events).',
    reportingInstance: 'string | ID of the controller instance (required for new events, at most 128 characters).',
    action: 'string | What action was taken or failed (required for new events, at most 128 characters).',
    reason: 'string | Why the action was taken (required for new events, at most 128 characters).',
    regarding: 'core/ObjectReference | The object this event is about.',
    related: 'core/ObjectReference | A secondary object.',
    note: 'string | Human-readable description, at most 1 kB.',
    type: 'string | Normal or Warning.',
    deprecatedSource: 'core/EventSource | Deprecated, for compatibility with core/v1 Event.',
    deprecatedFirstTimestamp: 'time | Deprecated, for compatibility with core/v1 Event.',
    deprecatedLastTimestamp: 'time | Deprecated, for compatibility with core/v1 Event.',
    deprecatedCount: 'integer | Deprecated, for compatibility with core/v1 Event.',
  },
  EventSeries: {
    _: 'A series of events: the count and the last time one was seen.',
    count: 'integer! | Occurrences in this series up to the last heartbeat.',
    lastObservedTime: 'microtime! | When the last event of the series was seen.',
  },
})
