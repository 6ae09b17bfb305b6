// A model of the reducer's per-connection pod state (docs/protocol.md §4), shared by the tap and the
// matcher's property tests.
import type { IngestMessage } from '../ingest/messages.ts'

/** Details of one pod as the reducer holds them after `pod_new_with_name`. */
export interface ReducerPod {
  uid: string
  ip: number
  ownerName: string
  podName: string
  ownerKind: number
  ownerUid: string
  isHostNetwork: boolean
  ns: string
  version: string
  /** Containers keyed by their id with the `scheme://` prefix stripped; first report wins. */
  containers: Map<string, { id: string; name: string; image: string }>
}

/** The reducer's view of one connection. */
export interface ReducerState {
  pods: Map<string, ReducerPod>
  /** `pod_resync` counts in arrival order. */
  epochs: bigint[]
  /** Messages the reducer would have dropped (container for an unknown pod, delete of an unknown uid). */
  ignored: number
}

export function createReducerState(): ReducerState {
  return { pods: new Map(), epochs: [], ignored: 0 }
}

/** Strips a `scheme://` prefix from a container id, as the reducer does. */
export function stripContainerScheme(id: string): string {
  const at = id.indexOf('://')
  return at < 0 ? id : id.slice(at + 3)
}

/** Applies one message to the state with the reducer's semantics (docs/protocol.md §4). */
export function applyToReducerState(state: ReducerState, msg: IngestMessage): void {
  switch (msg.type) {
    case 'pod_new_with_name': {
      const known = state.pods.get(msg.uid)
      state.pods.set(msg.uid, {
        uid: msg.uid,
        ip: msg.ip,
        ownerName: msg.ownerName,
        podName: msg.podName,
        ownerKind: msg.ownerKind,
        ownerUid: msg.ownerUid,
        isHostNetwork: msg.isHostNetwork,
        ns: msg.ns,
        version: msg.version,
        containers: known?.containers ?? new Map(),
      })
      return
    }
    case 'pod_container': {
      const pod = state.pods.get(msg.uid)
      if (!pod) {
        state.ignored++
        return
      }
      const key = stripContainerScheme(msg.containerId)
      if (!pod.containers.has(key)) {
        pod.containers.set(key, { id: msg.containerId, name: msg.containerName, image: msg.containerImage })
      }
      return
    }
    case 'pod_delete':
      if (!state.pods.delete(msg.uid)) state.ignored++
      return
    case 'pod_resync':
      state.pods.clear()
      state.epochs.push(msg.resyncCount)
      return
    default:
      return
  }
}
