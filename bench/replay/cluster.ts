// The replay cluster: a seeded, deterministic cluster (Deployments with ~2 ReplicaSets, some with
// 10 old ones; CronJobs with Jobs; DaemonSet pods) rendered ONCE into list-page byte buffers, plus
// a deterministic churn stream of rollouts (≈ 9 pod watch events per replaced pod).
import { rng, uuid } from '../workload.ts'
import { JOBS_PATH, PODS_PATH, RS_PATH } from './paths.ts'

const PAGE = 500
const IMAGES = [
  'registry.example.com/shop/checkout:2.14.1',
  'envoyproxy/envoy:v1.30.1',
  'ghcr.io/acme/api:3.2.0',
  'nginx:1.25.3',
  'redis:7.2.4',
  'registry.k8s.io/kube-proxy:v1.30.2',
  'quay.io/prometheus/node-exporter:v1.8.1',
  'busybox:1.36',
]

const hex = (r: () => number, n: number): string => {
  let s = ''
  for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16)
  return s
}
const alnum = (r: () => number, n: number): string => {
  const a = 'bcdfghjklmnpqrstvwxz2456789'
  let s = ''
  for (let i = 0; i < n; i++) s += a[Math.floor(r() * a.length)]
  return s
}

type Json = Record<string, unknown>

/** A ReplicaSet or Job (metadata-only objects in the lists). */
interface Owner {
  readonly kind: 'ReplicaSet' | 'Job'
  readonly name: string
  readonly namespace: string
  readonly uid: string
  readonly controller: { readonly kind: 'Deployment' | 'CronJob'; readonly name: string; readonly uid: string }
  readonly hash: string
}

/** What a pod is made of (the object is rendered from this + a lifecycle stage). */
export interface PodSpec {
  readonly seq: number
  readonly name: string
  readonly namespace: string
  readonly uid: string
  readonly owner: { readonly kind: string; readonly name: string; readonly uid: string }
  readonly app: string
  readonly hash: string
  readonly node: number
  readonly ip: string
  readonly hostNetwork: boolean
  readonly images: readonly string[]
  readonly ids: readonly string[]
}

interface Deployment {
  readonly name: string
  readonly namespace: string
  readonly uid: string
  /** The two ReplicaSets rollouts switch between ([0] is current at list time). */
  readonly rs: [Owner, Owner]
  pods: PodSpec[]
  current: 0 | 1
}

/** A rendered cluster: list page bodies per collection, counts, and the churn generator state. */
export interface ReplayCluster {
  readonly pods: number
  readonly containers: number
  readonly replicaSets: number
  readonly jobs: number
  /** Bytes of all list items (pods + RS + jobs). */
  readonly listBytes: number
  readonly podJsonBytesAvg: number
  /** path → list pages (items fragment only, see {@link pageBody}); owners as PartialObjectMetadata, what ours asks for. */
  readonly lists: ReadonlyMap<string, ListPages>
  /** path → the owners as full objects, for a client that does not ask for metadata only (a contender). */
  readonly fullOwnerLists: ReadonlyMap<string, ListPages>
  /** The list resourceVersion (every collection shares it). */
  readonly resourceVersion: number
  /** A new churn stream from the listed state (same events every time). */
  newChurn(): Churn
}

export interface ListPages {
  readonly kind: string
  readonly apiVersion: string
  /** Items of each page joined by ',' (no brackets). */
  readonly fragments: readonly Buffer[]
  readonly items: number
}

export { JOBS_PATH, PODS_PATH, RS_PATH } from './paths.ts'

function managedFields(manager: string, time: string, fields: Json, sub?: string): Json {
  return { manager, operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: fields, ...(sub ? { subresource: sub } : {}) }
}

/**
 * An owner as a full ReplicaSet or Job, for clients that do not ask for PartialObjectMetadata: the
 * same metadata plus a spec (selector, a one-container template) and a status, as the controllers
 * write them. Smaller than a real cluster's (its template is minimal).
 */
