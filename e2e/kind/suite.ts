// The kind suite after its preflight: fixtures up (cluster, image, tap, pre-existing workload,
// collector), every scenario in order, a summary table, teardown unless asked to keep things.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { quiescent, scenarios, type Scenario } from '../scenarios/scenarios.ts'
import { cronJob, deployment, NS, snapshotWorkload } from '../scenarios/workloads.ts'
import { KindCluster } from './backend.ts'
import { DISRUPT_MODES, type DisruptMode } from './disrupt.ts'
import { haScenario } from './ha.ts'
import { checkCollectorEvents } from './events.ts'
import {
  buildAndLoadImage,
  COLLECTOR_SELECTOR,
  COLLECTOR_NAMESPACE,
  collectorManifest,
  controlPlaneNode,
  createKubectl,
  deleteCluster,
  deployCollector,
  ensureCluster,
  startTapContainer,
  TAP_ALIAS,
  undeployCollector,
  type KindSuiteConfig,
  type Kubectl,
  type TapContainer,
} from './setup.ts'

/** workloads.ts labels every pod template with this (`e2e.k8s-collector.io/suite: 'true'`). */
const SUITE_LABEL = 'e2e.k8s-collector.io/suite=true'

export interface ScenarioResult {
  readonly name: string
  readonly ok: boolean
  readonly ms: number
  readonly error?: string
}

/** The suite's settings from the environment (documented in e2e/README.md). */
export function configFromEnv(root: string, env: NodeJS.ProcessEnv = process.env): KindSuiteConfig {
  const disruption = (env.K8S_COLLECTOR_E2E_DISRUPT || 'network') as DisruptMode
  if (!DISRUPT_MODES.includes(disruption)) {
    throw new Error(`K8S_COLLECTOR_E2E_DISRUPT=${JSON.stringify(env.K8S_COLLECTOR_E2E_DISRUPT)} is not one of ${DISRUPT_MODES.join(', ')}`)
  }
  return {
    disruption,
    root,
    clusterName: env.K8S_COLLECTOR_E2E_CLUSTER || 'k8s-collector-e2e',
    keep: env.K8S_COLLECTOR_E2E_KEEP === '1',
    image: 'k8s-collector:e2e',
    ...(env.DENORT_BIN ? { denortBin: denortFrom(env.DENORT_BIN) } : {}),
    kubeconfig: join(mkdtempSync(join(tmpdir(), 'k8s-collector-e2e-')), 'kubeconfig'),
  }
}

/** DENORT_BIN as given (absolute, or relative to the working folder); a missing file is a configuration error. */
function denortFrom(path: string): string {
  if (!existsSync(resolve(path))) throw new Error(`DENORT_BIN=${path} does not exist`)
  return path
}

const started = Date.now()
function log(line: string): void {
  process.stderr.write(`[e2e ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s] ${line}\n`)
}

/** `resource/name` of each manifest (what `kubectl delete` takes). */
function refs(objects: readonly object[]): string[] {
  return (objects as Array<{ kind: string; metadata: { name: string } }>).map((o) => `${o.kind.toLowerCase()}/${o.metadata.name}`)
}

/** Every object the scenarios create in NS, for clearing a reused cluster before the run. */
const SUITE_OBJECTS = refs([...snapshotWorkload(), deployment('late', 1), cronJob('ticker', { runSeconds: 3 })])

/** Scenario 1's pre-existing workload, running before the collector starts. */
async function prepareSnapshot(cluster: KindCluster, kubectl: Kubectl): Promise<void> {
  log('applying the pre-existing workload (Deployment, bare ReplicaSet, Jobs, CronJob run, DaemonSet, StatefulSet, bare and hostNetwork pods)')
  const workload = snapshotWorkload()
  await cluster.apply(workload)
  // Its CronJobs are scheduled far away (03:00); one run of each now gives scenario 1 its
  // CronJob-owned pods (the sim backend does the same).
  for (const o of workload as Array<{ kind: string; metadata: { name: string; namespace?: string } }>) {
    if (o.kind === 'CronJob') await cluster.runCronJob(o.metadata.namespace ?? NS, o.metadata.name, { now: true })
  }
  for (const target of ['statefulset/db', 'deployment/web', 'daemonset/agent']) {
    await kubectl(['rollout', 'status', target, '-n', NS, '--timeout=300s'], { timeoutMs: 320_000 })
  }
  await kubectl(['wait', '--for=condition=Ready', 'pod', '-l', SUITE_LABEL, '-n', NS, '--timeout=300s'], { timeoutMs: 320_000 })
}

/** The collector replicas' last log lines (when deployed), each prefixed by its pod, to read a failure by. */
async function showCollectorLog(kubectl: Kubectl): Promise<void> {
  const logs = await kubectl(['logs', '-n', COLLECTOR_NAMESPACE, '-l', COLLECTOR_SELECTOR, '--prefix', '--tail=30', '--request-timeout=10s']).catch(() => '')
  if (logs) log(`collector log (last 30 lines of each replica):\n${logs.trimEnd()}`)
}

