// Deterministic (seeded) generators of realistic Kubernetes objects for the benchmarks.

/** A small fast PRNG (mulberry32) so every run sees the same cluster. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const hex = (r: () => number, n: number): string => {
  let s = ''
  for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16)
  return s
}
export const uuid = (r: () => number): string => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`

const IMAGES = ['nginx:1.25.3', 'registry.k8s.io/pause:3.9', 'ghcr.io/acme/api:2.14.0', 'envoyproxy/envoy:v1.29.1', 'busybox:1.36', 'redis:7.2.4']

export interface ClusterShape {
  readonly pods: number
  readonly seed?: number
  /** Pods per ReplicaSet (default 5). */
  readonly podsPerReplicaSet?: number
  /** Include managedFields (~5 KB pods) — default true. */
  readonly managedFields?: boolean
}

export interface OwnerSpec {
  readonly kind: 'ReplicaSet' | 'Job'
  readonly uid: string
  readonly name: string
  readonly namespace: string
  readonly controller?: { kind: string; uid: string; name: string }
}

/** ReplicaSets (two per Deployment, like a rollout history) for a cluster of `shape.pods` pods. */
export function makeOwners(shape: ClusterShape): OwnerSpec[] {
  const r = rng((shape.seed ?? 1) + 7)
  const perRs = shape.podsPerReplicaSet ?? 5
  const owners: OwnerSpec[] = []
  const rsCount = Math.ceil(shape.pods / perRs)
  for (let i = 0; i < rsCount; i++) {
    const ns = `team-${i % 40}`
    const dep = `svc-${Math.floor(i / 2)}`
    owners.push({
      kind: 'ReplicaSet',
      uid: uuid(r),
      name: `${dep}-${hex(r, 10)}`,
      namespace: ns,
      controller: { kind: 'Deployment', uid: uuid(r), name: dep },
    })
  }
  return owners
}

/** The metadata object of an owner, as a PartialObjectMetadata item. */
export function ownerObject(o: OwnerSpec, rv: number): Record<string, unknown> {
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {
      name: o.name,
      namespace: o.namespace,
      uid: o.uid,
      resourceVersion: String(rv),
      creationTimestamp: '2026-11-01T10:00:00Z',
      labels: { app: o.name.replace(/-[0-9a-f]+$/, ''), 'pod-template-hash': o.name.slice(-10) },
      ...(o.controller
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: o.controller.kind, name: o.controller.name, uid: o.controller.uid, controller: true, blockOwnerDeletion: true }] }
        : {}),
    },
  }
}

/** The i-th pod of the cluster as a full v1/Pod object (with managedFields unless disabled). */
export function podObject(shape: ClusterShape, owners: readonly OwnerSpec[], i: number, rv: number, generation = 0): Record<string, unknown> {
  const r = rng((shape.seed ?? 1) * 1_000_003 + i)
  const owner = owners[Math.floor(i / (shape.podsPerReplicaSet ?? 5)) % owners.length]!
  const name = `${owner.name}-${hex(r, 5)}`
  const uid = uuid(r)
  const nContainers = 1 + (i % 3)
  const images = Array.from({ length: nContainers }, (_, k) => IMAGES[(i + k + generation) % IMAGES.length]!)
  const node = `node-${i % 1000}`
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
  const containers = images.map((image, k) => ({
    name: `c${k}`,
    image,
    ports: [{ containerPort: 8080 + k, protocol: 'TCP' }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  }))
  const managedFields =
    shape.managedFields === false
      ? undefined
      : [
          {
            manager: 'kube-controller-manager',
            operation: 'Update',
            apiVersion: 'v1',
            time: '2026-11-01T10:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${owner.uid}"}`]: {} } },
              'f:spec': Object.fromEntries(containers.map((c) => [`k:{"name":"${c.name}"}`, { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:ports': {}, 'f:resources': {} }])),
            },
          },
          {
            manager: 'kubelet',
            operation: 'Update',
            apiVersion: 'v1',
            time: '2026-11-01T10:00:05Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': { '.': {}, [`k:{"ip":"${ip}"}`]: {} }, 'f:startTime': {} } },
            subresource: 'status',
          },
        ]
  return {
    metadata: {
      name,
      generateName: `${owner.name}-`,
      namespace: owner.namespace,
      uid,
      resourceVersion: String(rv),
      creationTimestamp: '2026-11-01T10:00:00Z',
      labels: { app: owner.name.replace(/-[0-9a-f]+$/, ''), 'pod-template-hash': owner.name.slice(-10) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }],
      ...(managedFields ? { managedFields } : {}),
    },
    spec: {
      containers,
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: node,
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
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-01T10:00:05Z' })),
      hostIP: `172.18.${(i >> 8) & 3}.${i & 255}`,
      hostIPs: [{ ip: `172.18.${(i >> 8) & 3}.${i & 255}` }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: '2026-11-01T10:00:00Z',
      containerStatuses: images.map((image, k) => ({
        name: `c${k}`,
        state: { running: { startedAt: '2026-11-01T10:00:04Z' } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image,
        imageID: `docker.io/library/${image}@sha256:${hex(r, 64)}`,
        containerID: `containerd://${hex(r, 64)}`,
        started: true,
      })),
      qosClass: 'Burstable',
    },
  }
}
