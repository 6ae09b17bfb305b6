// The real bench's cluster on the real control plane: N pods owned by Deployments → ReplicaSets,
// CronJobs → Jobs, and bare pods, created through the API in bulk (the owners' controllers are off:
// with kube-controller-manager's 20 QPS a ReplicaSet controller creates ~20 pods/s); kwok makes
// each pod Running with an IP and container ids (e2e/k8s/kwok-stages.yaml). Then steady churn:
// pods of ReplicaSets replaced (one deleted, one created) at a fixed rate.
import { waitFor } from '../../e2e/harness/wait.ts'
import { mapLimit, type H2Client } from './h2-client.ts'

/** Replicas of each Deployment's current ReplicaSet (its previous one is kept at 0, as after a rollout). */
const REPLICAS = 10
/** Jobs per CronJob (successfulJobsHistoryLimit 3), one pod each. */
const JOBS_PER_CRONJOB = 3
/** Concurrent creates on the one HTTP/2 connection. */
const CONCURRENCY = 32
/** Keeps a Job's pod Running (kwok-stages.yaml completes it after this annotation, default 1 s): 10 days. */
const JOB_RUN_MS = String(10 * 24 * 3600 * 1000)
const PAUSE = 'registry.k8s.io/pause:3.10'

interface Owner {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  readonly uid: string
}

interface Container {
  readonly name: string
  readonly image: string
}

/** A ReplicaSet whose pods the churn replaces. */
interface ChurnSet {
  readonly ns: string
  readonly owner: Owner
  readonly labels: Record<string, string>
  readonly containers: readonly Container[]
  /** Its live pods, oldest first. */
  readonly pods: string[]
  made: number
}

/** What was created, and what the churn needs. */
export interface RealCluster {
  readonly pods: number
  readonly containers: number
  readonly namespaces: number
  readonly deployments: number
  readonly replicaSets: number
  readonly cronJobs: number
  readonly jobs: number
  readonly barePods: number
  /** Wall time of the creation, ms (every pod created and Running). */
  readonly createMs: number
  readonly sets: readonly ChurnSet[]
  readonly nodes: readonly string[]
}

const containersOf = (i: number, app: string): Container[] =>
  Array.from({ length: 1 + (i % 3) }, (_, c) => ({ name: c === 0 ? app : `sidecar-${c}`, image: c === 0 ? `registry.example.com/team-${i % 17}/${app}:1.${i % 40}.${i % 7}` : `registry.example.com/infra/sidecar-${c}:2.${i % 5}` }))

/** A pod as a controller would write it: labels, owner, resources, env, probes; bound to `node`. */
function podOf(ns: string, name: string, node: string, owner: Owner | undefined, labels: Record<string, string>, containers: readonly Container[], annotations: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      labels,
      annotations: { 'kubectl.kubernetes.io/default-container': containers[0]!.name, ...annotations },
      ...(owner ? { ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }] } : {}),
    },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 30,
      containers: containers.map((c) => ({
        name: c.name,
        image: c.image,
        ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
        env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } },
        readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
      })),
    },
  }
}

