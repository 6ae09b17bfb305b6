// E2eCluster on the real control plane (issue 30 item 3): kubectl for the cluster, the tap as a
// local process for the reducer, the collector as a local process (any runtime) with the RBAC of
// kind/collector.yaml, and a real kube-apiserver restart for the API disruption.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKubectl, type Kubectl } from '../harness/kubectl.ts'
import { RUNTIMES, root, startCollector, type CollectorProcess } from '../harness/process.ts'
import { startTapProcess, type TapProcess } from '../harness/tap-process.ts'
import { waitFor } from '../harness/wait.ts'
import type { ApiDisruption } from '../scenarios/cluster.ts'
import { KubectlCluster } from '../scenarios/kubectl-cluster.ts'
import type { ControlPlane } from './control-plane.ts'

/** The collector's namespace and ServiceAccount in kind/collector.yaml. */
export const COLLECTOR_NAMESPACE = 'k8s-collector'
export const COLLECTOR_ACCOUNT = 'k8s-collector'

/** How the collector authenticates: a TokenRequest token of its ServiceAccount, or a client certificate with the same identity. */
export type CollectorAuth = 'token' | 'cert'

/** kind/collector.yaml's Namespace, ServiceAccount and RBAC documents (not its Deployment): the collector's least privilege. */
export function collectorRbacManifest(): string {
  const docs = readFileSync(join(root, 'kind', 'collector.yaml'), 'utf8').split(/^---$/m)
  const keep = /^kind: (Namespace|ServiceAccount|ClusterRole|ClusterRoleBinding|Role|RoleBinding)$/m
  return docs.filter((d) => keep.test(d)).join('\n---\n')
}

/**
 * Applies the collector's RBAC and writes a kubeconfig for its identity (`system:serviceaccount:
 * k8s-collector:k8s-collector`): a bound token from the TokenRequest API, or a client certificate
 * from the cluster CA with that user name (the same RBAC applies to both).
 */
export async function collectorKubeconfig(plane: ControlPlane, kubectl: Kubectl, auth: CollectorAuth, server?: string): Promise<string> {
  await kubectl(['apply', '-f', '-'], { input: collectorRbacManifest() })
  if (auth === 'token') {
    const token = (await kubectl(['create', 'token', COLLECTOR_ACCOUNT, '-n', COLLECTOR_NAMESPACE, '--duration=2h'])).trim()
    return plane.writeKubeconfig('collector-token', { token }, server)
  }
  const pair = await plane.pki.issueClient(`system:serviceaccount:${COLLECTOR_NAMESPACE}:${COLLECTOR_ACCOUNT}`, ['system:serviceaccounts', `system:serviceaccounts:${COLLECTOR_NAMESPACE}`])
  return plane.writeKubeconfig('collector-cert', { certPem: pair.cert, keyPem: pair.key }, server)
}

/** How the collector of a backend runs. */
export interface CollectorSetup {
  /** A key of RUNTIMES (default node). */
  readonly runtime?: string
  readonly auth?: CollectorAuth
  /** The API server address in the collector's kubeconfig (a proxy in front of the plane; default the plane's). */
  readonly server?: string
  readonly extraArgs?: readonly string[]
  readonly env?: Record<string, string>
  /** The hostname the collector connects to the reducer as (default `e2e-k8s`). */
  readonly hostname?: string
  /** The reducer port the collector is given (a proxy in front of the tap; default the tap's ingest port). */
  readonly intakePort?: number
}

/** The real-control-plane backend of the scenarios. */
export class K8sCluster extends KubectlCluster {
  readonly name = 'k8s' as const
  readonly collectorHostname: string
  private collector: CollectorProcess | undefined

  constructor(
    readonly plane: ControlPlane,
    kubectl: Kubectl,
    readonly tapProcess: TapProcess,
    private readonly runtime: string[],
    /** The collector's kubeconfig. */
    readonly kubeconfig: string,
    private readonly setup: CollectorSetup = {},
  ) {
    super(kubectl, tapProcess, 30_000)
    this.collectorHostname = setup.hostname ?? 'e2e-k8s'
  }

