// The `real` section (issue 31): ours (Deno, Node) and each contender, in turn, against the real
// control plane (kube-apiserver + etcd + kwok nodes, e2e/k8s) holding N pods, with the same reducer
// stand-in as the other cluster sections: sync wall and CPU, steady RSS, and what each cost the
// API server over M minutes of steady churn (its audit log by user agent, its metrics by verb).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKubectl } from '../e2e/harness/kubectl.ts'
import { waitFor } from '../e2e/harness/wait.ts'
import { COLLECTOR_ACCOUNT, COLLECTOR_NAMESPACE, collectorKubeconfig } from '../e2e/k8s/backend.ts'
import { startControlPlane, type ControlPlane } from '../e2e/k8s/control-plane.ts'
import { apiCost, COST_METRICS, heapAllocated, lessBaseline, type ApiCost } from './real/api-cost.ts'
import { auditPolicy, createAuditReader, type AuditRequest } from './real/audit.ts'
import { createH2Client, type H2Client } from './real/h2-client.ts'
import { captureProfile } from './real/pprof.ts'
import { parsePromText, type Sample } from './real/prom-text.ts'
import { createRealCluster, startChurn, waitQuiet, type RealCluster } from './real/workload.ts'
import { allContenders, collectorCommand, runCollector, syncRuntimes, type Contender, type CollectorRuntime, type RealApi } from './replay/collector.ts'
import { cpuMs, memMB, round, sizeLabel, sleep } from './replay/proc.ts'
import type { BenchOptions, BenchSection } from './types.ts'

const SETTLE_MS = 3_000
/** Pods replaced per second during the churn (~4 pod watch events each). */
const CHURN_PER_S = 10
/** Pods per fake node: kwok hands out pod IPs from each node's /24. */
const PODS_PER_NODE = 200
const FLOW_SCHEMA = 'bench-collector'
const COLLECTOR_USER = `system:serviceaccount:${COLLECTOR_NAMESPACE}:${COLLECTOR_ACCOUNT}`
/** The owners' controllers are off: the bench writes ReplicaSets, Jobs and pods itself (bench/real/workload.ts). */
const CONTROLLERS_OFF = '--controllers=*,-deployment-controller,-replicaset-controller,-job-controller,-cronjob-controller'

const argValue = (flag: string): string | undefined => {
  const at = process.argv.indexOf(flag)
  return at >= 0 ? process.argv[at + 1] : undefined
}

type Entrant = { readonly label: string; readonly runtime?: CollectorRuntime; readonly contender?: Contender }

interface EntrantFigures {
  readonly label: string
  readonly apiOnly: boolean
  readonly wallMs: number
  readonly cpuMs: number
  readonly peakMB: number
  readonly rssMB: number
  readonly churnCpuMs: number
  readonly churnRssMB: number
  readonly churnPodMessages: number
  readonly connections: number
  readonly sync: ApiCost
  readonly churn: ApiCost
  readonly churnSeconds: number
  /** kube-apiserver's process CPU (utime + stime) over the sync and churn windows, ms. */
  readonly apiserverCpuMs: { readonly sync: number; readonly churn: number }
  /**
   * kube-apiserver's memory over the sync window: Go heap bytes allocated, less its idle rate
   * measured just before; the peak of its RSS (sampled every 100 ms) over its RSS at the start.
   */
  readonly apiserverSyncMem: { readonly allocMB: number; readonly idleAllocMBPerS: number; readonly peakRssDeltaMB: number }
  /** The collector's response body bytes (k8s_collector_api_response_*_bytes_total) over the sync and churn windows. */
  readonly apiBodies?: { readonly sync: { wire: number; decoded: number }; readonly churn: { wire: number; decoded: number } }
}

/** kube-apiserver's pid among the control plane's components. */
function apiserverPid(plane: ControlPlane): number | undefined {
  for (const pid of plane.pids()) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.endsWith('kube-apiserver')) return pid
    } catch {
      // gone
    }
  }
  return undefined
}

