// The reasons the collector reports (docs/events.md "Reasons"), each turned into the Event(s) it
// writes: type, action and a note that says what happened and what to check.
import { RESOURCE_PATHS } from '../kube/index.ts'
import type { LostReason } from '../lease/index.ts'
import type { ConnectErrorCause, DisconnectCause } from '../link/index.ts'
import type { StreamName } from '../match/index.ts'
import type { EventSpec, ObjectRef } from './types.ts'

/** The reasons, exactly these: alerts and runbooks rely on them. */
export type EventReason = Occurrence['reason']

/** Why the reducer cannot be reached. */
export type ReducerFailure =
  /** A connection attempt failed; `target` is `host:port` as configured. */
  | { readonly kind: 'connect'; readonly target: string; readonly cause: ConnectErrorCause }
  /** An established session ended; `address` is the `ip:port` it was connected to. */
  | { readonly kind: 'lost'; readonly address: string; readonly cause: DisconnectCause }

/** Why a new epoch was started (docs/behaviour.md §6). */
export type ResyncCause =
  /** A new reducer connection: each one starts with a resync. */
  | { readonly kind: 'reconnect' }
  /** The waiting limit: both owner streams were relisted, then every pod announced again. */
  | { readonly kind: 'waitingLimit'; readonly limit: number }

/** A Lease of leader election, as far as its Events need it. */
export interface LeaseIdentity {
  readonly namespace: string
  readonly name: string
  /** The Lease's metadata.uid when known (kubectl describe lease matches on it). */
  readonly uid?: string
}

/** Something the collector reports. */
export type Occurrence =
  | { readonly reason: 'ReducerUnreachable'; readonly failure: ReducerFailure }
  | { readonly reason: 'ReducerConnected'; readonly address: string }
  | { readonly reason: 'ResourceUnavailable'; readonly resource: StreamName; readonly status: number }
  | { readonly reason: 'ResourceAvailable'; readonly resource: StreamName }
  | { readonly reason: 'Resync'; readonly cause: ResyncCause }
  | { readonly reason: 'LeaderElected'; readonly identity: string; readonly lease: LeaseIdentity }
  | { readonly reason: 'LeadershipLost'; readonly identity: string; readonly lease: LeaseIdentity; readonly cause: LostReason }

const CONNECT_FAILURES: Record<ConnectErrorCause, string> = {
  dns: 'the host name does not resolve',
  timeout: 'the connection attempt timed out',
  refused: 'connection refused',
  unreachable: 'the network or host is unreachable',
  other: 'the connection failed',
}

// Partial: a cause added to the link later still gets a note (its name).
const LOSSES: Partial<Record<DisconnectCause, string>> = {
  peer_closed: 'the reducer closed the connection',
  socket_error: 'socket error',
  peer_silent: 'the reducer acknowledged nothing for too long (frozen, or the path to it is cut)',
  buffer_overflow: 'the reducer does not read fast enough (send buffer full)',
}

const LEADERSHIP_LOSSES: Record<LostReason, string> = {
  renewDeadline: 'no renewal succeeded within the renew deadline; check the API server health and latency',
  taken: 'another replica holds the Lease',
  stopped: 'the collector is shutting down',
}

// What the collector does without the stream (docs/behaviour.md §3).
const WITHOUT: Record<StreamName, string> = {
  pods: 'No pod is announced until it is served.',
  replicasets: 'Meanwhile pods of ReplicaSets are announced with the ReplicaSet as owner, not its Deployment.',
  jobs: 'Meanwhile pods of Jobs are announced with the Job as owner, not its CronJob.',
}

/**
 * The Events `o` writes. All are about `self` (the collector's Pod) except the Lease's
 * `LeaderElection` events, which client-go's leader election also records; those are written only
 * when the Lease is in `self`'s namespace, the only one the collector's Role lets it write events in.
 */
