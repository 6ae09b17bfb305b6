// Kubernetes Events about the collector's own Pod (docs/events.md): what goes wrong shows in
// `kubectl describe pod`, at a bounded cost to the API server.
//
//   const events = createEventRecorder({ self }, { client, registry })   // or startEvents(…) from the env
//   void events.run(signal)
//   events.record({ reason: 'ReducerConnected', address: '10.0.0.5:7000' })   // never blocks
export { createEventRecorder, type DropCause, type EventRecorder, type EventRecorderDeps, type EventRecorderOptions, type EventReporter } from './recorder.ts'
export { eventsSettingFromEnv, type EventLimits, type EventsSetting } from './config.ts'
export { httpStatusOf, type EventReason, type LeaseIdentity, type Occurrence, type ReducerFailure, type ResyncCause } from './reasons.ts'
export { noEvents, startEvents, type StartedEvents } from './start.ts'
export type { EventSpec, ObjectRef, PodIdentity } from './types.ts'
