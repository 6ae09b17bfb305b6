// Benchmark: API response bytes → PodMeta through the watch layer's own framing + parse + convert
// path (openWatch / fetchListPage over an in-memory response), beside plain JSON.parse of the same
// text (the ceiling). Target: within 1.3× of the ceiling.
import type { KubeClient, KubeResponse } from '../src/kube/client.ts'
import { fetchListPage } from '../src/kube/list.ts'
import { podsResource } from '../src/kube/resources.ts'
import { openWatch } from '../src/kube/watch.ts'
import type { BenchOptions, BenchSection } from './types.ts'

const CHUNK = 16 * 1024 // a TLS record's worth: what a socket read typically hands over

/** A realistic Running pod of a Deployment, ~5 KB with managedFields (kube-api.md "Sizes"). */
function pod(i: number): Record<string, unknown> {
  const name = `checkout-7d9f8b6c5-${(i * 7919).toString(36).padStart(5, 'x')}`
  const uid = `5f1c${(i + 0x10000).toString(16)}-9a2b-4c3d-8e7f-${(i * 31337).toString(16).padStart(12, '0')}`
  const container = (n: string, image: string) => ({
    name: n,
    image,
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'LOG_LEVEL', value: 'info' },
    ],
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    volumeMounts: [{ name: 'kube-api-access-x7k2p', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  })
  const fields = (manager: string, op: string, sub: object) => ({ manager, operation: op, apiVersion: 'v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: sub })
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name,
      generateName: 'checkout-7d9f8b6c5-',
      namespace: 'shop',
      uid,
      resourceVersion: String(100_000 + i),
      creationTimestamp: '2024-05-01T10:00:00Z',
      labels: { app: 'checkout', 'pod-template-hash': '7d9f8b6c5', 'app.kubernetes.io/version': '2.14.1' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2024-05-01T09:59:58Z' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'checkout-7d9f8b6c5', uid: 'a1b2c3d4-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        fields('kube-controller-manager', 'Update', {
          'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, 'k:{"uid":"a1b2c3d4"}': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:env': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:ports': {}, 'f:resources': {} } }, 'f:dnsPolicy': {}, 'f:restartPolicy': {}, 'f:schedulerName': {} },
        }),
        fields('kubelet', 'Update', {
          'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } }, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': { '.': {}, 'k:{"ip":"10.244.1.7"}': { '.': {}, 'f:ip': {} } }, 'f:startTime': {} },
        }),
      ],
    },
    spec: {
      volumes: [{ name: 'kube-api-access-x7k2p', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }], defaultMode: 420 } }],
      containers: [container('app', 'registry.example.com/shop/checkout:2.14.1'), container('envoy', 'envoyproxy/envoy:v1.30.1')],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'checkout',
      nodeName: `node-${i % 50}`,
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-01T10:00:05Z' })),
      hostIP: `172.18.0.${(i % 50) + 2}`,
      podIP: `10.244.${i % 50}.${(i % 250) + 2}`,
      podIPs: [{ ip: `10.244.${i % 50}.${(i % 250) + 2}` }],
      startTime: '2024-05-01T10:00:00Z',
      containerStatuses: ['app', 'envoy'].map((n, k) => ({
        name: n,
        state: { running: { startedAt: '2024-05-01T10:00:04Z' } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: k ? 'docker.io/envoyproxy/envoy:v1.30.1' : 'registry.example.com/shop/checkout:2.14.1',
        imageID: `docker.io/library/${n}@sha256:${'0123456789abcdef'.repeat(4)}`,
        containerID: `containerd://${(i * 65537 + k).toString(16).padStart(64, '0')}`,
        started: true,
      })),
      qosClass: 'Burstable',
    },
  }
}

function chunked(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += CHUNK) out.push(bytes.subarray(i, i + CHUNK))
  return out
}

/** A KubeClient that answers every GET with the given body chunks (no sockets: the decode path only). */
function memoryClient(chunks: Uint8Array[]): KubeClient {
  return {
    server: 'memory://',
    watchList: 'unknown',
    async get() {
      let at = 0
      const res: KubeResponse = {
        status: 200,
        header: () => undefined,
        read: async () => (at < chunks.length ? chunks[at++] : null),
        async text() {
          const d = new TextDecoder()
          const parts: string[] = []
          for (let c = await res.read(); c; c = await res.read()) parts.push(d.decode(c, { stream: true }))
          return parts.join('') + d.decode()
        },
        close: () => {},
      }
      return res
    },
  }
}

