// Benchmark (issue 4 "decode"): API response bytes → PodMeta through the watch layer's own path
// (openWatch / fetchListPage over an in-memory response: for pods the byte-level scanner, pod-scanner.ts),
// beside the previous text path and plain TextDecoder + JSON.parse of the same bytes (the ceiling).
// Target: within 1.3× of the ceiling.
import { memoryClient } from '../e2e/harness/memory-client.ts'
import { fetchListPage } from '../src/kube/list.ts'
import { podsResource, type ResourceSpec } from '../src/kube/resources.ts'
import { createModelContext } from '../src/model/context.ts'
import { openWatch } from '../src/kube/watch.ts'
import type { PodMeta } from '../src/model/types.ts'
import type { BenchOptions, BenchSection } from './types.ts'

const CHUNK = 16 * 1024 // a TLS record's worth: what a socket read typically hands over

/** A realistic Running pod of a Deployment, ~5 KB with managedFields (docs/kube-api.md "Sizes"). */
export function pod(i: number): Record<string, unknown> {
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

/** The pods resource without its byte-level scanner: the JSON.parse + podMetaOf path (for comparison). */
const pods = podsResource(createModelContext())
const textPods: ResourceSpec<PodMeta> = { ...pods, scan: undefined }

async function watchRun(spec: ResourceSpec<PodMeta>, chunks: Uint8Array[]): Promise<number> {
  const conn = await openWatch(memoryClient(chunks), spec, { streamingList: false, resourceVersion: '1', timeoutSeconds: 300, idleTimeoutMs: 600_000 })
  let n = 0
  for (let item = await conn.next(); item; item = await conn.next()) if (item.type === 'MODIFIED' && item.object) n++
  return n
}

async function listRun(spec: ResourceSpec<PodMeta>, chunks: Uint8Array[]): Promise<number> {
  return (await fetchListPage(memoryClient(chunks), spec, { limit: 500, idleTimeoutMs: 600_000 })).items.length
}

/** Runs the decode benchmark (see the file comment). */
export async function benchDecode(opts: BenchOptions): Promise<BenchSection> {
  const events = opts.quick ? 2_000 : 20_000
  const listItems = opts.quick ? 2_000 : 10_000
  const runs = opts.quick ? 5 : 7
  const enc = new TextEncoder()
  const scanStats = pods.scan!.stats
  const fallbacksBefore = scanStats.fallbacks
  const parsedBefore = scanStats.parsedLines

  // Watch body: one compact {"type","object"} per line, as the API server streams it.
  const lines: string[] = []
  for (let i = 0; i < events; i++) lines.push(JSON.stringify({ type: 'MODIFIED', object: pod(i) }))
  const watchText = lines.join('\n') + '\n'
  const watchBytes = enc.encode(watchText)
  const watchChunks = chunked(watchBytes)
  const watchOurs = await best(runs, () => watchRun(pods, watchChunks))
  const watchText0 = await best(runs, () => watchRun(textPods, watchChunks))
  const watchCeiling = await best(runs, () => {
    let n = 0
    const text = new TextDecoder().decode(watchBytes)
    for (let at = 0, nl = text.indexOf('\n'); nl >= 0; at = nl + 1, nl = text.indexOf('\n', at)) if ((JSON.parse(text.slice(at, nl)) as { object: unknown }).object) n++
    return n
  })
  const watchParseOnly = await best(runs, () => {
    let n = 0
    for (const line of lines) if ((JSON.parse(line) as { object: unknown }).object) n++
    return n
  })
  for (const r of [watchOurs, watchText0, watchCeiling, watchParseOnly]) if (r.check !== events) throw new Error(`watch decode lost events: ${r.check}/${events}`)

  // List body: items without kind/apiVersion, one response of `listItems` pods.
  const items = Array.from({ length: listItems }, (_, i) => {
    const { kind: _k, apiVersion: _a, ...rest } = pod(i)
    return rest
  })
  const listText = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '200000' }, items })
  const listBytes = enc.encode(listText)
  const listChunks = chunked(listBytes)
  const listOurs = await best(runs, () => listRun(pods, listChunks))
  const listText0 = await best(runs, () => listRun(textPods, listChunks))
  const listCeiling = await best(runs, () => (JSON.parse(new TextDecoder().decode(listBytes)) as { items: unknown[] }).items.length)
  const listParseOnly = await best(runs, () => (JSON.parse(listText) as { items: unknown[] }).items.length)
  for (const r of [listOurs, listText0, listCeiling, listParseOnly]) if (r.check !== listItems) throw new Error(`list decode lost items: ${r.check}/${listItems}`)

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
      watch_text_path_MBps: mb(watchBytes.length, watchText0.ms),
      watch_ceiling_events_per_s: perS(events, watchCeiling.ms),
      watch_ceiling_MBps: mb(watchBytes.length, watchCeiling.ms),
      watch_parse_only_MBps: mb(watchBytes.length, watchParseOnly.ms),
      watch_vs_ceiling_x: watchRatio,
      watch_vs_parse_only_x: ratio(watchOurs.ms, watchParseOnly.ms),
      watch_text_path_vs_ceiling_x: ratio(watchText0.ms, watchCeiling.ms),
      list_items: listItems,
      list_events_per_s: perS(listItems, listOurs.ms),
      list_MBps: mb(listBytes.length, listOurs.ms),
      list_text_path_MBps: mb(listBytes.length, listText0.ms),
      list_ceiling_MBps: mb(listBytes.length, listCeiling.ms),
      list_parse_only_MBps: mb(listBytes.length, listParseOnly.ms),
      list_vs_ceiling_x: listRatio,
      list_vs_parse_only_x: ratio(listOurs.ms, listParseOnly.ms),
      list_text_path_vs_ceiling_x: ratio(listText0.ms, listCeiling.ms),
      scan_fallbacks: scanStats.fallbacks - fallbacksBefore,
      scan_parsed_lines: scanStats.parsedLines - parsedBefore,
    },
    targets: [
      { name: 'watch body → PodMeta vs JSON.parse', value: watchRatio, limit: 1.3, op: '<=', unit: '×' },
      { name: 'list body → PodMeta vs JSON.parse', value: listRatio, limit: 1.3, op: '<=', unit: '×' },
    ],
    notes: [
      `bodies in ${CHUNK / 1024} KiB chunks; ours = the byte path (watch.ts ByteLineFramer + pod-scanner.ts / list.ts bytes() + pod-scanner.ts): HTTP-body chunks → PodMeta`,
      'text_path = the previous path on the same chunks (UTF-8 decode + line framing + JSON.parse + podMetaOf), kept for resources without a scanner',
      'ceiling (ratio base) = TextDecoder + JSON.parse of the same bytes (watch: decoded whole, each line parsed); parse_only = JSON.parse of already decoded text',
      'scan_fallbacks = bodies/lines the scanner rejected but JSON.parse accepted (JSON.parse result used); scan_parsed_lines = non-pod watch lines (BOOKMARK/ERROR) parsed by design',
      `best of ${runs} runs`,
    ],
  }
}
