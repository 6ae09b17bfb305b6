// The reducer-compatible sink (`k8s-collector tap`): accepts collector connections with the
// reducer's rules, keeps its per-connection state, and shows what was sent (README.md here).
export { startTap, TAP_DEFAULTS, type ListenAddress, type Tap, type TapOptions } from './start.ts'
export type { TapState } from './hub.ts'
export type { EventPage } from './event-log.ts'
export type {
  ConnectionCloseRecord,
  ConnectionOpenRecord,
  FieldValue,
  MessageRecord,
  TapRecord,
} from './record.ts'
export type { AgentSnapshot, CloseReasonSnapshot, ConnectionSnapshot, ContainerSnapshot, PodSnapshot } from './snapshot.ts'
export { describeCloseReason, isReducerRejection, MINIMUM_VERSION, type CloseReason, type CloseReasonKind } from './close-reason.ts'
export { formatRecord, isKeepAlive, printable, type FormatOptions } from './format.ts'
export { createTapSession, type ReceivedMessage, type SessionOutput, type SessionState, type TapSession } from './session.ts'
export { TapOutputError } from './jsonl-file.ts'
export {
  applyToReducerState,
  createReducerState,
  stripContainerScheme,
  type ReducerPod,
  type ReducerState,
} from './reducer-state.ts'