/** Creates `pods` pods and their owners on `nodes`; resolves once every pod is Running. */
export async function createRealCluster(api: H2Client, nodes: readonly string[], pods: number, log: (line: string) => void): Promise<RealCluster> {
  const started = performance.now()
  const jobPods = Math.round(pods * 0.1)
  const barePods = Math.round(pods * 0.1)
  const rsPods = pods - jobPods - barePods
  const deployments = Math.ceil(rsPods / REPLICAS)
  const cronJobs = Math.ceil(jobPods / JOBS_PER_CRONJOB)
  const nsCount = Math.max(1, Math.round(pods / 1000))
  const nsOf = (i: number) => `bench-${i % nsCount}`
  let nodeAt = 0
  const nextNode = () => nodes[nodeAt++ % nodes.length]!
  const create = <T extends { metadata: { uid: string; name: string } }>(path: string, body: unknown) => api.json<T>('POST', path, body)

  await mapLimit(Array.from({ length: nsCount }, (_, i) => `bench-${i}`), CONCURRENCY, (name) => create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }))

  // Deployments, each with its current ReplicaSet (REPLICAS pods) and a previous one at 0.
  const sets: ChurnSet[] = []
  const podBodies: Array<{ path: string; body: unknown }> = []
  let containers = 0
  await mapLimit(Array.from({ length: deployments }, (_, i) => i), CONCURRENCY, async (i) => {
    const ns = nsOf(i)
    const app = `app-${i}`
    const want = Math.min(REPLICAS, rsPods - i * REPLICAS)
    const cs = containersOf(i, app)
    const template = { metadata: { labels: { app } }, spec: { containers: cs.map((c) => ({ name: c.name, image: c.image })) } }
    const dep = await create<{ metadata: { uid: string; name: string } }>(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: app, namespace: ns, labels: { app } },
      spec: { replicas: want, selector: { matchLabels: { app } }, template },
    })
    const depOwner: Owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: app, uid: dep.metadata.uid }
    let current: Owner | undefined
    let labels: Record<string, string> = {}
    for (const [hash, replicas] of [[`${(i * 7919 + 1).toString(36).padStart(5, '0').slice(-5)}old`, 0], [(i * 104729 + 3).toString(36).padStart(8, '0').slice(-8), want]] as const) {
      const name = `${app}-${hash}`
      labels = { app, 'pod-template-hash': hash }
      const rs = await create<{ metadata: { uid: string; name: string } }>(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
        apiVersion: 'apps/v1', kind: 'ReplicaSet',
        metadata: { name, namespace: ns, labels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: app, uid: depOwner.uid, controller: true, blockOwnerDeletion: true }] },
        spec: { replicas, selector: { matchLabels: labels }, template: { ...template, metadata: { labels } } },
      })
      current = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid: rs.metadata.uid }
    }
    const set: ChurnSet = { ns, owner: current!, labels, containers: cs, pods: [], made: 0 }
    sets.push(set)
    for (let r = 0; r < want; r++) {
      const name = `${set.owner.name}-${(set.made++).toString(36).padStart(5, '0')}`
      set.pods.push(name)
      containers += cs.length
      podBodies.push({ path: `/api/v1/namespaces/${ns}/pods`, body: podOf(ns, name, nextNode(), set.owner, labels, cs) })
    }
  })
  // CronJobs (suspended: their controller is off anyway) with their Jobs, a pod each.
  await mapLimit(Array.from({ length: cronJobs }, (_, i) => i), CONCURRENCY, async (i) => {
    const ns = nsOf(i)
    const name = `cron-${i}`
    const cs = containersOf(i + 5, name)
    const jobTemplate = { spec: { template: { spec: { restartPolicy: 'Never', containers: cs.map((c) => ({ name: c.name, image: c.image })) } } } }
    const cj = await create<{ metadata: { uid: string; name: string } }>(`/apis/batch/v1/namespaces/${ns}/cronjobs`, {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, namespace: ns }, spec: { schedule: '*/5 * * * *', suspend: true, jobTemplate },
    })
    for (let j = 0; j < JOBS_PER_CRONJOB && i * JOBS_PER_CRONJOB + j < jobPods; j++) {
      const jobName = `${name}-${29_000_000 + j * 5}`
      const job = await create<{ metadata: { uid: string; name: string } }>(`/apis/batch/v1/namespaces/${ns}/jobs`, {
        apiVersion: 'batch/v1', kind: 'Job',
        metadata: { name: jobName, namespace: ns, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name, uid: cj.metadata.uid, controller: true, blockOwnerDeletion: true }] },
        spec: { template: { metadata: { labels: { 'job-name': jobName } }, spec: jobTemplate.spec.template.spec } },
      })
      const owner: Owner = { apiVersion: 'batch/v1', kind: 'Job', name: jobName, uid: job.metadata.uid }
      containers += cs.length
      podBodies.push({ path: `/api/v1/namespaces/${ns}/pods`, body: podOf(ns, `${jobName}-${(i * 31 + j).toString(36).padStart(5, '0')}`, nextNode(), owner, { 'job-name': jobName }, cs, { 'sim.k8s-collector.io/run-ms': JOB_RUN_MS }) })
    }
  })
  for (let i = 0; i < barePods; i++) {
    const ns = nsOf(i)
    const cs = containersOf(i + 11, `bare-${i}`)
    containers += cs.length
    podBodies.push({ path: `/api/v1/namespaces/${ns}/pods`, body: podOf(ns, `bare-${i}`, nextNode(), undefined, { role: 'bare' }, cs.map((c, k) => (k === 0 ? { ...c, image: PAUSE } : c))) })
  }
  log(`real: ${deployments} deployments, ${sets.length * 2} replicasets, ${cronJobs} cronjobs, ${jobPods} jobs created in ${((performance.now() - started) / 1000).toFixed(1)} s; creating ${podBodies.length} pods`)
  let done = 0
  await mapLimit(podBodies, CONCURRENCY, async ({ path, body }) => {
    await create(path, body)
    if (++done % 2000 === 0) log(`real: ${done} pods created (${((performance.now() - started) / 1000).toFixed(0)} s)`)
  })
  await waitQuiet(api, pods, Math.max(120_000, pods * 60))
  return {
    pods, containers, namespaces: nsCount, deployments, replicaSets: sets.length * 2, cronJobs, jobs: jobPods, barePods,
    createMs: performance.now() - started, sets, nodes,
  }
}