/** The collector's response body counters now (NaN for a contender without them). */
async function bodyBytes(run: { metrics(): Promise<Map<string, number>> }): Promise<{ wire: number; decoded: number }> {
  const m = await run.metrics()
  return { wire: m.get('k8s_collector_api_response_wire_bytes_total') ?? NaN, decoded: m.get('k8s_collector_api_response_decoded_bytes_total') ?? NaN }
}
const less = (a: { wire: number; decoded: number }, b: { wire: number; decoded: number }) => ({ wire: a.wire - b.wire, decoded: a.decoded - b.decoded })

async function scrapeText(api: H2Client): Promise<string> {
  const res = await api.request('GET', '/metrics', undefined, { accept: 'text/plain' })
  if (res.status !== 200) throw new Error(`GET /metrics: HTTP ${res.status}`)
  return res.body
}

/** The server's counters the cost is computed from. */
const scrape = async (api: H2Client): Promise<Sample[]> => parsePromText(await scrapeText(api), (name) => COST_METRICS.has(name))

/** A ServiceAccount folder as a pod mounts it, for contenders that read only the in-cluster configuration. */
function serviceAccountDir(dir: string, plane: ControlPlane, kubeconfig: string): string {
  const sa = join(dir, 'serviceaccount')
  const token = (JSON.parse(readFileSync(kubeconfig, 'utf8')) as { users: Array<{ user: { token: string } }> }).users[0]!.user.token
  mkdirSync(sa, { recursive: true })
  for (const [file, text] of [['token', token], ['ca.crt', plane.pki.caPem], ['namespace', COLLECTOR_NAMESPACE]] as const) {
    writeFileSync(join(sa, file), text, { flag: 'w' })
  }
  return sa
}

/** kube-apiserver's RSS in MB (NaN when it cannot be read). */
function rssMB(pid: number | undefined): number {
  if (pid === undefined) return NaN
  try {
    return memMB(pid).rssMB
  } catch {
    return NaN
  }
}

/** The peak of kube-apiserver's RSS from now until `stop()`, sampled every 100 ms. */
function rssPeak(pid: number | undefined): { stop(): number } {
  let peak = rssMB(pid)
  const timer = setInterval(() => {
    const now = rssMB(pid)
    if (!(now <= peak)) peak = now
  }, 100)
  return {
    stop() {
      clearInterval(timer)
      return Math.max(peak, rssMB(pid))
    },
  }
}

/** How long the server's idle heap allocation rate is measured before each collector. */
const IDLE_ALLOC_MS = 10_000

/** `--real-pprof`: starts a CPU profile of kube-apiserver named after the entrant; settles once written. */
type Profiler = (label: string) => Promise<number>