export function eventsOf(o: Occurrence, self: ObjectRef): EventSpec[] {
  switch (o.reason) {
    case 'ReducerUnreachable':
      return [{ regarding: self, type: 'Warning', reason: o.reason, action: 'Connect', note: unreachableNote(o.failure) }]
    case 'ReducerConnected':
      return [{ regarding: self, type: 'Normal', reason: o.reason, action: 'Connect', note: `Connected to the reducer at ${o.address}.` }]
    case 'ResourceUnavailable':
      return [{ regarding: self, type: 'Warning', reason: o.reason, action: 'ListWatch', note: unavailableNote(o.resource, o.status) }]
    case 'ResourceAvailable': {
      const r = apiResource(o.resource)
      return [{ regarding: self, type: 'Normal', reason: o.reason, action: 'ListWatch', note: `The API server serves ${r.resource} (${r.groupVersion}) to the collector again.` }]
    }
    case 'Resync':
      return [{ regarding: self, type: 'Normal', reason: o.reason, action: 'Resync', note: resyncNote(o.cause) }]
    case 'LeaderElected':
      return [
        { regarding: self, type: 'Normal', reason: o.reason, action: 'LeaderElection', note: `Leader on Lease ${o.lease.namespace}/${o.lease.name} as ${o.identity}: connecting to the reducer.` },
        ...leaseEvent(o.lease, self, `${o.identity} became leader`),
      ]
    case 'LeadershipLost':
      return [
        {
          regarding: self,
          type: 'Warning',
          reason: o.reason,
          action: 'LeaderElection',
          note: `Stopped leading on Lease ${o.lease.namespace}/${o.lease.name} as ${o.identity}: ${LEADERSHIP_LOSSES[o.cause]}. The reducer connection is closed; another replica takes over once the lease expires.`,
        },
        ...leaseEvent(o.lease, self, `${o.identity} stopped leading`),
      ]
    default:
      return o satisfies never
  }
}

/** The collector's Pod as an Event's `regarding`. */
export function podRef(pod: { readonly name: string; readonly namespace: string; readonly uid: string }): ObjectRef {
  return { apiVersion: 'v1', kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid }
}

function leaseEvent(lease: LeaseIdentity, self: ObjectRef, note: string): EventSpec[] {
  if (lease.namespace !== self.namespace) return []
  const regarding: ObjectRef = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: lease.namespace, name: lease.name, ...(lease.uid ? { uid: lease.uid } : {}) }
  return [{ regarding, type: 'Normal', reason: 'LeaderElection', action: 'LeaderElection', note }]
}

function unreachableNote(f: ReducerFailure): string {
  const after = 'The collector retries with backoff and sends a complete resync once connected.'
  if (f.kind === 'connect') {
    return `Cannot connect to the reducer at ${f.target}: ${CONNECT_FAILURES[f.cause]}. ${after} Check that the reducer is running and listening there and that this pod can reach it (DNS, Service, NetworkPolicy).`
  }
  return `Lost the connection to the reducer at ${f.address}: ${LOSSES[f.cause] ?? f.cause.replaceAll('_', ' ')}. ${after} Check the reducer's logs and health${f.cause === 'buffer_overflow' ? ' and whether it keeps up with the load' : ''}.`
}

function unavailableNote(stream: StreamName, status: number): string {
  const r = apiResource(stream)
  const rule = `apiGroups ["${r.group}"], resources ["${r.resource}"], verbs ["list", "watch"]`
  const consequence = `${WITHOUT[stream]} The collector retries with backoff.`
  if (status === 403) {
    return `Listing ${r.resource} (${r.groupVersion}) is forbidden: HTTP 403. The collector's service account lacks the cluster-wide RBAC rule ${rule} (ClusterRole k8s-collector in kind/collector.yaml). ${consequence}`
  }
  return `The API server does not serve ${r.resource} (${r.groupVersion}): HTTP ${status}. Check that the API group is enabled (kubectl api-resources); the collector needs it with the RBAC rule ${rule}. ${consequence}`
}

function resyncNote(cause: ResyncCause): string {
  switch (cause.kind) {
    case 'reconnect':
      return 'New epoch on a new reducer connection: pod_resync, then every pod announced again.'
    case 'waitingLimit':
      return `New epoch after the waiting limit: ${cause.limit} or more pods waited for their ReplicaSet or Job, so both were relisted and every pod announced again. If this repeats, check the API server's load and the watches' health.`
    default:
      return cause satisfies never
  }
}

/** Group, version and plural of a watched stream, from its collection path (`/api/v1/pods`, `/apis/apps/v1/replicasets`). */
function apiResource(stream: StreamName): { group: string; groupVersion: string; resource: string } {
  const parts = RESOURCE_PATHS[stream].split('/').filter(Boolean)
  const core = parts[0] === 'api'
  const group = core ? '' : parts[1]!
  const version = core ? parts[1]! : parts[2]!
  return { group, groupVersion: core ? version : `${group}/${version}`, resource: parts.at(-1)! }
}

/**
 * The HTTP status in a stream's `unavailable` reason, which is the KubeApiError's message
 * (`HTTP 403 Forbidden: …`); 0 when it names none.
 */
export function httpStatusOf(reason: string): number {
  const m = /^HTTP (\d{3})\b/.exec(reason)
  return m ? Number(m[1]) : 0
}