  /** Starts the collector (again: a new process). */
  async restartCollector(): Promise<void> {
    const old = this.collector
    if (old && old.child.exitCode === null && old.child.signalCode === null) {
      const gone = new Promise((r) => old.child.once('exit', r))
      old.child.kill('SIGKILL')
      await gone
    }
    this.collector = await startCollector(this.runtime, {
      kubeconfig: this.kubeconfig, intakePort: this.setup.intakePort ?? this.tapProcess.ingestPort, hostname: this.collectorHostname,
      extraArgs: [...(this.setup.extraArgs ?? [])], env: this.setup.env,
    })
  }

  /**
   * `drop-watches`: kube-apiserver is SIGKILLed and started again while `meanwhile` waits for it
   * (every watch and list ends; what changed meanwhile is made once it serves again). `gone` and
   * `stall` have their own tests against the real server (e2e/k8s/real-server.test.ts).
   */
  async disruptApi(kind: ApiDisruption, meanwhile?: () => Promise<void>): Promise<ApiDisruption[]> {
    if (kind !== 'drop-watches') throw new Error(`the k8s backend cannot simulate '${kind}' in the scenarios (only drop-watches)`)
    await this.plane.restartApiServer()
    await meanwhile?.()
    return ['drop-watches']
  }

  collectorLog(): string {
    return this.collector?.stderr() ?? ''
  }

  collectorProcess(): CollectorProcess | undefined {
    return this.collector
  }

  async close(): Promise<void> {
    const c = this.collector
    if (c && c.child.exitCode === null) await c.stop().catch(() => c.child.kill('SIGKILL'))
    await this.tapProcess.stop()
  }
}

/** How many pods `workload` runs on `nodes` nodes, each CronJob run once. */
function podsOf(workload: readonly object[], nodes: number): number {
  let n = 0
  for (const o of workload as Array<{ kind: string; spec?: { replicas?: number } }>) {
    if (o.kind === 'DaemonSet') n += nodes
    else if (o.kind === 'Pod' || o.kind === 'Job' || o.kind === 'CronJob') n += 1
    else n += o.spec?.replicas ?? 1
  }
  return n
}

/**
 * Applies `workload` to the control plane, runs each CronJob once (`kubectl create job --from`),
 * waits until every pod runs, then starts the tap (or takes `tap`, started with a proxy in front of
 * it) and the collector as `setup` says.
 */
export async function startK8sBackend(plane: ControlPlane, workload: readonly object[], setup: CollectorSetup = {}, given?: TapProcess): Promise<K8sCluster> {
  const runtime = setup.runtime ?? 'node'
  const cmd = RUNTIMES[runtime]
  if (!cmd) throw new Error(`unknown runtime ${runtime}`)
  const kubectl = createKubectl(plane.adminKubeconfig)
  const kubeconfig = await collectorKubeconfig(plane, kubectl, setup.auth ?? 'token', setup.server)
  const tap = given ?? (await startTapProcess())
  const cluster = new K8sCluster(plane, kubectl, tap, cmd, kubeconfig, setup)
  await cluster.apply(workload)
  for (const o of workload as Array<{ kind: string; metadata: { name: string; namespace?: string } }>) {
    if (o.kind === 'CronJob') await cluster.runCronJob(o.metadata.namespace ?? 'default', o.metadata.name, { now: true })
  }
  const expected = podsOf(workload, plane.nodeNames.length)
  await waitFor(`the workload's ${expected} pods to run`, async () => {
    const { pods } = await cluster.objects()
    const mine = pods.filter((p) => p.metadata.namespace !== COLLECTOR_NAMESPACE)
    return mine.length === expected && mine.every((p) => p.status?.phase === 'Running') ? true : undefined
  }, { timeoutMs: 90_000, intervalMs: 500 })
  await cluster.restartCollector()
  return cluster
}
