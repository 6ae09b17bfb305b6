// The simulator's programmatic contract (/work/briefs/sim-api.md): options, the Simulator handle, faults, bulk mode.
import type { Clock } from '../../src/util/clock.ts'

/** Options of `startSimulator`; every field is optional, defaults are resolved in `options.ts`. */
export interface SimOptions {
  /** Listen address (default '127.0.0.1'). */
  host?: string
  /** Listen port (default 0: ephemeral). */
  port?: number
  /** Simulated nodes (default 3): node-1 … node-N, pod CIDR 10.244.<i>.0/24, host IP 172.18.0.<i+1>. */
  nodes?: number
  /** Streaming lists (sendInitialEvents) supported (default true); false → 422 like an older server. */
  watchList?: boolean
  /**
   * Pods' lists and watches (streaming lists included) answered as Kubernetes protobuf to a client
   * whose `Accept` asks for `application/vnd.kubernetes.protobuf` first, as kube-apiserver does
   * (default true; false: JSON always). Errors stay JSON.
   */
  protobuf?: boolean
  /** Events kept per resource for watch resume (default 1000); an older RV gets an in-stream 410. */
  historyWindow?: number
  /** Bookmark period on watches with allowWatchBookmarks (default 60_000 ms). */
  bookmarkIntervalMs?: number
  /** Continue-token lifetime (default 300_000 ms); an older token gets HTTP 410 Expired. */
  continueTtlMs?: number
  /** Run the mini controllers: scheduler/kubelet, ReplicaSet, Deployment, Job, CronJob, DaemonSet, StatefulSet (default true). */
  controllers?: boolean
  /** Pending → Running delay of a pod (default 50 ms). */
  podStartDelayMs?: number
  /** What the written kubeconfig uses (both are always accepted), default 'cert'. */
  auth?: 'cert' | 'token'
  // ---- additions beyond the contract ----
  /** Terminating → DELETED delay of a scheduled pod (default: podStartDelayMs). */
  podStopDelayMs?: number
  /** How long a Job's pod runs before it succeeds (default 1000 ms; pod annotation `sim.k8s-collector.io/run-ms` overrides). */
  jobRunMs?: number
  /** CronJob clock: 0 = follow each schedule on the wall clock (UTC); N > 0 = every CronJob fires every N ms (default 0). */
  cronIntervalMs?: number
  /** Bearer token accepted by the server (default: the state directory's, else random). */
  token?: string
  /**
   * Directory that keeps the simulator's CA, certificates, token and objects across process restarts
   * (default: none, everything is new at each start). Read at start when present; written on close
   * and about a second after each change.
   */
  stateDir?: string
  /** With stateDir: a new CA, certificates and token instead of the stored ones (default false). */
  freshPki?: boolean
  /** With stateDir: start with no objects instead of the stored ones (default false). */
  freshState?: boolean
  /**
   * Serve HTTP/1.1 only, as `kubectl proxy` and some proxies do: ALPN offers `http/1.1` alone
   * (default false: `h2` and `http/1.1`, as a kube-apiserver does).
   */
  http1Only?: boolean
  /**
   * The clock of the watches' deadlines (timeoutSeconds) and bookmarks (default: the system clock),
   * so that tests run watches of minutes on fake time.
   */
  clock?: Clock
}

/** Resource plurals the simulator serves (`events`: core/v1; events.k8s.io/v1 shows the same objects). */
export type ResourceName =
  | 'pods' | 'replicasets' | 'jobs' | 'deployments' | 'daemonsets' | 'statefulsets' | 'cronjobs'
  | 'namespaces' | 'nodes' | 'leases' | 'events'

/** A failure injected into HTTP requests (faults.failRequests). */
export interface FailRequestsOptions {
  /**
   * Only requests for this resource: a plural (`pods`; `events` is both API groups' events) or a
   * qualified name (`events.events.k8s.io`). Default: every resource request.
   */
  resource?: string
  /** Only these verbs (get, list, watch, create, update, patch, delete, deletecollection); default all. */
  verbs?: string[]
  /** 403 Forbidden (RBAC), 404, 429 TooManyRequests, 500 InternalError, 503 ServiceUnavailable, 504 Timeout. */
  status: 429 | 500 | 503 | 504 | 403 | 404
  /** Sent as `Retry-After` (and Status details) on 429 (default 1), and on 503/504 when given. */
  retryAfterSeconds?: number
  /** How many requests fail (default: no limit). */
  count?: number
  /** How long the failure lasts, ms; it then heals by itself (default: until clearFailures or its count). */
  durationMs?: number
}

/** A failure in force (stats). */
export interface ActiveFailure extends FailRequestsOptions {
  /** Requests failed so far. */
  failed: number
  /** Requests still to fail, when a count was given. */
  remaining?: number
  /** When it heals by itself (ISO time), when a duration was given. */
  until?: string
}