async function best(runs: number, fn: () => Promise<number> | number): Promise<{ ms: number; check: number }> {
  let ms = Number.POSITIVE_INFINITY
  let check = 0
  for (let r = 0; r < runs; r++) {
    ;(globalThis as { gc?: () => void }).gc?.()
    const t0 = performance.now()
    check = await fn()
    ms = Math.min(ms, performance.now() - t0)
  }
  return { ms, check }
}

/** Runs the decode benchmark (see the file comment). */
export async function benchDecode(opts: BenchOptions): Promise<BenchSection> {
  const events = opts.quick ? 2_000 : 20_000
  const listItems = opts.quick ? 2_000 : 10_000
  const runs = opts.quick ? 3 : 5
  const enc = new TextEncoder()

  // Watch body: one compact {"type","object"} per line, as the API server streams it.
  const lines: string[] = []
  for (let i = 0; i < events; i++) lines.push(JSON.stringify({ type: 'MODIFIED', object: pod(i) }))
  const watchText = lines.join('\n') + '\n'
  const watchBytes = enc.encode(watchText)
  const watchChunks = chunked(watchBytes)
  const watchOurs = await best(runs, async () => {
    const conn = await openWatch(memoryClient(watchChunks), podsResource, { streamingList: false, resourceVersion: '1', timeoutSeconds: 300, idleTimeoutMs: 600_000 })
    let n = 0
    for (let item = await conn.next(); item; item = await conn.next()) if (item.type === 'MODIFIED' && item.object) n++
    return n
  })
  const watchCeiling = await best(runs, () => {
    let n = 0
    for (const line of lines) if ((JSON.parse(line) as { object: unknown }).object) n++
    return n
  })
  if (watchOurs.check !== events || watchCeiling.check !== events) throw new Error(`watch decode lost events: ${watchOurs.check}/${events}`)

  // List body: items without kind/apiVersion, one response of `listItems` pods.
  const items = Array.from({ length: listItems }, (_, i) => {
    const { kind: _k, apiVersion: _a, ...rest } = pod(i)
    return rest
  })
  const listText = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '200000' }, items })
  const listBytes = enc.encode(listText)
  const listChunks = chunked(listBytes)
  const listOurs = await best(runs, async () => (await fetchListPage(memoryClient(listChunks), podsResource, { limit: 500, idleTimeoutMs: 600_000 })).items.length)
  const listCeiling = await best(runs, () => (JSON.parse(listText) as { items: unknown[] }).items.length)
  if (listOurs.check !== listItems) throw new Error(`list decode lost items: ${listOurs.check}/${listItems}`)

  const mb = (bytes: number, ms: number): number => Math.round((bytes / 1e6 / (ms / 1000)) * 10) / 10
  const perS = (n: number, ms: number): number => Math.round(n / (ms / 1000))
  const ratio = (a: number, b: number): number => Math.round((a / b) * 1000) / 1000
  const watchRatio = ratio(watchOurs.ms, watchCeiling.ms)
  const listRatio = ratio(listOurs.ms, listCeiling.ms)
  return {
    name: 'decode',
    figures: {
      pod_json_bytes_avg: Math.round(watchBytes.length / events),
      watch_events: events,
      watch_events_per_s: perS(events, watchOurs.ms),
      watch_MBps: mb(watchBytes.length, watchOurs.ms),
      watch_ceiling_events_per_s: perS(events, watchCeiling.ms),
      watch_ceiling_MBps: mb(watchBytes.length, watchCeiling.ms),
      watch_vs_ceiling_x: watchRatio,
      list_items: listItems,
      list_events_per_s: perS(listItems, listOurs.ms),
      list_MBps: mb(listBytes.length, listOurs.ms),
      list_ceiling_MBps: mb(listBytes.length, listCeiling.ms),
      list_vs_ceiling_x: listRatio,
    },
    targets: [
      { name: 'watch body → PodMeta vs JSON.parse', value: watchRatio, limit: 1.3, op: '<=', unit: '×' },
      { name: 'list body → PodMeta vs JSON.parse', value: listRatio, limit: 1.3, op: '<=', unit: '×' },
    ],
    notes: [
      `bodies in ${CHUNK / 1024} KiB chunks; ours = UTF-8 decode + line framing + JSON.parse + podMetaOf (watch.ts / list.ts); ceiling = JSON.parse of the already decoded text`,
      `best of ${runs} runs`,
    ],
  }
}
