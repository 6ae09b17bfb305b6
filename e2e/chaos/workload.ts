// The soak's cluster: a workload of every owner shape sized to N pods on the simulator, and the
// churn that runs between checkpoints (rollouts, scaling, CronJob runs, pod deletes, node drains).
import type { ClusterObjects } from '../harness/expect.ts'
import { expectedPods } from '../harness/expect.ts'
import { waitFor } from '../harness/wait.ts'
import type { Simulator } from '../sim/index.ts'
import type { Random } from './random.ts'

const NAMESPACES = ['chaos-a', 'chaos-b', 'chaos-c'] as const
const REVISION = 'chaos.k8s-collector.io/revision'
const RUN_MS = 'sim.k8s-collector.io/run-ms'

/** The sizes of the workload for a target pod count (deterministic). */
export interface WorkloadPlan {
  readonly nodes: number
  readonly deployments: ReadonlyArray<{ readonly namespace: string; readonly name: string; readonly replicas: number }>
  readonly bareReplicaSet: number
  readonly statefulSet: number
  readonly jobParallelism: number
  readonly cronJobs: readonly string[]
  readonly barePods: number
}

/** How the pods are spread over owner shapes: most in Deployments of ~100, a few of every other kind. */
export function planWorkload(pods: number): WorkloadPlan {
  // A simulated node has 253 pod IPs; scaling goes up to 1.4 times and a rollout doubles a
  // Deployment for a moment (2.8 times at worst: 224 of 80 a node).
  const nodes = Math.max(3, Math.ceil(pods / 80))
  const small = (share: number, min: number, max: number) => Math.min(max, Math.max(min, Math.round(pods * share)))
  const bareReplicaSet = small(0.01, 2, 50)
  const statefulSet = small(0.01, 2, 20)
  const jobParallelism = small(0.01, 2, 50)
  const barePods = small(0.005, 3, 20)
  const daemonPods = 2 * nodes // one ordinary and one hostNetwork DaemonSet
  const rest = Math.max(4, pods - bareReplicaSet - statefulSet - jobParallelism - barePods - daemonPods)
  const count = Math.max(2, Math.round(rest / 100))
  const deployments = Array.from({ length: count }, (_, i) => ({
    namespace: NAMESPACES[i % NAMESPACES.length]!,
    name: `web-${i}`,
    replicas: Math.floor(rest / count),
  }))
  return { nodes, deployments, bareReplicaSet, statefulSet, jobParallelism, cronJobs: ['tick-a', 'tick-b', 'tick-c'], barePods }
}

const template = (app: string, containers: object[], extra: object = {}, annotations: Record<string, string> = {}) => ({
  metadata: { labels: { app }, annotations },
  spec: { containers, terminationGracePeriodSeconds: 1, ...extra },
})
const c = (name: string, image: string) => ({ name, image })

