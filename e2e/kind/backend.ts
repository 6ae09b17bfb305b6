// E2eCluster on a real kind cluster: kubectl for the cluster, the tap container's HTTP API for
// what the reducer holds, Docker for breaking things (tap restart, disrupt.ts for the API path).
import type { EventPage, TapState } from '../../src/tap/index.ts'
import type { ClusterObjects, K8sObject } from '../harness/expect.ts'
import { waitFor } from '../harness/wait.ts'
import type { ApiDisruption, E2eCluster } from '../scenarios/cluster.ts'
import { cutApiPath, restartApiServer, type DisruptMode } from './disrupt.ts'
import { retry } from './exec.ts'
import { COLLECTOR_APP, COLLECTOR_LEASE, COLLECTOR_NAMESPACE, type Kubectl, type TapContainer } from './setup.ts'

/** How long convergence may take on kind (image pulls, scheduling, controller resyncs), ms. */
export const KIND_SETTLE_MS = 120_000

/** An object the suite created, to delete at teardown (`kubectl delete <resource> <name> -n <ns>`). */
export interface Created {
  readonly resource: string
  readonly namespace: string
  readonly name: string
}

export interface KindClusterOptions {
  readonly kubectl: Kubectl
  readonly tap: TapContainer
  /** Docker container of the control-plane node (`<cluster>-control-plane`). */
  readonly controlPlane: string
  readonly settleMs?: number
  /** How disruptApi breaks things (K8S_COLLECTOR_E2E_DISRUPT); default `network`. */
  readonly disruption?: DisruptMode
}

interface Manifest {
  kind?: string
  metadata?: { name?: string; namespace?: string }
}

export interface PodJson extends K8sObject {
  spec?: K8sObject['spec'] & { nodeName?: string }
  status?: K8sObject['status'] & { conditions?: Array<{ type: string; status: string }> }
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

export const isReady = (p: PodJson) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true

/** The kind backend of the scenarios; see e2e/README.md for how it breaks things. */
export class KindCluster implements E2eCluster {
  readonly name = 'kind' as const
  readonly settleMs: number
  /** Everything apply() and runCronJob() created, oldest first. */
  readonly created: Created[] = []
  private readonly kubectl: Kubectl
  private readonly tap: TapContainer
  private readonly controlPlane: string
  private readonly disruption: DisruptMode
  private hostname = ''
  private collectorPod = ''

  constructor(opts: KindClusterOptions) {
    this.kubectl = opts.kubectl
    this.tap = opts.tap
    this.controlPlane = opts.controlPlane
    this.settleMs = opts.settleMs ?? KIND_SETTLE_MS
    this.disruption = opts.disruption ?? 'network'
  }

  /**
   * kind/collector.yaml sets K8S_COLLECTOR_HOSTNAME to the pod's spec.nodeName, so the collector
   * connects as the node it runs on; read from the leader's pod (again after every collector restart).
   */
  get collectorHostname(): string {
    if (!this.hostname) throw new Error('collectorHostname read before the collector pod was found (call findCollector first)')
    return this.hostname
  }

  /** The pod the collector's Lease names (its identity is `<pod name>_<uuid>`: a pod's hostname is its name), if any. */
  async leaderPod(): Promise<string | undefined> {
    const holder = await this.kubectl(['get', 'lease', COLLECTOR_LEASE, '-n', COLLECTOR_NAMESPACE, '-o', 'jsonpath={.spec.holderIdentity}', '--request-timeout=10s']).catch(() => '')
    const at = holder.trim().lastIndexOf('_')
    return at > 0 ? holder.trim().slice(0, at) : undefined
  }

  /**
   * Finds the running, ready collector pod that leads (the Lease names it; not one of `exclude`);
   * records its node as the hostname the scenarios look for.
   */
  async findCollector(exclude: readonly string[] = [], timeoutMs = this.settleMs): Promise<string> {
    const pod = await waitFor(`a ready collector pod leading${exclude.length ? `, other than ${exclude.join(', ')}` : ''}`, async () => {
      const [pods, leader] = await Promise.all([this.collectorPods().catch(() => []), this.leaderPod()])
      return pods.find((p) => p.metadata.name === leader && !exclude.includes(leader) && !p.metadata.deletionTimestamp && p.spec?.nodeName && isReady(p))
    }, { timeoutMs })
    this.hostname = pod.spec!.nodeName!
    this.collectorPod = pod.metadata.name
    return pod.metadata.name
  }

  /** The collector's pods (both replicas, and any being replaced). */
  async collectorPods(): Promise<PodJson[]> {
    const list = JSON.parse(await this.kubectl(['get', 'pods', '-n', COLLECTOR_NAMESPACE, '-l', `app=${COLLECTOR_APP}`, '-o', 'json', '--request-timeout=10s'])) as { items: PodJson[] }
    return list.items
  }

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
   * owner, like a scheduled run). Otherwise nothing: kind's CronJob controller runs it on schedule.
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

  private async tapGet<T>(path: string): Promise<T> {
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

  /** `/readyz` of a collector pod through the API server's pod proxy (the image has no shell). */
  collectorReadyz(pod: string): Promise<string> {
    return this.kubectl(['get', '--raw', `/api/v1/namespaces/${COLLECTOR_NAMESPACE}/pods/${pod}:8080/proxy/readyz`, '--request-timeout=10s'])
  }

  /**
   * Deletes the leading collector pod (SIGTERM: it closes its connection and releases the Lease);
   * the standby takes over and the ReplicaSet starts a replacement. Resolves once another pod leads.
   */
  async restartCollector(): Promise<void> {
    const leader = this.collectorPod || (await this.findCollector())
    await this.kubectl(['delete', 'pod', leader, '-n', COLLECTOR_NAMESPACE, '--wait=true', '--timeout=90s'], { timeoutMs: 100_000 })
    await this.findCollector([leader])
  }

  /**
   * kind can do `drop-watches` only (`gone` and `stall` have no clean equivalent on a real API
   * server and are refused): by default the collector's own path to the API server is cut while
   * `meanwhile` runs; with `disruption: 'apiserver'` the kube-apiserver container is restarted
   * instead (disrupt.ts explains both).
   */
  async disruptApi(kind: ApiDisruption, meanwhile?: () => Promise<void>): Promise<ApiDisruption[]> {
    if (kind !== 'drop-watches') throw new Error(`the kind backend cannot simulate '${kind}' (only drop-watches)`)
    if (this.disruption === 'apiserver') {
      await restartApiServer(this.kubectl, this.controlPlane, meanwhile)
    } else {
      await cutApiPath(this.kubectl, { node: this.collectorHostname, namespace: COLLECTOR_NAMESPACE, name: this.collectorPod }, meanwhile)
    }
    return ['drop-watches']
  }
}
