// `helm install` of charts/k8s-collector into the real control plane (issue 32): every object
// accepted by the real kube-apiserver, the Deployment's pods scheduled on the kwok nodes; then the
// collector, configured as the chart's Deployment configures it, run as a process with a
// TokenRequest token of the chart's ServiceAccount: it works with exactly the chart's RBAC, and
// `kubectl auth can-i --list` for that account grants nothing the README does not say it needs.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadAllYaml, loadYaml } from '@kubernetes/client-node'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { converged } from '../harness/expect.ts'
import { createKubectl, type Kubectl } from '../harness/kubectl.ts'
import { metric, RUNTIMES } from '../harness/process.ts'
import { startTapProcess, type TapProcess } from '../harness/tap-process.ts'
import { waitFor } from '../harness/wait.ts'
import { K8sCluster } from '../k8s/backend.ts'
import { startControlPlane, type ControlPlane } from '../k8s/control-plane.ts'
import { prometheusRuleCrdPath } from './build.ts'
import { CHART_DIR, helm, NAMESPACE, RELEASE } from './chart.ts'

interface PodJson {
  metadata: { name: string; uid: string; namespace: string }
  spec: { nodeName?: string; serviceAccountName?: string }
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }> }
}
interface EnvVar { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }

/** One row of `kubectl auth can-i --list`: resource (with group), resource names, verbs; or a non-resource URL. */
type Grant = string

/**
 * What the README ("High availability", "Container image") says the collector needs, in
 * `kubectl auth can-i --list` rows: list/watch of pods, replicasets and jobs everywhere; in its own
 * namespace create/patch of events (both groups), get/update of its Lease by name, create of leases.
 */
const NEEDED_CLUSTER_WIDE: readonly Grant[] = ['pods [] [list watch]', 'replicasets.apps [] [list watch]', 'jobs.batch [] [list watch]']
const NEEDED_IN_NAMESPACE: readonly Grant[] = [
  ...NEEDED_CLUSTER_WIDE,
  'events [] [create patch]',
  'events.events.k8s.io [] [create patch]',
  `leases.coordination.k8s.io [${RELEASE}] [get update]`,
  'leases.coordination.k8s.io [] [create]',
]

/** `kubectl auth can-i --list` rows as `resource [names] [verbs]` (non-resource URLs as `url [] [verbs]`). */
function grants(table: string): Grant[] {
  const rows: Grant[] = []
  for (const line of table.split('\n').slice(1)) {
    const m = /^(\S*)\s+\[(.*?)\]\s+\[(.*?)\]\s+\[(.*?)\]\s*$/.exec(line)
    if (!m) continue
    const [, resource, urls, names, verbs] = m
    for (const url of resource ? [resource] : urls!.split(' ')) rows.push(`${url} [${names}] [${verbs}]`)
  }
  return rows.sort()
}

const RULES_FILE = join(CHART_DIR, '..', '..', 'deploy', 'prometheus', 'k8s-collector-rules.yaml')

/** The cached PrometheusRule CRD; a missing one fails with what to run. */
function resolvePrometheusRuleCrd(): string {
  const file = prometheusRuleCrdPath()
  assert.ok(existsSync(file), `no ${file}: run \`npm run helm -- --build-only\` (it fetches prometheus-operator's CRD through the Go module proxy)`)
  return file
}

/** What the default values install. */
const ALL_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Role', 'RoleBinding', 'PodDisruptionBudget', 'Deployment']

const without = (rows: readonly Grant[], baseline: readonly Grant[]) => rows.filter((r) => !baseline.includes(r))