/** Creates the workload and waits until its pods run (announceable: an IP, not terminating). */
export async function createWorkload(sim: Simulator, plan: WorkloadPlan, timeoutMs: number): Promise<void> {
  for (const ns of NAMESPACES) sim.create('namespaces', { metadata: { name: ns } })
  for (const d of plan.deployments) {
    sim.create('deployments', {
      metadata: { name: d.name, namespace: d.namespace },
      spec: {
        replicas: d.replicas,
        revisionHistoryLimit: 2,
        selector: { matchLabels: { app: d.name } },
        template: template(d.name, [c('app', 'registry.example.com/web:1.0'), c('envoy', 'envoyproxy/envoy:v1.31')], {}, { [REVISION]: '0' }),
      },
    })
  }
  const ns = NAMESPACES[0]
  sim.create('replicasets', {
    metadata: { name: 'bare-rs', namespace: ns },
    spec: { replicas: plan.bareReplicaSet, selector: { matchLabels: { app: 'bare-rs' } }, template: template('bare-rs', [c('app', 'app:1')]) },
  })
  sim.create('statefulsets', {
    metadata: { name: 'db', namespace: ns },
    spec: { replicas: plan.statefulSet, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db', [c('postgres', 'postgres:16')]) },
  })
  sim.create('jobs', {
    metadata: { name: 'batch', namespace: ns },
    spec: {
      parallelism: plan.jobParallelism,
      completions: plan.jobParallelism,
      template: template('batch', [c('task', 'task:1')], { restartPolicy: 'Never' }, { [RUN_MS]: String(24 * 3_600_000) }),
    },
  })
  for (const name of plan.cronJobs) {
    sim.create('cronjobs', {
      metadata: { name, namespace: ns },
      spec: {
        // Runs only when the churn says so ("run now"): once a year by the clock.
        schedule: '0 3 1 1 *',
        successfulJobsHistoryLimit: 1,
        failedJobsHistoryLimit: 1,
        jobTemplate: { spec: { template: template(name, [c('tick', 'busybox:1.36')], { restartPolicy: 'Never' }, { [RUN_MS]: '15000' }) } },
      },
    })
  }
  sim.create('daemonsets', {
    metadata: { name: 'agent', namespace: 'kube-system' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent', [c('agent', 'agent:3')]) },
  })
  sim.create('daemonsets', {
    metadata: { name: 'node-proxy', namespace: 'kube-system' },
    spec: { selector: { matchLabels: { app: 'node-proxy' } }, template: template('node-proxy', [c('proxy', 'proxy:1')], { hostNetwork: true }) },
  })
  for (let i = 0; i < plan.barePods; i++) createBarePod(sim, i)
  const target = Math.floor(0.95 * totalPods(plan))
  await waitFor(`${target} pods to run`, () => {
    const running = expectedPods(truth(sim)).length
    return running >= target && !sim.list('pods').some((p) => p.status?.phase === 'Pending') ? true : undefined
  }, { timeoutMs, intervalMs: 1_000, describe: () => expectedPods(truth(sim)).length })
}

function totalPods(plan: WorkloadPlan): number {
  return plan.deployments.reduce((n, d) => n + d.replicas, 0) + plan.bareReplicaSet + plan.statefulSet + plan.jobParallelism + plan.barePods + 2 * plan.nodes
}

function createBarePod(sim: Simulator, i: number): void {
  sim.create('pods', { metadata: { name: `bare-${i}`, namespace: NAMESPACES[i % NAMESPACES.length] }, spec: { containers: [c('solo', `solo:${i % 3}`)], terminationGracePeriodSeconds: 1 } })
}

/** The simulator's truth: what `kubectl get pods,rs,jobs -A -o json` would return now. */
export function truth(sim: Simulator): ClusterObjects {
  return { pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') }
}

/** The churn of one soak: each call makes one seeded change to the cluster and says what it was. */
export function createChurn(sim: Simulator, plan: WorkloadPlan): (rng: Random) => string {
  let revision = 0
  let bare = plan.barePods
  const alive = () => sim.list('pods').filter((p) => !p.metadata.deletionTimestamp)
  const actions: Array<[weight: number, act: (rng: Random) => string]> = [
    [2, (rng) => {
      const d = rng.pick(plan.deployments)
      revision++
      // Half the rollouts change an image too, so the announced version changes.
      const images = rng.chance(0.5) ? { containers: [c('app', `registry.example.com/web:1.${revision}`), c('envoy', 'envoyproxy/envoy:v1.31')] } : {}
      sim.patch('deployments', d.namespace, d.name, { spec: { template: { metadata: { annotations: { [REVISION]: String(revision) } }, spec: images } } })
      return 'rollout'
    }],
    [2, (rng) => {
      const d = rng.pick(plan.deployments)
      sim.patch('deployments', d.namespace, d.name, { spec: { replicas: Math.max(1, Math.round(d.replicas * rng.between(0.6, 1.4))) } })
      return 'scale'
    }],
    [2, (rng) => {
      sim.runCronJobNow(NAMESPACES[0], rng.pick(plan.cronJobs))
      return 'cronjob-run'
    }],
    [3, (rng) => {
      const pods = alive().filter((p) => p.metadata.ownerReferences?.length)
      for (let i = rng.int(1, 3); i > 0 && pods.length; i--) {
        const p = pods.splice(Math.floor(rng.next() * pods.length), 1)[0]!
        sim.delete('pods', p.metadata.namespace, p.metadata.name)
      }
      return 'pod-delete'
    }],
    [1, (rng) => {
      drainNode(sim, `node-${rng.int(1, plan.nodes)}`)
      return 'node-drain'
    }],
    [1, (rng) => {
      const bares = alive().filter((x) => x.metadata.name.startsWith('bare-'))
      if (rng.chance(0.5) || bares.length === 0) createBarePod(sim, bare++)
      else {
        const p = rng.pick(bares)
        sim.delete('pods', p.metadata.namespace, p.metadata.name)
      }
      return 'bare-pod'
    }],
  ]
  const total = actions.reduce((n, [w]) => n + w, 0)
  return (rng) => {
    let x = rng.next() * total
    for (const [w, act] of actions) {
      if ((x -= w) < 0) return act(rng)
    }
    return actions.at(-1)![1](rng)
  }
}

/**
 * A node drain as `kubectl drain` does it: cordon, evict every pod but DaemonSet ones (their
 * controllers make replacements), uncordon. The simulator's scheduler ignores cordons, so the
 * node is uncordoned at once rather than left out of scheduling.
 */
export function drainNode(sim: Simulator, node: string): number {
  sim.patch('nodes', undefined, node, { spec: { unschedulable: true } })
  let evicted = 0
  for (const p of sim.list('pods')) {
    if (p.spec?.nodeName !== node || p.metadata.deletionTimestamp) continue
    if (p.metadata.ownerReferences?.some((r: { kind: string }) => r.kind === 'DaemonSet')) continue
    sim.delete('pods', p.metadata.namespace, p.metadata.name)
    evicted++
  }
  sim.patch('nodes', undefined, node, { spec: { unschedulable: false } })
  return evicted
}