function fullOwnerObject(o: Owner, rv: number): Json {
  const isRs = o.kind === 'ReplicaSet'
  const { metadata } = ownerObject(o, rv) as { metadata: Json }
  const labels = isRs ? { app: o.controller.name, 'pod-template-hash': o.hash } : { 'batch.kubernetes.io/job-name': o.name, 'job-name': o.name }
  const template = {
    metadata: { labels },
    spec: {
      containers: [{ name: 'app', image: `registry.example.com/${o.controller.name}:1.0`, resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
      restartPolicy: isRs ? 'Always' : 'OnFailure', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler',
    },
  }
  return isRs
    ? { kind: 'ReplicaSet', apiVersion: 'apps/v1', metadata, spec: { replicas: 3, selector: { matchLabels: labels }, template }, status: { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 3 } }
    : { kind: 'Job', apiVersion: 'batch/v1', metadata, spec: { parallelism: 1, completions: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': o.uid } }, template }, status: { startTime: '2026-11-01T10:00:00Z', active: 1, ready: 1, terminating: 0, uncountedTerminatedPods: {} } }
}

function ownerObject(o: Owner, rv: number): Json {
  const isRs = o.kind === 'ReplicaSet'
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {
      name: o.name,
      namespace: o.namespace,
      uid: o.uid,
      resourceVersion: String(rv),
      generation: 3,
      creationTimestamp: '2026-11-01T10:00:00Z',
      labels: isRs ? { app: o.controller.name, 'pod-template-hash': o.hash } : { 'batch.kubernetes.io/job-name': o.name, 'job-name': o.name },
      annotations: isRs
        ? { 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4', 'deployment.kubernetes.io/revision': '7' }
        : { 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-11-01T10:00:00Z' },
      ownerReferences: [{ apiVersion: isRs ? 'apps/v1' : 'batch/v1', kind: o.controller.kind, name: o.controller.name, uid: o.controller.uid, controller: true, blockOwnerDeletion: true }],
      managedFields: [
        managedFields(isRs ? 'kube-controller-manager' : 'cronjob-controller', '2026-11-01T10:00:00Z', {
          'f:metadata': { 'f:annotations': { '.': {} }, 'f:labels': { '.': {} }, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${o.controller.uid}"}`]: {} } },
          'f:spec': { 'f:replicas': {}, 'f:selector': {}, 'f:template': { 'f:metadata': {}, 'f:spec': {} } },
        }),
        managedFields('kube-controller-manager', '2026-11-01T10:00:05Z', { 'f:status': { 'f:availableReplicas': {}, 'f:fullyLabeledReplicas': {}, 'f:observedGeneration': {}, 'f:readyReplicas': {}, 'f:replicas': {} } }, 'status'),
      ],
    },
  }
}

/** Lifecycle stages a pod goes through in the churn (`running` is the listed state). */
export type Stage = 'pending' | 'scheduled' | 'creating' | 'started' | 'running' | 'terminating' | 'stopped' | 'gone'

const T0 = '2026-11-01T10:00:00Z'

/** The pod's full v1/Pod object at `stage` (~5 KB with 2 containers). */
export function podObject(p: PodSpec, rv: number, stage: Stage = 'running'): Json {
  const scheduled = stage !== 'pending'
  const hasIp = stage !== 'pending' && stage !== 'scheduled'
  const started = stage === 'started' || stage === 'running' || stage === 'terminating' || stage === 'stopped' || stage === 'gone'
  const ready = stage === 'running'
  const terminated = stage === 'stopped' || stage === 'gone'
  const hostIp = `172.18.${(p.node >> 8) & 255}.${p.node & 255}`
  const containers = p.images.map((image, k) => ({
    name: k === 0 ? 'app' : `side-${k}`,
    image,
    ports: [{ name: k === 0 ? 'http' : `metrics-${k}`, containerPort: 8080 + k, protocol: 'TCP' }],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
      { name: 'LOG_LEVEL', value: 'info' },
    ],
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    volumeMounts: [{ name: `kube-api-access-${p.hash.slice(0, 5)}`, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
    readinessProbe: { httpGet: { path: '/healthz', port: 8080 + k, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  }))
  const metadata: Json = {
    name: p.name,
    generateName: p.name.slice(0, p.name.lastIndexOf('-') + 1),
    namespace: p.namespace,
    uid: p.uid,
    resourceVersion: String(rv),
    creationTimestamp: T0,
    labels: { app: p.app, 'pod-template-hash': p.hash, 'app.kubernetes.io/part-of': p.namespace },
    annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-10-30T08:00:00Z' },
    ownerReferences: [{ apiVersion: p.owner.kind === 'Job' ? 'batch/v1' : 'apps/v1', kind: p.owner.kind, name: p.owner.name, uid: p.owner.uid, controller: true, blockOwnerDeletion: true }],
    managedFields: [
      managedFields('kube-controller-manager', T0, {
        'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${p.owner.uid}"}`]: {} } },
        'f:spec': { 'f:containers': Object.fromEntries(containers.map((c) => [`k:{"name":"${c.name}"}`, { '.': {}, 'f:env': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:ports': {}, 'f:resources': {} }])), 'f:dnsPolicy': {}, 'f:restartPolicy': {} },
      }),
      managedFields('kubelet', '2026-11-01T10:00:05Z', { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': { '.': {}, [`k:{"ip":"${p.ip}"}`]: { '.': {}, 'f:ip': {} } }, 'f:startTime': {} } }, 'status'),
    ],
  }
  if (stage === 'terminating' || terminated) {
    metadata.deletionTimestamp = '2026-11-01T11:00:30Z'
    metadata.deletionGracePeriodSeconds = 30
  }
  const cond = (type: string, ok: boolean) => ({ type, status: ok ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: '2026-11-01T10:00:05Z' })
  const status: Json = {
    phase: stage === 'pending' || stage === 'scheduled' || stage === 'creating' ? 'Pending' : terminated ? 'Succeeded' : 'Running',
    conditions: [cond('Initialized', scheduled), cond('Ready', ready), cond('ContainersReady', ready), cond('PodScheduled', scheduled)],
    qosClass: 'Burstable',
  }
  if (scheduled) {
    status.hostIP = hostIp
    status.hostIPs = [{ ip: hostIp }]
    status.startTime = T0
  }
  if (hasIp) {
    status.podIP = p.ip
    status.podIPs = [{ ip: p.ip }]
    status.containerStatuses = p.images.map((image, k) => ({
      name: containers[k]!.name,
      state: terminated
        ? { terminated: { exitCode: 0, reason: 'Completed', startedAt: '2026-11-01T10:00:04Z', finishedAt: '2026-11-01T11:00:31Z', containerID: p.ids[k] } }
        : started
          ? { running: { startedAt: '2026-11-01T10:00:04Z' } }
          : { waiting: { reason: 'ContainerCreating' } },
      lastState: {},
      ready,
      restartCount: 0,
      image,
      imageID: started ? `docker.io/library/${image.replace(/:.*/, '')}@sha256:${p.ids[k]!.slice(13, 77)}` : '',
      ...(started ? { containerID: p.ids[k], started: !terminated } : { started: false }),
    }))
  }
  return {
    metadata,
    spec: {
      volumes: [{ name: `kube-api-access-${p.hash.slice(0, 5)}`, projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }], defaultMode: 420 } }],
      containers,
      restartPolicy: p.owner.kind === 'Job' ? 'OnFailure' : 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      ...(scheduled ? { nodeName: `node-${p.node}` } : {}),
      ...(p.hostNetwork ? { hostNetwork: true } : {}),
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status,
  }
}

/** One churn watch event for the pods collection. */
export interface ChurnEvent {
  readonly uid: string
  /** `{"type":…,"object":…}\n` */
  readonly line: Buffer
}

/** The churn stream: rollouts of Deployments, one after another, forever (deterministic). */
export interface Churn {
  /** The next `n` watch events (rendered now; bytes identical for every run of the same seed). */
  take(n: number): ChurnEvent[]
  /** Replaced pods (one new pod each) so far. */
  readonly replaced: number
}

/** `<prefix>-<5 random chars>`, drawn again while the name is taken in `namespace`. */
function uniqueName(r: () => number, taken: Set<string>, namespace: string, prefix: string): string {
  for (;;) {
    const name = `${prefix}-${alnum(r, 5)}`
    const key = `${namespace}/${name}`
    if (!taken.has(key)) {
      taken.add(key)
      return name
    }
  }
}

/** Generates the cluster of `pods` pods and renders its list pages. */
export function buildCluster(pods: number, seed = 7): ReplayCluster {
  const r = rng(seed)
  const nodes = Math.max(10, Math.round(pods / 30))
  const namespaces = Math.max(4, Math.round(pods / 400))
  const counters = { seq: 0, ip: 0 }
  // Pod names are unique per namespace as in a real cluster (the random 5-char suffix collides
  // about once among 150k pods; client-node's informer cache is keyed by namespace/name).
  const listedNames = new Set<string>()
  const podSpecWith = (
    r: () => number,
    c: typeof counters,
    taken: Set<string>,
    owner: PodSpec['owner'],
    app: string,
    hash: string,
    namespace: string,
    hostNode?: number,
  ): PodSpec => {
    const s = c.seq++
    const n = 1 + Math.floor(r() * 3)
    const images = Array.from({ length: n }, (_, k) => IMAGES[(s + k * 3) % IMAGES.length]!)
    const node = hostNode ?? Math.floor(r() * nodes)
    const i = hostNode === undefined ? c.ip++ : 0
    return {
      seq: s,
      name: uniqueName(r, taken, namespace, owner.name),
      namespace,
      uid: uuid(r),
      owner,
      app,
      hash,
      node,
      ip: hostNode === undefined ? `10.${64 + ((i >> 16) & 63)}.${(i >> 8) & 255}.${i & 255}` : `172.18.${(node >> 8) & 255}.${node & 255}`,
      hostNetwork: hostNode !== undefined,
      images,
      ids: images.map(() => `containerd://${hex(r, 64)}`),
    }
  }

  const podSpec = (owner: PodSpec['owner'], app: string, hash: string, namespace: string, hostNode?: number): PodSpec =>
    podSpecWith(r, counters, listedNames, owner, app, hash, namespace, hostNode)
  const podList: PodSpec[] = []
  const rsList: Owner[] = []
  const jobList: Owner[] = []
  const deployments: Deployment[] = []

  // DaemonSet pods: 8 % of the pods (a few DaemonSets on every node, some hostNetwork).
  const dsCount = Math.max(1, Math.round((pods * 0.08) / nodes))
  for (let d = 0; d < dsCount; d++) {
    const owner = { kind: 'DaemonSet', name: `ds-agent-${d}`, uid: uuid(r) }
    for (let node = 0; node < nodes && podList.length < pods * 0.08; node++) {
      podList.push(podSpec(owner, owner.name, hex(r, 10), 'kube-system', d % 2 === 0 ? node : undefined))
    }
  }
  // CronJobs: 4 % of the pods; 3 Jobs each (history), the newest one with a running pod.
  const cronPods = Math.round(pods * 0.04)
  for (let c = 0; c < cronPods; c++) {
    const ns = `team-${c % namespaces}`
    const cj = { kind: 'CronJob' as const, name: `report-${c}`, uid: uuid(r) }
    let newest: Owner | undefined
    for (let k = 0; k < 3; k++) {
      const job: Owner = { kind: 'Job', name: `${cj.name}-${29_000_000 + k}`, namespace: ns, uid: uuid(r), controller: cj, hash: hex(r, 10) }
      jobList.push(job)
      newest = job
    }
    podList.push(podSpec({ kind: 'Job', name: newest!.name, uid: newest!.uid }, cj.name, newest!.hash, ns))
  }
  // Deployments: the rest, 2–8 replicas; ~2 ReplicaSets each (current + previous), 5 % keep 10 old ones.
  for (let d = 0; podList.length < pods; d++) {
    const ns = `team-${d % namespaces}`
    const name = `svc-${d}`
    const dep = { kind: 'Deployment' as const, name, uid: uuid(r) }
    const mk = (): Owner => {
      const hash = alnum(r, 10)
      return { kind: 'ReplicaSet', name: `${name}-${hash}`, namespace: ns, uid: uuid(r), controller: dep, hash }
    }
    const current = mk()
    const previous = mk()
    rsList.push(current, previous)
    if (d % 20 === 7) for (let k = 0; k < 10; k++) rsList.push(mk())
    const replicas = Math.min(2 + Math.floor(r() * 7), pods - podList.length)
    const deployment: Deployment = { name, namespace: ns, uid: dep.uid, rs: [current, previous], pods: [], current: 0 }
    for (let k = 0; k < replicas; k++) {
      const p = podSpec({ kind: 'ReplicaSet', name: current.name, uid: current.uid }, name, current.hash, ns)
      deployment.pods.push(p)
      podList.push(p)
    }
    deployments.push(deployment)
  }

  const rv = 1_000_000
  const lists = new Map<string, ListPages>()
  let listBytes = 0
  let podBytes = 0
  // Objects are built page by page (only 500 alive at a time): 150k rendered pods at once would
  // cost gigabytes of heap and most of the time in GC.
  const fullOwnerLists = new Map<string, ListPages>()
  const render = <T>(path: string, kind: string, apiVersion: string, specs: readonly T[], object: (spec: T, i: number) => Json, into = lists): void => {
    const counted = into === lists
    const fragments: Buffer[] = []
    for (let i = 0; i < specs.length; i += PAGE) {
      const parts: string[] = []
      for (let j = i; j < Math.min(specs.length, i + PAGE); j++) parts.push(JSON.stringify(object(specs[j]!, j)))
      const b = Buffer.from(parts.join(','))
      if (counted) listBytes += b.length
      if (path === PODS_PATH) podBytes += b.length
      fragments.push(b)
    }
    into.set(path, { kind, apiVersion, fragments, items: specs.length })
  }
  let orv = 500_000
  render(RS_PATH, 'PartialObjectMetadataList', 'meta.k8s.io/v1', rsList, (o) => ownerObject(o, orv++))
  render(JOBS_PATH, 'PartialObjectMetadataList', 'meta.k8s.io/v1', jobList, (o) => ownerObject(o, orv++))
  orv = 500_000
  render(RS_PATH, 'ReplicaSetList', 'apps/v1', rsList, (o) => fullOwnerObject(o, orv++), fullOwnerLists)
  render(JOBS_PATH, 'JobList', 'batch/v1', jobList, (o) => fullOwnerObject(o, orv++), fullOwnerLists)
  render(PODS_PATH, 'PodList', 'v1', podList, (p, i) => podObject(p, 600_000 + i))

  return {
    pods: podList.length,
    containers: podList.reduce((n, p) => n + p.images.length, 0),
    replicaSets: rsList.length,
    jobs: jobList.length,
    listBytes,
    fullOwnerLists,
    podJsonBytesAvg: Math.round(podBytes / podList.length),
    lists,
    resourceVersion: rv,
    newChurn: () => {
      // Every churn starts from the listed state with its own seeded generator: identical streams.
      const cr = rng(seed + 1)
      const cc = { seq: 10_000_000, ip: counters.ip }
      const taken = new Set(listedNames)
      return makeChurn(deployments, rv, (d, rs) => podSpecWith(cr, cc, taken, { kind: 'ReplicaSet', name: rs.name, uid: rs.uid }, d.name, rs.hash, d.namespace))
    },
  }
}

/**
 * Rollouts: Deployments are rolled (switching between their two ReplicaSets, like `rollout undo`,
 * so the owner is always known) in waves of up to WAVE pods. Per replaced pod, the new pod goes
 * pending → scheduled → creating (IP) → started (container ids) → running (5 events) and the old
 * one terminating → stopped → gone-update → DELETED (4 events): 9 events. A wave emits each stage
 * for all its pods before the next, so two events of one pod are ≥ WAVE events apart.
 */
function makeChurn(listed: readonly Deployment[], rv0: number, newPod: (d: Deployment, rs: Owner) => PodSpec): Churn {
  const deployments: Deployment[] = listed.map((d) => ({ ...d, pods: [...d.pods] }))
  const WAVE = 500
  let rv = rv0
  let next = 0
  let replaced = 0
  const queue: ChurnEvent[] = []
  const line = (type: string, p: PodSpec, stage: Stage): ChurnEvent => ({
    uid: p.uid,
    line: Buffer.from(`{"type":"${type}","object":${JSON.stringify({ kind: 'Pod', apiVersion: 'v1', ...podObject(p, ++rv, stage) })}}\n`),
  })
  const wave = (): void => {
    const olds: PodSpec[] = []
    const news: PodSpec[] = []
    while (olds.length < WAVE) {
      const d = deployments[next++ % deployments.length]!
      const target = d.current === 0 ? 1 : 0
      const fresh = d.pods.map(() => newPod(d, d.rs[target]))
      olds.push(...d.pods)
      news.push(...fresh)
      d.pods = fresh
      d.current = target
      if (next > deployments.length * 4) break // tiny clusters: never loop forever
    }
    replaced += news.length
    const steps: Array<[PodSpec[], string, Stage]> = [
      [news, 'ADDED', 'pending'],
      [news, 'MODIFIED', 'scheduled'],
      [news, 'MODIFIED', 'creating'],
      [olds, 'MODIFIED', 'terminating'],
      [news, 'MODIFIED', 'started'],
      [olds, 'MODIFIED', 'stopped'],
      [news, 'MODIFIED', 'running'],
      [olds, 'MODIFIED', 'gone'],
      [olds, 'DELETED', 'gone'],
    ]
    for (const [pods, type, stage] of steps) for (const p of pods) queue.push(line(type, p, stage))
  }
  return {
    take(n) {
      while (queue.length < n) wave()
      return queue.splice(0, n)
    },
    get replaced() {
      return replaced
    },
  }
}

/** The response body of list page `i` of `pages` (or the whole list when `i` is undefined). */
export function pageBody(pages: ListPages, rv: number, i: number | undefined): Buffer[] {
  const last = i === undefined || i === pages.fragments.length - 1
  const meta = last ? `{"resourceVersion":"${rv}"}` : `{"resourceVersion":"${rv}","continue":"${Buffer.from(`page:${i! + 1}`).toString('base64')}","remainingItemCount":${pages.items - (i! + 1) * PAGE}}`
  const head = Buffer.from(`{"kind":"${pages.kind}","apiVersion":"${pages.apiVersion}","metadata":${meta},"items":[`)
  const tail = Buffer.from(']}')
  if (i !== undefined) return [head, pages.fragments[i] ?? Buffer.alloc(0), tail]
  const out: Buffer[] = [head]
  pages.fragments.forEach((f, k) => {
    if (k > 0) out.push(Buffer.from(','))
    out.push(f)
  })
  out.push(tail)
  return out
}

/** The page index a `continue` token names. */
export function pageOfToken(token: string): number {
  const m = /^page:(\d+)$/.exec(Buffer.from(token, 'base64').toString())
  return m ? Number(m[1]) : 0
}
