// The part of E2eCluster that works the same on every real API server (kind, the real control
// plane): kubectl for the cluster, a tap's HTTP API for what the reducer holds. The backends add how
// the collector runs and how things are broken.
import type { EventPage, TapState } from '../../src/tap/index.ts'
import { retry } from '../harness/exec.ts'
import type { ClusterObjects, K8sObject } from '../harness/expect.ts'
import type { Kubectl } from '../harness/kubectl.ts'
import type { ApiDisruption, E2eCluster } from './cluster.ts'

/** An object a suite created, to delete at teardown (`kubectl delete <resource> <name> -n <ns>`). */
export interface Created {
  readonly resource: string
  readonly namespace: string
  readonly name: string
}

/** The fake reducer as the scenarios reach it: its HTTP API, and a restart that keeps its address. */
export interface TapEndpoint {
  /** `http://host:port` of the tap's /state, /events. */
  url(): string
  /** Stops the tap and starts it again: the same ingest address, fresh state. */
  restart(): Promise<void>
}

interface Manifest {
  kind?: string
  metadata?: { name?: string; namespace?: string }
}

/** kubectl's resource name for a manifest kind (the kinds the scenarios create). */
const RESOURCE: Record<string, string> = {
  Pod: 'pods',
  ReplicaSet: 'replicasets',
  Deployment: 'deployments',
  Job: 'jobs',
  CronJob: 'cronjobs',
  DaemonSet: 'daemonsets',
  StatefulSet: 'statefulsets',
}

/** Cluster operations through kubectl, reducer state through the tap; see the backends for the rest. */
export abstract class KubectlCluster implements E2eCluster {
  abstract readonly name: E2eCluster['name']
  abstract readonly collectorHostname: string
  readonly settleMs: number
  /** Everything apply() and runCronJob() created, oldest first. */
  readonly created: Created[] = []

  constructor(
    protected readonly kubectl: Kubectl,
    protected readonly tap: TapEndpoint,
    settleMs: number,
  ) {
    this.settleMs = settleMs
  }

  abstract restartCollector(): Promise<void>
  abstract disruptApi(kind: ApiDisruption, meanwhile?: () => Promise<void>): Promise<ApiDisruption[]>

  async apply(objects: readonly object[]): Promise<void> {
    const list = { apiVersion: 'v1', kind: 'List', items: objects }
    await retry(() => this.kubectl(['apply', '-f', '-'], { input: JSON.stringify(list) }), 3, 2000)
    for (const o of objects as Manifest[]) {
      const resource = RESOURCE[o.kind ?? ''] ?? o.kind?.toLowerCase()
      if (resource && o.metadata?.name) this.created.push({ resource, namespace: o.metadata.namespace ?? 'default', name: o.metadata.name })
    }
  }

  async patch(resource: string, namespace: string, name: string, mergePatch: object): Promise<void> {
    await this.kubectl(['patch', resource, name, '-n', namespace, '--type', 'merge', '-p', JSON.stringify(mergePatch)])
  }

  /** Deletes and waits until the object is gone (pods: after their 1 s grace period). */
  async delete(resource: string, namespace: string, name: string): Promise<void> {
    await this.kubectl(['delete', resource, name, '-n', namespace, '--wait=true', '--timeout=90s'], { timeoutMs: 100_000 })
  }

  /**
   * `now`: `kubectl create job --from=cronjob/<name>` (the Job gets the CronJob as its controller
   * owner, like a scheduled run). Otherwise nothing: the CronJob controller runs it on schedule.
   */
  async runCronJob(namespace: string, name: string, opts: { now?: boolean } = {}): Promise<void> {
    if (!opts.now) return
    const job = `${name}-e2e-${Date.now().toString(36)}`.slice(0, 63)
    await this.kubectl(['create', 'job', job, `--from=cronjob/${name}`, '-n', namespace])
    this.created.push({ resource: 'jobs', namespace, name: job })
  }

  async objects(): Promise<ClusterObjects> {
    // Retried: a scenario polls this while the API server may still be settling after a disruption.
    const text = await retry(() => this.kubectl(['get', 'pods,replicasets,jobs', '-A', '-o', 'json', '--request-timeout=15s'], { timeoutMs: 20_000 }), 5, 2000)
    const items = (JSON.parse(text) as { items: Array<K8sObject & { kind: string }> }).items
    return {
      pods: items.filter((o) => o.kind === 'Pod'),
      replicasets: items.filter((o) => o.kind === 'ReplicaSet'),
      jobs: items.filter((o) => o.kind === 'Job'),
    }
  }

  protected async tapGet<T>(path: string): Promise<T> {
    return retry(async () => {
      const res = await fetch(`${this.tap.url()}${path}`, { signal: AbortSignal.timeout(10_000) })
      if (!res.ok) throw new Error(`tap ${path}: HTTP ${res.status} ${await res.text()}`)
      return (await res.json()) as T
    }, 3, 1000)
  }

  tapState(): Promise<TapState> {
    return this.tapGet<TapState>('/state')
  }

  /** Every record after `since` in one page (the tap's largest page equals its default log size). */
  tapEvents(since: number): Promise<EventPage> {
    return this.tapGet<EventPage>(`/events?since=${since}&limit=100000`)
  }

  restartReducer(): Promise<void> {
    return this.tap.restart()
  }
}