describe('helm install into the real control plane', () => {
  let plane: ControlPlane
  let kubectl: Kubectl
  let helmHome: string
  let tap: TapProcess | undefined
  let cluster: K8sCluster | undefined
  const helmIn = (args: readonly string[]) =>
    helm([...args, '--kubeconfig', plane.adminKubeconfig], {
      env: { HELM_CACHE_HOME: join(helmHome, 'cache'), HELM_CONFIG_HOME: join(helmHome, 'config'), HELM_DATA_HOME: join(helmHome, 'data') },
      timeoutMs: 180_000,
    })
  const podsOf = async (ns: string, release: string) =>
    (JSON.parse(await kubectl(['get', 'pods', '-n', ns, '-l', `app.kubernetes.io/instance=${release}`, '-o', 'json'])) as { items: PodJson[] }).items

  beforeAll(async () => {
    plane = await startControlPlane({ nodes: 2 })
    kubectl = createKubectl(plane.adminKubeconfig)
    helmHome = mkdtempSync(join(tmpdir(), 'helm-home-'))
  }, 240_000)

  afterAll(async () => {
    await cluster?.close()
    if (!cluster) await tap?.stop()
    await plane?.stop()
    if (helmHome) rmSync(helmHome, { recursive: true, force: true })
  }, 60_000)

  /** Installs `release` with `args`, waits for its Deployment; checks every object is there and its pods run on the fake nodes. */
  async function install(release: string, ns: string, replicas: number, kinds: readonly string[], args: readonly string[]): Promise<PodJson[]> {
    await helmIn(['install', release, CHART_DIR, '--namespace', ns, '--create-namespace', '--wait', '--timeout', '150s', ...args])
    const manifest = await helmIn(['get', 'manifest', release, '--namespace', ns])
    const docs = loadAllYaml(manifest) as Array<{ kind: string; metadata: { name: string; namespace?: string } }>
    assert.deepEqual(docs.map((d) => d.kind).sort(), [...kinds].sort())
    for (const d of docs) {
      const uid = await kubectl(['get', d.kind, d.metadata.name, ...(d.metadata.namespace ? ['-n', d.metadata.namespace] : []), '-o', 'jsonpath={.metadata.uid}'])
      assert.match(uid, /^[0-9a-f-]{36}$/, `${d.kind} ${d.metadata.name} stored by the API server`)
    }
    const pods = await podsOf(ns, release)
    assert.equal(pods.length, replicas)
    for (const p of pods) {
      assert.ok(plane.nodeNames.includes(p.spec.nodeName!), `${p.metadata.name} scheduled on a fake node (${p.spec.nodeName})`)
      assert.equal(p.status?.phase, 'Running')
      assert.ok(p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'), `${p.metadata.name} Ready`)
    }
    return pods
  }

  it('default values: every object accepted, two replicas Running on two different fake nodes', async () => {
    const pods = await install(RELEASE, NAMESPACE, 2, ALL_KINDS, [])
    assert.equal(new Set(pods.map((p) => p.spec.nodeName)).size, 2, 'the anti-affinity spread the replicas')
    assert.ok(pods.every((p) => p.spec.serviceAccountName === RELEASE))
    await waitFor('the PodDisruptionBudget to count both replicas', async () => {
      const s = (JSON.parse(await kubectl(['get', 'pdb', RELEASE, '-n', NAMESPACE, '-o', 'json'])) as { status: { currentHealthy: number; disruptionsAllowed: number } }).status
      return s.currentHealthy === 2 && s.disruptionsAllowed === 1 ? true : undefined
    }, { timeoutMs: 30_000 })
  }, 200_000)

  it('single-small values install into namespace small with one replica', async () => {
    // No Lease Role, no events Role, no disruption budget with one replica.
    await install('single-small', 'small', 1, ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Deployment'], ['-f', join(CHART_DIR, 'ci', 'single-small-values.yaml')])
  }, 200_000)

  it("custom values install with 3 replicas; the PrometheusRule passes prometheus-operator's CRD schema", async () => {
    // The CRD as prometheus-operator ships it (cached by `npm run helm -- --build-only`): the API
    // server then validates the PrometheusRule against the CRD's OpenAPI schema, as in a cluster
    // that runs the operator.
    const crd = resolvePrometheusRuleCrd()
    await kubectl(['apply', '--server-side', '-f', crd])
    await kubectl(['wait', '--for=condition=Established', 'crd/prometheusrules.monitoring.coreos.com', '--timeout=60s'], { timeoutMs: 90_000 })
    // The Grafana dashboard's ConfigMap is stored like any other object.
    await install('custom', 'custom', 3, [...ALL_KINDS, 'ConfigMap', 'PrometheusRule'], ['-f', join(CHART_DIR, 'ci', 'custom-values.yaml')])
    const stored = JSON.parse(await kubectl(['get', 'prometheusrule', 'netcollector', '-n', 'custom', '-o', 'json'])) as { metadata: { labels: Record<string, string> }; spec: unknown }
    // Every rule of deploy/prometheus/k8s-collector-rules.yaml, as stored (the schema prunes nothing).
    assert.deepEqual(stored.spec, loadYaml(readFileSync(RULES_FILE, 'utf8')))
    assert.equal(stored.metadata.labels.release, 'kube-prometheus-stack', "the operator's ruleSelector label")
    // The schema is enforced: a rule without `expr` is refused by the real API server.
    const broken = { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: 'broken', namespace: 'custom' }, spec: { groups: [{ name: 'g', rules: [{ alert: 'A' }] }] } }
    await assert.rejects(kubectl(['apply', '--dry-run=server', '-f', '-'], { input: JSON.stringify(broken) }), /expr: Required value/)
  }, 240_000)

  it("the collector with a token of the chart's ServiceAccount works with the chart's RBAC alone", async () => {
    const [pod] = await podsOf(NAMESPACE, RELEASE)
    assert.ok(pod, 'a pod of the chart')
    // The Deployment's environment, the downward API resolved for that pod.
    const deployment = JSON.parse(await kubectl(['get', 'deployment', RELEASE, '-n', NAMESPACE, '-o', 'json'])) as { spec: { template: { spec: { containers: Array<{ env: EnvVar[] }> } } } }
    const fields: Record<string, string> = { 'metadata.name': pod.metadata.name, 'metadata.namespace': NAMESPACE, 'metadata.uid': pod.metadata.uid, 'spec.nodeName': pod.spec.nodeName! }
    const env: Record<string, string> = {}
    for (const e of deployment.spec.template.spec.containers[0]!.env) {
      const value = e.valueFrom?.fieldRef ? fields[e.valueFrom.fieldRef.fieldPath]! : e.value!.replace(/\$\((\w+)\)/g, (_, v: string) => env[v]!)
      env[e.name] = value
    }
    assert.equal(env.K8S_COLLECTOR_LEADER_ELECT, 'true')
    const token = (await kubectl(['create', 'token', RELEASE, '-n', NAMESPACE, '--duration=1h'])).trim()
    const kubeconfig = plane.writeKubeconfig('chart-token', { token })
    tap = await startTapProcess()
    // Flags (the tap's address, --hostname, --log-format) win over the Deployment's variables.
    cluster = new K8sCluster(plane, createKubectl(plane.adminKubeconfig), tap, RUNTIMES.node!, kubeconfig, { env, hostname: 'chart-sa' })
    await cluster.restartCollector()
    const c = cluster
    await converged(async () => ({ cluster: await c.objects(), tap: await c.tapState() }), 'chart-sa', 60_000)
    const text = await waitFor('leader, every stream available, the first Events written', async () => {
      const t = await c.collectorProcess()!.metrics()
      const ok = metric(t, 'k8s_collector_leader') === 1
        && ['pods', 'replicasets', 'jobs'].every((s) => metric(t, 'k8s_collector_stream_available', `stream="${s}"`) === 1)
        && (metric(t, 'k8s_collector_events_emitted_total', 'reason="LeaderElected"') ?? 0) >= 1
        && (metric(t, 'k8s_collector_events_emitted_total', 'reason="ReducerConnected"') ?? 0) >= 1
      return ok ? t : undefined
    }, { timeoutMs: 60_000, describe: () => c.collectorLog().slice(-2000) })
    assert.doesNotMatch(text, /status="403"\} [1-9]/, 'no request refused by RBAC')
    assert.equal(metric(text, 'k8s_collector_events_dropped_total', 'cause="forbidden"') ?? 0, 0)
    const holder = (await kubectl(['get', 'lease', env.K8S_COLLECTOR_LEASE_NAME!, '-n', NAMESPACE, '-o', 'jsonpath={.spec.holderIdentity}'])).trim()
    assert.ok(holder.length > 0, 'the Lease has a holder')
    const described = await kubectl(['describe', 'pod', pod.metadata.name, '-n', NAMESPACE])
    assert.match(described, /ReducerConnected/)
  }, 120_000)

  it("kubectl auth can-i --list for the chart's ServiceAccount: exactly what the README says it needs", async () => {
    // What every authenticated account may do (discovery, self-reviews): the `default` account's list.
    const tokenOf = async (account: string) => plane.writeKubeconfig(`can-i-${account}`, { token: (await kubectl(['create', 'token', account, '-n', NAMESPACE])).trim() })
    const canI = async (kubeconfig: string, ns: string) => grants(await createKubectl(kubeconfig)(['auth', 'can-i', '--list', '-n', ns]))
    const baseline = await tokenOf('default')
    const chart = await tokenOf(RELEASE)
    for (const [ns, needed] of [[NAMESPACE, NEEDED_IN_NAMESPACE], ['default', NEEDED_CLUSTER_WIDE]] as const) {
      const extra = without(await canI(chart, ns), await canI(baseline, ns))
      assert.deepEqual(extra, [...needed].sort(), `namespace ${ns}`)
    }
  }, 60_000)
})