/** One entry of the fault log: a fault injected or healed. */
export interface FaultRecord {
  /** ISO time. */
  readonly at: string
  /** The fault's name (`stallWatches`, `failRequests healed`, `restart down`, …). */
  readonly fault: string
  readonly options?: object
}

/** The faults in force now. */
export interface ActiveFaults {
  readonly stalled: boolean
  readonly delayMs: number
  readonly failures: ActiveFailure[]
  /** Resources whose next watch line will be corrupted. */
  readonly malformedLine: string[]
  /** The listener is closed (restart with downMs): connections are refused. */
  readonly down: boolean
  /** Oversized objects injected and still present (`namespace/name`). */
  readonly oversized: string[]
}

/** What the simulator reports about itself (`sim.stats`, `GET /sim/stats`). */
export interface SimStats {
  readonly watchesOpen: number
  readonly requests: number
  readonly resourceVersion: number
  readonly faults: ActiveFaults
  readonly faultLog: readonly FaultRecord[]
}

/** Options of faults.restart. */
export interface RestartOptions {
  /** Stop serving for this long (connections refused), then listen again on the same port (default 0: no gap). */
  downMs?: number
  /** Come back with a new CA, certificates and token (default false: the same ones). */
  freshPki?: boolean
}

/** Fault injection, from tests or through `POST /sim/faults/{name}`. */
export interface SimFaults {
  /** End every open watch: clean end of the body, or the socket destroyed (`abrupt`). */
  dropWatches(opts?: { abrupt?: boolean }): void
  /** Open watches stop sending anything (no bookmarks either); connections stay open. Off → buffered events flow. */
  stallWatches(on: boolean): void
  /** Forget all history: the next resume from an older RV gets an in-stream 410. */
  compact(): void
  /**
   * An API server restart: every connection cut, history and continue tokens gone (a watch resuming
   * from before the restart gets 410), objects, RV counter, CA and token kept. With `downMs` the port
   * refuses connections for that long first. Resolves once serving again.
   */
  restart(opts?: RestartOptions): Promise<void>
  failRequests(opts: FailRequestsOptions): void
  /** Ends every injected request failure. */
  clearFailures(): void
  /** Delay every response's headers by `delayMs` (0 = off). */
  slowResponses(delayMs: number): void
  /** The next event line sent on watches of that resource is not valid JSON. */
  malformedLine(resource: string): void
  /**
   * Creates a Running pod carrying `bytes` of annotations (default 1,500,000: about the API server's
   * ~1.5 MiB object limit), served whole by lists, gets and watches. Healed by deleting it (or heal()).
   */
  oversizedObject(opts?: { namespace?: string; name?: string; bytes?: number }): { namespace: string; name: string; bytes: number }
  /** Every fault healed: failures cleared, no delay, watches unstalled, no malformed line pending, oversized objects deleted. */
  heal(): void
}

/** Owner of bulk-created pods. */
export interface BulkOwner {
  kind: string
  name: string
  uid: string
}

/** Bulk mode for benchmarks: objects created without controllers, each serialised once. */
export interface SimBulk {
  createPods(n: number, opts?: { namespace?: string; owner?: BulkOwner; containers?: number }): void
  createReplicaSets(n: number, opts?: { namespace?: string; deployment?: string }): Array<{ name: string; uid: string }>
  /** Addition: N finished-or-running Jobs, optionally owned by a CronJob name. */
  createJobs(n: number, opts?: { namespace?: string; cronJob?: string }): Array<{ name: string; uid: string }>
}

export interface SimAuthOptions {
  auth?: 'cert' | 'token'
}

/** A running simulated API server. */
export interface Simulator {
  /** https://HOST:PORT */
  readonly url: string
  /** Kubeconfig YAML text for this server (CA, client cert/key or token). */
  kubeconfig(opts?: SimAuthOptions): string
  writeKubeconfig(file: string, opts?: SimAuthOptions): Promise<void>
  /** Creates an object (same effects as POST); returns the stored object with uid and resourceVersion. */
  create(resource: string, obj: object): any
  /** Replaces an object (same effects as PUT; a stale metadata.resourceVersion → 409 SimApiError). */
  update(resource: string, obj: object): any
  /** JSON merge patch (RFC 7386), same effects as PATCH application/merge-patch+json. */
  patch(resource: string, namespace: string | undefined, name: string, mergePatch: object): any
  /** Deletes (pods with a node terminate gracefully); cascades through ownerReferences in the background. */
  delete(resource: string, namespace: string | undefined, name: string): any
  get(resource: string, namespace: string | undefined, name: string): any | undefined
  list(resource: string, namespace?: string): any[]
  /** The global RV counter now. */
  readonly resourceVersion: number
  runCronJobNow(namespace: string, name: string): void
  readonly faults: SimFaults
  readonly bulk: SimBulk
  readonly stats: SimStats
  /** The bearer token the server accepts. */
  readonly token: string
  close(): Promise<void>
}