function summary(results: readonly ScenarioResult[]): string {
  const width = Math.max(8, ...results.map((r) => r.name.length))
  const rows = results.map((r) => `${r.name.padEnd(width)}  ${(r.ok ? 'pass' : 'FAIL').padEnd(6)}  ${(r.ms / 1000).toFixed(1).padStart(7)} s`)
  const line = '-'.repeat(width + 19)
  const failed = results.filter((r) => !r.ok).length
  return [line, `${'scenario'.padEnd(width)}  result  duration`, line, ...rows, line, `${results.length - failed} passed, ${failed} failed`].join('\n')
}

/** Runs the suite; resolves with the process exit code (0 when every scenario passed). */
export async function runKindSuite(config: KindSuiteConfig): Promise<number> {
  const kubectl = createKubectl(config.kubeconfig)
  const manifest = collectorManifest(config.root, config.image, TAP_ALIAS)
  let created = false
  let tap: TapContainer | undefined
  let cluster: KindCluster | undefined

  let tornDown: Promise<void> | undefined
  const teardown = (): Promise<void> => (tornDown ??= (async () => {
    if (config.keep) {
      log(`keeping everything (K8S_COLLECTOR_E2E_KEEP=1): KUBECONFIG=${config.kubeconfig}` +
        (tap ? `, tap ${tap.url()}/state (container ${tap.id.slice(0, 12)})` : '') +
        `; clean up with \`kind delete cluster --name ${config.clusterName}\`` + (tap ? ` and \`docker rm -f ${tap.id.slice(0, 12)}\`` : ''))
      return
    }
    log('tearing down')
    const step = (what: string, p: Promise<unknown>) => p.catch((err: unknown) => log(`teardown: ${what} failed: ${err instanceof Error ? err.message : String(err)}`))
    if (created) {
      await step('kind delete cluster', deleteCluster(config))
    } else if (cluster) {
      for (const ns of new Set(cluster.created.map((c) => c.namespace))) {
        const objs = cluster.created.filter((c) => c.namespace === ns).reverse().map((c) => `${c.resource}/${c.name}`)
        await step(`deleting the workloads in ${ns}`, kubectl(['delete', ...objs, '-n', ns, '--ignore-not-found', '--wait=false']))
      }
      await step('deleting the collector namespace and RBAC', undeployCollector(kubectl, manifest, false))
    }
    if (tap) await step('stopping the tap container', tap.stop())
    rmSync(join(config.kubeconfig, '..'), { recursive: true, force: true })
  })())

  const onSignal = (signal: NodeJS.Signals): void => {
    log(`${signal}: stopping`)
    void teardown().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const results: ScenarioResult[] = []
  try {
    created = (await ensureCluster(config, log)).created
    const controlPlane = await controlPlaneNode(config.clusterName)
    if (!created) {
      log('clearing what an earlier run left in the reused cluster')
      await undeployCollector(kubectl, manifest, true)
      await kubectl(['delete', ...SUITE_OBJECTS, '-n', NS, '--ignore-not-found', '--cascade=foreground', '--wait=true', '--timeout=180s'], { timeoutMs: 200_000 })
    }
    await buildAndLoadImage(config, log)
    log(`starting the fake reducer (${config.image} tap) on the kind network as ${TAP_ALIAS}`)
    tap = await startTapContainer(config.image, config.keep)
    log(`tap HTTP API at ${tap.url()}`)
    cluster = new KindCluster({ kubectl, tap, controlPlane, disruption: config.disruption })
    await prepareSnapshot(cluster, kubectl)
    log('deploying the collector (kind/collector.yaml)')
    await deployCollector(kubectl, manifest)
    const leader = await cluster.findCollector()
    log(`collector running; ${leader} leads and connects as ${cluster.collectorHostname}`)

    const ha: Scenario = { name: haScenario.name, run: () => haScenario.run(cluster!, kubectl) }
    const finalCheck: Scenario = { name: '8. quiescent at the end: the tap holds exactly the cluster', run: (c) => quiescent(c).then(() => {}) }
    const kindCluster = cluster
    const eventsCheck: Scenario = {
      name: '9. kubectl shows the collector events (ReducerUnreachable, ReducerConnected)',
      run: async () => checkCollectorEvents(kubectl, await kindCluster.findCollector()),
    }
    for (const scenario of [...scenarios, ha, finalCheck, eventsCheck]) {
      log(`scenario ${scenario.name}`)
      const t = Date.now()
      try {
        await scenario.run(cluster)
        results.push({ name: scenario.name, ok: true, ms: Date.now() - t })
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err)
        results.push({ name: scenario.name, ok: false, ms: Date.now() - t, error })
        log(`FAILED: ${error}`)
        await showCollectorLog(kubectl)
      }
    }
  } catch (err) {
    log(`setup failed: ${err instanceof Error ? err.message : String(err)}`)
    await showCollectorLog(kubectl)
    results.push({ name: 'setup', ok: false, ms: Date.now() - started, error: String(err) })
  } finally {
    await teardown()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }

  process.stdout.write(`${summary(results)}\n`)
  // Scenarios 1–7, the HA scenario, the final quiescence check and the events check.
  return results.every((r) => r.ok) && results.length === scenarios.length + 3 ? 0 : 1
}
