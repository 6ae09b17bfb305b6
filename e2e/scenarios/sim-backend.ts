// The simulator backend of the e2e scenarios: the API simulator in process (its mini controllers
// play the cluster), and the tap and the collector as local processes built from dist/.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { EventPage, TapState } from '../../src/tap/index.ts'
import { startSimulator, type Simulator } from '../sim/index.ts'
import type { ClusterObjects } from '../harness/expect.ts'
import { startTapProcess } from '../harness/tap-process.ts'
import { root, RUNTIMES, startCollector, type CollectorProcess } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import type { ApiDisruption, E2eCluster } from './cluster.ts'

const PLURAL: Record<string, string> = {
  Pod: 'pods', ReplicaSet: 'replicasets', Deployment: 'deployments', Job: 'jobs', CronJob: 'cronjobs',
  DaemonSet: 'daemonsets', StatefulSet: 'statefulsets', Namespace: 'namespaces',
}

export interface SimBackend extends E2eCluster {
  readonly sim: Simulator
  /** Stops the collector, the tap and the simulator. */
  close(): Promise<void>
  /** The collector's stderr so far (for failure messages). */
  collectorLog(): string
}

/**
 * Starts the simulator with `workload` applied and running, the tap, and the collector (`runtime`:
 * a key of RUNTIMES, default node).
 */
export async function startSimBackend(workload: readonly object[], runtime = 'node'): Promise<SimBackend> {
  const cmd = RUNTIMES[runtime]
  if (!cmd) throw new Error(`unknown runtime ${runtime}`)
  const artifact = cmd.find((a) => a.includes(`${join(root, 'dist')}`))
  if (artifact && !existsSync(artifact)) throw new Error(`${artifact} is missing: run \`npm run build\` (and \`npm run compile:sea\` for sea) first; npm test does`)
  const dir = mkdtempSync(join(tmpdir(), 'e2e-sim-'))
  const kubeconfig = join(dir, 'kubeconfig')
  // Job pods run for what their template annotation says; CronJobs only run when asked ("run now").
  const sim = await startSimulator({ nodes: 3, podStartDelayMs: 100, podStopDelayMs: 100, jobRunMs: 3_600_000 })
  await sim.writeKubeconfig(kubeconfig)
  const hostname = 'e2e-sim'
  const tap = await startTapProcess()
  const tcpPort = tap.ingestPort
  let collector: CollectorProcess | undefined

  const tapGet = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${tap.url()}${path}`)
    if (!res.ok) throw new Error(`tap ${path}: HTTP ${res.status}`)
    return (await res.json()) as T
  }

  const backend: SimBackend = {
    name: 'sim',
    sim,
    collectorHostname: hostname,
    settleMs: 20_000,
    async apply(objects) {
      for (const o of objects as Array<{ kind: string }>) {
        const plural = PLURAL[o.kind]
        if (!plural) throw new Error(`the sim backend cannot apply kind ${o.kind}`)
        sim.create(plural, o)
      }
    },
    async patch(resource, namespace, name, mergePatch) {
      sim.patch(resource, namespace, name, mergePatch)
    },
    async delete(resource, namespace, name) {
      sim.delete(resource, namespace, name)
    },
    async runCronJob(namespace, name) {
      sim.runCronJobNow(namespace, name)
    },
    async objects(): Promise<ClusterObjects> {
      return { pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') }
    },
    tapState: () => tapGet<TapState>('/state'),
    tapEvents: (since) => tapGet<EventPage>(`/events?since=${since}&limit=100000`),
    restartReducer: () => tap.restart(),
    async restartCollector() {
      if (collector && collector.child.exitCode === null && collector.child.signalCode === null) {
        const gone = new Promise((r) => collector!.child.once('exit', r))
        collector.child.kill('SIGKILL')
        await gone
      }
      collector = await startCollector(cmd, { kubeconfig, intakePort: tcpPort, hostname })
    },
    async disruptApi(kind: ApiDisruption, meanwhile?: () => Promise<void>): Promise<ApiDisruption[]> {
      switch (kind) {
        case 'drop-watches':
          sim.faults.dropWatches({ abrupt: true })
          await meanwhile?.()
          break
        case 'gone':
          // Changes hidden by a stall, history compacted past them, watches cut: the resume gets a 410.
          sim.faults.stallWatches(true)
          await meanwhile?.()
          sim.faults.compact()
          sim.faults.dropWatches({ abrupt: true })
          sim.faults.stallWatches(false)
          break
        case 'stall':
          sim.faults.stallWatches(true)
          await meanwhile?.()
          await new Promise((r) => setTimeout(r, 2_000))
          sim.faults.stallWatches(false)
          break
      }
      return [kind]
    },
    collectorLog: () => collector?.stderr() ?? '',
    async close() {
      if (collector && collector.child.exitCode === null) await collector.stop().catch(() => collector!.child.kill('SIGKILL'))
      await tap.stop()
      await sim.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }

  await backend.apply(workload)
  // Scenario 1 needs a CronJob-made Job before the collector starts: run each CronJob once now.
  for (const o of workload as Array<{ kind: string; metadata: { name: string; namespace?: string } }>) {
    if (o.kind === 'CronJob') sim.runCronJobNow(o.metadata.namespace ?? 'default', o.metadata.name)
  }
  await waitFor('the workload to run', () => {
    const pods = sim.list('pods')
    return pods.length > 0 && pods.every((p) => p.status?.phase === 'Running' || p.status?.phase === 'Succeeded') ? true : undefined
  }, { timeoutMs: 20_000 })
  collector = await startCollector(cmd, { kubeconfig, intakePort: tcpPort, hostname })
  return backend
}
