// E2eCluster on a real kind cluster: kubectl for the cluster, the tap container's HTTP API for
// what the reducer holds, Docker for breaking things (tap restart, disrupt.ts for the API path).
import type { K8sObject } from '../harness/expect.ts'
import { waitFor } from '../harness/wait.ts'
import type { ApiDisruption } from '../scenarios/cluster.ts'
import { KubectlCluster } from '../scenarios/kubectl-cluster.ts'
import { cutApiPath, restartApiServer, type DisruptMode } from './disrupt.ts'
import { COLLECTOR_LEASE, COLLECTOR_SELECTOR, COLLECTOR_NAMESPACE, type Kubectl, type TapContainer } from './setup.ts'

/** How long convergence may take on kind (image pulls, scheduling, controller resyncs), ms. */
export const KIND_SETTLE_MS = 120_000

export interface KindClusterOptions {
  readonly kubectl: Kubectl
  readonly tap: TapContainer
  /** Docker container of the control-plane node (`<cluster>-control-plane`). */
  readonly controlPlane: string
  readonly settleMs?: number
  /** How disruptApi breaks things (K8S_COLLECTOR_E2E_DISRUPT); default `network`. */
  readonly disruption?: DisruptMode
}

export interface PodJson extends K8sObject {
  spec?: K8sObject['spec'] & { nodeName?: string }
  status?: K8sObject['status'] & { conditions?: Array<{ type: string; status: string }> }
}

export const isReady = (p: PodJson) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true

/** The kind backend of the scenarios; see e2e/README.md for how it breaks things. */
export class KindCluster extends KubectlCluster {
  readonly name = 'kind' as const
  private readonly controlPlane: string
  private readonly disruption: DisruptMode
  private hostname = ''
  private collectorPod = ''

  constructor(opts: KindClusterOptions) {
    super(opts.kubectl, opts.tap, opts.settleMs ?? KIND_SETTLE_MS)
    this.controlPlane = opts.controlPlane
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
    const list = JSON.parse(await this.kubectl(['get', 'pods', '-n', COLLECTOR_NAMESPACE, '-l', COLLECTOR_SELECTOR, '-o', 'json', '--request-timeout=10s'])) as { items: PodJson[] }
    return list.items
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