async function measure(cluster: RealCluster, real: RealApi, api: H2Client, audit: ReturnType<typeof createAuditReader>, who: Entrant, minutes: number, baseline: { cost: ApiCost; replaced: number }, apiserverPid: () => number | undefined, profile?: Profiler): Promise<EntrantFigures> {
  const log = (line: string) => console.log(`  real: ${who.label}: ${line}`)
  const apiserverCpu = (): number => {
    const pid = apiserverPid()
    return pid === undefined ? NaN : cpuMs(pid)
  }
  await waitQuiet(api, cluster.pods, 120_000)
  const idle0 = await scrape(api)
  const idleStart = performance.now()
  await sleep(IDLE_ALLOC_MS)
  audit.skipToEnd()
  const m0 = await scrape(api)
  const idleAllocPerMs = heapAllocated(idle0, m0) / (performance.now() - idleStart)
  const a0 = apiserverCpu()
  const pid = apiserverPid()
  const rss0 = rssMB(pid)
  const peak = rssPeak(pid)
  const w0 = performance.now()
  const profiled = profile?.(who.label).then((n) => `${n} bytes`, (err: Error) => `not taken: ${err.message}`)
  const apiOnly = who.contender?.apiOnly === true
  const run = await runCollector(cluster, real, who.contender ? { contender: who.contender } : { runtime: who.runtime })
  try {
    const syncReqs: AuditRequest[] = []
    let t: { wallMs: number; cpuMs: number }
    if (apiOnly) {
      // Synced on the API side: its lists answered and a watch open on each collected resource.
      const t0 = performance.now()
      await waitFor(`${who.label}: watches of pods, replicasets and jobs`, () => {
        syncReqs.push(...audit.read())
        const watching = new Set(syncReqs.filter((r) => r.verb === 'WATCH' && r.code === 200).map((r) => r.resource))
        return ['pods', 'replicasets', 'jobs'].every((r) => watching.has(r)) ? true : undefined
      }, { timeoutMs: 60_000 + cluster.pods * 10, intervalMs: 200 })
      t = { wallMs: performance.now() - t0, cpuMs: NaN }
    } else {
      t = await run.synced(60_000 + cluster.pods * 10)
    }
    log(`synced in ${Math.round(t.wallMs)} ms`)
    await sleep(SETTLE_MS)
    const mem = run.mem()
    const m1 = await scrape(api)
    const syncMs = performance.now() - w0
    const a1 = apiserverCpu()
    const rssPeakMB = peak.stop()
    const b1 = apiOnly ? undefined : await bodyBytes(run)
    syncReqs.push(...audit.read())
    if (profiled) log(`kube-apiserver profile of the sync: ${await profiled}`)
    const cpu0 = run.cpuMs()
    const msg0 = run.counts.messages
    const churn = startChurn(api, cluster, CHURN_PER_S)
    await sleep(minutes * 60_000)
    const churned = await churn.stop()
    const m2 = await scrape(api)
    const a2 = apiserverCpu()
    const b2 = apiOnly ? undefined : await bodyBytes(run)
    const churnReqs = audit.read()
    const cpu1 = run.cpuMs()
    const after = run.mem()
    log(`churn: ${churned.replaced} pods replaced in ${churned.seconds.toFixed(0)} s (${churned.errors} errors${churned.lastError ? `, last: ${churned.lastError}` : ''})`)
    return {
      label: who.label,
      apiOnly,
      ...t,
      ...mem,
      churnCpuMs: cpu1 - cpu0,
      churnRssMB: after.rssMB,
      churnPodMessages: run.counts.messages - msg0,
      connections: run.connections(),
      sync: apiCost(m0, m1, syncReqs, FLOW_SCHEMA),
      churn: lessBaseline(apiCost(m1, m2, churnReqs, FLOW_SCHEMA), baseline.cost, churned.replaced / baseline.replaced),
      churnSeconds: churned.seconds,
      apiserverCpuMs: { sync: a1 - a0, churn: a2 - a1 },
      apiserverSyncMem: {
        allocMB: (heapAllocated(m0, m1) - idleAllocPerMs * syncMs) / 1e6,
        idleAllocMBPerS: (idleAllocPerMs * 1000) / 1e6,
        peakRssDeltaMB: rssPeakMB - rss0,
      },
      ...(b1 && b2 ? { apiBodies: { sync: b1, churn: less(b2, b1) } } : {}),
    }
  } finally {
    peak.stop()
    await run.stop()
  }
}