/** Resolves once exactly `pods` pods exist and every one is Running (no churn in flight). */
export async function waitQuiet(api: H2Client, pods: number, timeoutMs: number): Promise<void> {
  let seen: unknown
  await waitFor(`${pods} pods, every one Running`, async () => {
    const notRunning = await api.json<{ items: unknown[]; metadata: { remainingItemCount?: number } }>('GET', '/api/v1/pods?fieldSelector=status.phase%21%3DRunning&limit=1')
    const all = await api.json<{ items: unknown[]; metadata: { remainingItemCount?: number } }>('GET', '/api/v1/pods?limit=1')
    const count = all.items.length + (all.metadata.remainingItemCount ?? 0)
    const waiting = notRunning.items.length + (notRunning.metadata.remainingItemCount ?? 0)
    seen = { count, waiting }
    return count === pods && waiting === 0 ? true : undefined
  }, { timeoutMs, intervalMs: 1_000, describe: () => seen })
}

/** A running churn. */
export interface Churn {
  /** Stops issuing replacements; resolves with what was done once the requests in flight are answered. */
  stop(): Promise<{ replaced: number; errors: number; seconds: number; lastError?: string }>
}

/**
 * Replaces pods of the ReplicaSets at `perSecond` (the oldest pod of the next set deleted, a new
 * one created for it), in ticks of 100 ms: each replacement is ~4 pod watch events (ADDED, kwok's
 * status, the deletion timestamp, DELETED).
 */
export function startChurn(api: H2Client, cluster: RealCluster, perSecond: number): Churn {
  const started = performance.now()
  let owed = 0
  let replaced = 0
  let errors = 0
  let lastError: string | undefined
  let at = 0
  const inFlight = new Set<Promise<void>>()
  const sets = cluster.sets.filter((s) => s.pods.length > 0)
  const replace = async (set: ChurnSet): Promise<void> => {
    const old = set.pods.shift()!
    const name = `${set.owner.name}-${(set.made++).toString(36).padStart(5, '0')}`
    set.pods.push(name)
    const node = cluster.nodes[set.made % cluster.nodes.length]!
    const [del, add] = await Promise.all([
      api.request('DELETE', `/api/v1/namespaces/${set.ns}/pods/${old}`),
      api.request('POST', `/api/v1/namespaces/${set.ns}/pods`, podOf(set.ns, name, node, set.owner, set.labels, set.containers)),
    ])
    for (const r of [del, add]) {
      if (r.status >= 300) {
        errors++
        lastError = `HTTP ${r.status} ${r.body.slice(0, 200)}`
      }
    }
    replaced++
  }
  const timer = setInterval(() => {
    owed += perSecond / 10
    for (; owed >= 1; owed--) {
      const p = replace(sets[at++ % sets.length]!).catch((err: Error) => {
        errors++
        lastError = err.message
      })
      inFlight.add(p)
      void p.finally(() => inFlight.delete(p))
    }
  }, 100)
  return {
    async stop() {
      clearInterval(timer)
      const seconds = (performance.now() - started) / 1000
      await Promise.all([...inFlight])
      return { replaced, errors, seconds, ...(lastError ? { lastError } : {}) }
    },
  }
}