export async function benchReal(opts: BenchOptions): Promise<BenchSection> {
  const pods = Number(argValue('--real-pods') ?? (opts.quick ? 500 : 10_000))
  const minutes = Number(argValue('--real-minutes') ?? (opts.quick ? 1 : 10))
  const baselineMinutes = Math.min(minutes, opts.quick ? 0.5 : 3)
  /** `--real-keep DIR`: keep the audit log and two /metrics scrapes there (raw material of the unit tests' fixtures). */
  const keep = argValue('--real-keep')
  /** `--real-pprof DIR`: kube-apiserver with profiling on, a CPU profile from each collector's spawn (`--real-pprof-seconds`, 20) as DIR/LABEL-sync.pprof. */
  const pprofDir = argValue('--real-pprof')
  const pprofSeconds = Number(argValue('--real-pprof-seconds') ?? 20)
  const k = sizeLabel(pods)
  const dir = mkdtempSync(join(tmpdir(), 'k8s-bench-real-'))
  const policy = join(dir, 'audit-policy.json')
  const auditLog = join(dir, 'audit.log')
  writeFileSync(policy, auditPolicy(COLLECTOR_USER))
  const started = performance.now()
  const plane = await startControlPlane({
    nodes: Math.max(3, Math.ceil(pods / PODS_PER_NODE)),
    apiserverArgs: [`--audit-policy-file=${policy}`, `--audit-log-path=${auditLog}`, ...(pprofDir ? ['--profiling=true'] : [])],
    controllerManagerArgs: [CONTROLLERS_OFF],
    log: (line) => console.log(`  ${line}`),
  })
  const api = createH2Client(plane.url, { ca: plane.pki.caPem, certFile: plane.pki.clients.admin.cert, keyFile: plane.pki.clients.admin.key })
  try {
    const kubeconfig = await collectorKubeconfig(plane, createKubectl(plane.adminKubeconfig), 'token')
    // The collector's own flow schema: apiserver_flowcontrol_dispatched_requests_total counts its requests.
    await api.json('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: FLOW_SCHEMA },
      spec: {
        priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: COLLECTOR_ACCOUNT, namespace: COLLECTOR_NAMESPACE } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }],
      },
    })
    const cluster = await createRealCluster(api, plane.nodeNames, pods, (line) => console.log(`  ${line}`))
    console.log(`  real: ${cluster.pods} pods (${cluster.containers} containers) Running on ${plane.nodeNames.length} nodes in ${(cluster.createMs / 1000).toFixed(0)} s`)
    const real: RealApi = {
      kubeconfig,
      contenderEnv: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: new URL(plane.url).port, K8S_BENCH_SERVICEACCOUNT_DIR: serviceAccountDir(dir, plane, kubeconfig) },
    }
    const audit = createAuditReader(auditLog)

    // Baseline: the same churn with no collector, what the other clients (kube-controller-manager,
    // kube-scheduler, kwok) cost the server; subtracted, scaled to each window's length.
    const b0 = await scrape(api)
    audit.skipToEnd()
    const baseChurn = startChurn(api, cluster, CHURN_PER_S)
    await sleep(baselineMinutes * 60_000)
    const based = await baseChurn.stop()
    const b1 = await scrape(api)
    const baseline = { cost: apiCost(b0, b1, audit.read(), FLOW_SCHEMA), seconds: based.seconds, replaced: based.replaced }
    if (keep) {
      writeFileSync(join(keep, 'metrics-before.txt'), await scrapeText(api))
    }
    console.log(`  real: baseline ${based.replaced} pods replaced in ${based.seconds.toFixed(0)} s, ${Math.round(baseline.cost.watchEvents)} watch events to other clients`)

    const entrants: Entrant[] = [...syncRuntimes.map((runtime) => ({ label: runtime, runtime })), ...allContenders.map((contender) => ({ label: contender.name, contender }))]
    const results: EntrantFigures[] = []
    const auth = { ca: plane.pki.caPem, certFile: plane.pki.clients.admin.cert, keyFile: plane.pki.clients.admin.key }
    if (pprofDir) mkdirSync(pprofDir, { recursive: true })
    const profile: Profiler | undefined = pprofDir ? (label) => captureProfile(plane.url, auth, pprofSeconds, join(pprofDir, `${label}-sync.pprof`)) : undefined
    for (const e of entrants) results.push(await measure(cluster, real, api, audit, e, minutes, baseline, () => apiserverPid(plane), profile))

    const figures: Record<string, number | string> = {
      server: plane.version,
      [`${k}_pods`]: cluster.pods,
      [`${k}_containers`]: cluster.containers,
      [`${k}_nodes`]: plane.nodeNames.length,
      [`${k}_replicasets`]: cluster.replicaSets,
      [`${k}_jobs`]: cluster.jobs,
      [`${k}_create_s`]: round(cluster.createMs / 1000),
      churn_minutes: minutes,
      churn_pods_replaced_per_s: CHURN_PER_S,
      baseline_minutes: baselineMinutes,
      baseline_watch_events_per_min: round(baseline.cost.watchEvents / (baseline.seconds / 60)),
      api_compression: process.env.K8S_COLLECTOR_API_COMPRESSION ?? 'default (gzip)',
    }
    for (const f of results) Object.assign(figures, entrantFigures(k, f))
    const ours = results.find((r) => r.label === syncRuntimes[0])
    for (const f of results) {
      if (!ours || f === ours) continue
      const p = `${k}_${f.label}_vs_${ours.label}`
      if (!f.apiOnly) {
        figures[`${p}_sync_cpu_x`] = round(f.cpuMs / ours.cpuMs, 2)
        figures[`${p}_steady_rss_x`] = round(f.rssMB / ours.rssMB, 2)
        figures[`${p}_churn_cpu_x`] = round(f.churnCpuMs / ours.churnCpuMs, 2)
      }
      figures[`${p}_churn_watch_bytes_x`] = round((f.churn.bytes.WATCH ?? 0) / (ours.churn.bytes.WATCH || NaN), 2)
      figures[`${p}_sync_bytes_x`] = round(sumBytes(f.sync) / sumBytes(ours), 2)
    }
    return {
      name: 'real',
      figures,
      notes: [
        `the real control plane (e2e/k8s): kube-apiserver ${plane.version}, etcd, kube-scheduler, kube-controller-manager with the Deployment, ReplicaSet, Job and CronJob controllers off (${CONTROLLERS_OFF}): the bench creates the owners and the pods through the API over one HTTP/2 connection, pods bound to ${plane.nodeNames.length} kwok nodes that make them Running with IPs (e2e/k8s/kwok-stages.yaml); Job pods kept Running`,
        `collectors in turn against the same server and the same pods: ${[...syncRuntimes.map((r) => `${r}: ${collectorCommand(r)}`), ...allContenders.map((c) => `${c.name}: \`/bin/sh -c ${JSON.stringify(c.command)}\`${c.apiOnly ? ' (API side only)' : ''}`)].join('; ')}; one run each`,
        'identity: every collector uses the same ServiceAccount token (kind/collector.yaml RBAC); contenders also get KUBERNETES_SERVICE_HOST/PORT and K8S_BENCH_SERVICEACCOUNT_DIR (token, ca.crt, namespace) for in-cluster configuration',
        `sync = spawn → every pod and container announced at the reducer stand-in on one connection (API-only contenders: spawn → a watch open on pods, replicasets and jobs, from the audit log); steady RSS ${SETTLE_MS / 1000} s later`,
        `churn = ${CHURN_PER_S} pods of ReplicaSets replaced per second (delete + create; kwok's status and the deletion make ~4 pod watch events each) for ${minutes} min; churn CPU per 1,000 of the pod watch events the server sent the collector`,
        "requests by verb: the API server's audit log (Metadata level for the collector's user only; kube-apiserver v1.37 metrics have no user-agent label), each request counted once when it started answering; flowschema_requests = apiserver_flowcontrol_dispatched_requests_total of a FlowSchema matching only the collector (cross-check)",
        `bytes by verb: apiserver_response_sizes_sum (LIST, GET) and apiserver_watch_events_sizes_sum (WATCH) of pods, replicasets and jobs — server-wide metrics, so each collector runs alone and the churn windows have a baseline of ${baselineMinutes} min of the same churn without a collector (the other clients' share) subtracted, scaled to the window; the sync windows have no churn and no baseline; other_clients_lists = lists of pods, replicasets and jobs by other clients in the window (apiserver_request_total LIST + apiserver_watch_list_duration_seconds_count, less the collector's own): each brings a whole list's events or bytes into the server-wide figures, noise the baseline cannot remove`,
        'apiserver_cpu_ms: kube-apiserver\'s process CPU (/proc utime + stime) over the window, every client\'s work included (the sync window has no churn); collector_wire_MB / collector_decoded_MB: the collector\'s own k8s_collector_api_response_wire_bytes_total and …_decoded_bytes_total over the window (the watch bytes as sent: apiserver_watch_events_sizes counts events before compression); api_compression: K8S_COLLECTOR_API_COMPRESSION of the run',
        `apiserver_alloc_MB: kube-apiserver's Go heap bytes allocated over the sync window (go_memstats_alloc_bytes_total), less its idle rate over the ${IDLE_ALLOC_MS / 1000} s just before (idle_apiserver_alloc_MB_per_s, the scrapes included); apiserver_peak_rss_delta_MB: its VmRSS sampled every 100 ms over the window, the peak less the value at the start — the collectors run in turn, so a heap grown by an earlier one can hide a later one's growth`,
        'one run per collector on a shared 2-core machine: timing and CPU figures are noisy (compare ratios within the run); request counts and bytes are the server\'s',
      ],
    }
  } finally {
    if (keep) {
      writeFileSync(join(keep, 'metrics-after.txt'), await scrapeText(api).catch((err: Error) => err.message))
      try {
        writeFileSync(join(keep, 'audit.log'), readFileSync(auditLog))
      } catch (err) {
        console.log(`  real: audit log not kept: ${(err as Error).message}`)
      }
    }
    api.close()
    await plane.stop()
    rmSync(dir, { recursive: true, force: true })
    console.log(`  real: ${((performance.now() - started) / 60_000).toFixed(1)} min in all`)
  }
}

const sumBytes = (x: ApiCost | EntrantFigures): number => Object.values(('sync' in x ? x.sync : x).bytes).reduce((a, b) => a + b, 0)
const MB = (b: number | undefined): number => round((b ?? 0) / 1e6, 2)

function entrantFigures(k: string, f: EntrantFigures): Record<string, number | string> {
  const p = `${k}_${f.label}`
  const out: Record<string, number | string> = {}
  out[`${p}_user_agent`] = [...new Set([...f.sync.userAgents, ...f.churn.userAgents])].join(' | ')
  out[`${p}_sync_wall_ms`] = Math.round(f.wallMs)
  if (!f.apiOnly) {
    out[`${p}_sync_cpu_ms`] = Math.round(f.cpuMs)
    out[`${p}_peak_rss_MB`] = f.peakMB
    out[`${p}_steady_rss_MB`] = f.rssMB
    out[`${p}_after_churn_rss_MB`] = f.churnRssMB
    out[`${p}_reducer_connections_max`] = f.connections
  }
  for (const [window, cost] of [['sync', f.sync], ['churn', f.churn]] as const) {
    for (const [verb, n] of Object.entries(cost.requests).sort()) out[`${p}_${window}_requests_${verb}`] = n
    for (const [verb, b] of Object.entries(cost.bytes).sort()) out[`${p}_${window}_${verb}_MB`] = MB(b)
    out[`${p}_${window}_flowschema_requests`] = cost.flowSchemaRequests
    out[`${p}_${window}_other_clients_lists`] = cost.otherLists
    out[`${p}_${window}_requests_by_resource`] = Object.entries(cost.requestsByResource).sort().map(([key, n]) => `${key}: ${n}`).join(', ')
    out[`${p}_${window}_requests_by_shape`] = Object.entries(cost.requestsByShape).sort().map(([key, n]) => `${n}× ${key}`).join(' | ')
  }
  out[`${p}_sync_apiserver_cpu_ms`] = Math.round(f.apiserverCpuMs.sync)
  out[`${p}_churn_apiserver_cpu_ms`] = Math.round(f.apiserverCpuMs.churn)
  out[`${p}_sync_apiserver_alloc_MB`] = round(f.apiserverSyncMem.allocMB)
  out[`${p}_idle_apiserver_alloc_MB_per_s`] = round(f.apiserverSyncMem.idleAllocMBPerS, 2)
  out[`${p}_sync_apiserver_peak_rss_delta_MB`] = round(f.apiserverSyncMem.peakRssDeltaMB)
  if (f.apiBodies) {
    for (const [window, b] of [['sync', f.apiBodies.sync], ['churn', f.apiBodies.churn]] as const) {
      out[`${p}_${window}_collector_wire_MB`] = MB(b.wire)
      out[`${p}_${window}_collector_decoded_MB`] = MB(b.decoded)
    }
  }
  const minutes = f.churnSeconds / 60
  out[`${p}_churn_watch_events`] = Math.round(f.churn.watchEvents)
  out[`${p}_churn_watch_requests_per_stream_per_min`] = round((f.churn.requests.WATCH ?? 0) / 3 / minutes, 2)
  out[`${p}_churn_MB_per_min`] = round(Object.values(f.churn.bytes).reduce((a, b) => a + b, 0) / 1e6 / minutes, 3)
  if (!f.apiOnly) {
    out[`${p}_churn_cpu_ms`] = f.churnCpuMs
    out[`${p}_churn_cpu_per_1000_events_ms`] = round(f.churnCpuMs / (f.churn.watchEvents / 1000))
    out[`${p}_churn_pod_messages`] = f.churnPodMessages
  }
  return out
}
