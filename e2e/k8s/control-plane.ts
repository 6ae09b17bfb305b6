// The real Kubernetes control plane on loopback (issue 30): etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler of the pinned release, with TLS, client certificates,
// service-account tokens and Node,RBAC authorization as in a kubeadm cluster, and N kwok fake nodes
// that play the kubelet's part in the API (kwok-stages.yaml).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { resolveBinaries, type Binaries } from './binaries.ts'
import { createApiClient, type ApiClient } from './api-client.ts'
import { kubeconfigYaml, type Credentials } from './kubeconfig.ts'
import { createControlPlanePki, SERVICE_CIDR, type ControlPlanePki } from './pki.ts'
import { Supervisor, type Component } from './processes.ts'

const here = dirname(fileURLToPath(import.meta.url))

export interface ControlPlaneOptions {
  /** Fake nodes (default 3). */
  readonly nodes?: number
  /** Keep certificates, etcd data and logs here (not removed at stop); default a temporary folder that is. */
  readonly stateDir?: string
  /** kube-apiserver's (and the controllers') `--feature-gates`. */
  readonly featureGates?: string
  /** More kube-apiserver flags (`--watch-cache=false`, `--max-requests-inflight=…`). */
  readonly apiserverArgs?: readonly string[]
  /** More kube-controller-manager flags (`--controllers=*,-replicaset` turns controllers off). */
  readonly controllerManagerArgs?: readonly string[]
  /** Progress lines (default: none). */
  readonly log?: (line: string) => void
  readonly env?: NodeJS.ProcessEnv
}

/** A running control plane. */
export interface ControlPlane {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string
  /** The server's version as it reports it (`v1.37.2`). */
  readonly version: string
  readonly pki: ControlPlanePki
  readonly dir: string
  readonly binaries: Binaries
  /** The admin kubeconfig (client certificate, system:masters). */
  readonly adminKubeconfig: string
  readonly nodeNames: readonly string[]
  /** An HTTPS client with the admin's certificate. */
  readonly admin: ApiClient
  /** The etcd client URL (plain HTTP on loopback). */
  readonly etcdUrl: string
  /** A kubeconfig (YAML text) for this server (or `server`, a proxy in front of it) with `credentials`. */
  kubeconfigFor(credentials: Credentials, server?: string): string
  /** Writes {@link kubeconfigFor} to a file in the state folder; returns its path. */
  writeKubeconfig(name: string, credentials: Credentials, server?: string): string
  /**
   * Stops kube-apiserver (SIGKILL: connections cut; `graceful`: SIGTERM, SIGKILL 60 s later — measured
   * with v1.37.2: it closes its listener at once and keeps open watches until it exits, and had not
   * exited after 60 s, behaviour.md §10.2), runs `meanwhile`, starts it again on the same port;
   * resolves once it is ready.
   */
  restartApiServer(meanwhile?: () => Promise<void>, opts?: { graceful?: boolean }): Promise<void>
  /** SIGKILLs kube-apiserver and leaves it down (an outage of any length); {@link startApiServer} ends it. */
  stopApiServer(): Promise<void>
  /** Starts kube-apiserver again on the same port after {@link stopApiServer}; resolves once it is ready. */
  startApiServer(): Promise<void>
  /**
   * SIGSTOPs kube-apiserver (`kill -STOP`): a hung process whose kernel still runs: connections stay
   * open and new ones are accepted, nothing is answered, HTTP/2 PINGs included; `false` SIGCONTs it.
   */
  pauseApiServer(paused: boolean): void
  /** etcd's current revision, then compacts its history up to it (what kube-apiserver does every 5 min). */
  compactEtcd(): Promise<number>
  /** The pids of the components still running. */
  pids(): number[]
  /** Stops every component (newest first); removes the state unless `stateDir` was given. */
  stop(): Promise<void>
}

/**
 * Node `i`'s pod range: the `n`th /24 of 10.244.0.0/14 with n = i + 1 (10.244.1.0/24, … 10.244.255.0/24,
 * 10.245.0.0/24 …), so the bench's hundreds of nodes each get a valid one.
 */
export function nodePodCidr(i: number): string {
  const n = i + 1
  if (!Number.isInteger(i) || i < 0 || n >= MAX_NODES + 1) throw new RangeError(`node index ${i} is outside 0..${MAX_NODES - 1}`)
  return `10.${244 + (n >> 8)}.${n & 255}.0/24`
}

/** A fake node's InternalIP in 172.18.0.0/16 (an address in objects only: nothing is sent to it). */
export function nodeIp(i: number): string {
  const n = i + 2
  return `172.18.${n >> 8}.${n & 255}`
}

/** How many fake nodes the pod ranges of 10.244.0.0/14 give a /24 each. */
export const MAX_NODES = 4 * 256 - 1

/** Starts the control plane; resolves once every node is Ready and the `default` ServiceAccount exists. */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = opts.log ?? (() => {})
  const env = opts.env ?? process.env
  const binaries = resolveBinaries(env)
  const dir = opts.stateDir ?? mkdtempSync(join(tmpdir(), 'k8s-control-plane-'))
  const logs = join(dir, 'logs')
  mkdirSync(logs, { recursive: true })
  const supervisor = new Supervisor(logs)
  try {
    return await boot({ ...opts, log }, binaries, dir, supervisor)
  } catch (err) {
    await supervisor.stopAll(2_000)
    if (!opts.stateDir) rmSync(dir, { recursive: true, force: true })
    throw err
  }
}

async function boot(opts: ControlPlaneOptions & { log: (line: string) => void }, binaries: Binaries, dir: string, supervisor: Supervisor): Promise<ControlPlane> {
  const { log } = opts
  const nodes = opts.nodes ?? 3
  const started = Date.now()
  const pki = await createControlPlanePki(join(dir, 'pki'))
  const [etcdPort, peerPort, apiPort, kcmPort, schedPort, kwokPort] = await Promise.all([0, 1, 2, 3, 4, 5].map(() => freePort()))
  const url = `https://127.0.0.1:${apiPort}`
  const etcdUrl = `http://127.0.0.1:${etcdPort}`
  const gates = opts.featureGates ? [`--feature-gates=${opts.featureGates}`] : []

  const kubeconfigFor = (credentials: Credentials, server = url) => kubeconfigYaml(server, pki.caPem, credentials)
  const writeKubeconfig = (name: string, credentials: Credentials, server = url) => {
    const file = join(dir, `${name}.kubeconfig`)
    writeFileSync(file, kubeconfigFor(credentials, server), { mode: 0o600 })
    return file
  }
  const adminKubeconfig = writeKubeconfig('admin', { certFile: pki.clients.admin.cert, keyFile: pki.clients.admin.key })
  const admin = createApiClient(url, { ca: pki.caPem, certFile: pki.clients.admin.cert, keyFile: pki.clients.admin.key })
  const exitedEarly = (c: Component) => c.exited.then(({ code, signal }) => {
    throw new Error(`${c.name} exited (${signal ?? code}) while starting:\n${c.logTail()}`)
  })

  // etcd: one member, plain HTTP on loopback, no fsync (test data).
  const etcdArgs = [
    '--name=default', `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${etcdUrl}`, `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=http://127.0.0.1:${peerPort}`, `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-cluster=default=http://127.0.0.1:${peerPort}`, '--unsafe-no-fsync', '--log-level=warn',
  ]
  const etcd = supervisor.start('etcd', binaries.etcd, etcdArgs)
  await Promise.race([exitedEarly(etcd), waitFor('etcd to be healthy', async () => {
    const res = await fetch(`${etcdUrl}/health`).catch(() => undefined)
    return res?.ok ? true : undefined
  }, { timeoutMs: 30_000 })])
  log(`control-plane: etcd ready (${etcdUrl})`)

  const apiserverArgs = [
    `--etcd-servers=${etcdUrl}`, '--bind-address=127.0.0.1', `--secure-port=${apiPort}`, '--advertise-address=127.0.0.1',
    // The `kubernetes` Service's endpoints may not be loopback addresses: nothing in-cluster dials it here.
    '--endpoint-reconciler-type=none',
    `--tls-cert-file=${pki.servingCert}`, `--tls-private-key-file=${pki.servingKey}`, `--client-ca-file=${pki.caCert}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki.saPub}`, `--service-account-signing-key-file=${pki.saKey}`,
    `--service-cluster-ip-range=${SERVICE_CIDR}`, '--authorization-mode=Node,RBAC', '--allow-privileged=true',
    `--cert-dir=${join(dir, 'apiserver-certs')}`, '--profiling=false', ...gates, ...(opts.apiserverArgs ?? []),
  ]
  let apiserver = supervisor.start('kube-apiserver', binaries['kube-apiserver'], apiserverArgs)
  const apiReady = (c: Component) => Promise.race([exitedEarly(c), waitFor('kube-apiserver to be ready', async () => {
    const res = await admin.request('GET', '/readyz').catch(() => undefined)
    return res?.status === 200 ? true : undefined
  }, { timeoutMs: 90_000, intervalMs: 250 })])
  await apiReady(apiserver)
  const version = ((await admin.json('GET', '/version')) as { gitVersion: string }).gitVersion
  log(`control-plane: kube-apiserver ${version} ready (${url})`)

  const componentKubeconfig = (name: 'controller-manager' | 'scheduler') =>
    writeKubeconfig(name, { certFile: pki.clients[name].cert, keyFile: pki.clients[name].key })
  const kcmConfig = componentKubeconfig('controller-manager')
  const kcm = supervisor.start('kube-controller-manager', binaries['kube-controller-manager'], [
    `--kubeconfig=${kcmConfig}`, `--authentication-kubeconfig=${kcmConfig}`, `--authorization-kubeconfig=${kcmConfig}`,
    '--bind-address=127.0.0.1', `--secure-port=${kcmPort}`, `--cert-dir=${join(dir, 'kcm-certs')}`,
    `--service-account-private-key-file=${pki.saKey}`, `--root-ca-file=${pki.caCert}`,
    `--cluster-signing-cert-file=${pki.caCert}`, `--cluster-signing-key-file=${pki.caKey}`,
    '--use-service-account-credentials=true', '--leader-elect=false', `--service-cluster-ip-range=${SERVICE_CIDR}`,
    '--allocate-node-cidrs=false', ...gates, ...(opts.controllerManagerArgs ?? []),
  ])
  const schedConfig = componentKubeconfig('scheduler')
  const scheduler = supervisor.start('kube-scheduler', binaries['kube-scheduler'], [
    `--kubeconfig=${schedConfig}`, `--authentication-kubeconfig=${schedConfig}`, `--authorization-kubeconfig=${schedConfig}`,
    '--bind-address=127.0.0.1', `--secure-port=${schedPort}`, `--cert-dir=${join(dir, 'scheduler-certs')}`, '--leader-elect=false', ...gates,
  ])
  // The stages with the nodes' kubelet version filled in: the server's own, as a real kubelet of this release reports.
  const stages = join(dir, 'kwok-stages.yaml')
  writeFileSync(stages, readFileSync(join(here, 'kwok-stages.yaml'), 'utf8').replaceAll('KUBELET_VERSION', version))
  const kwok = supervisor.start('kwok', binaries.kwok, [
    `--kubeconfig=${adminKubeconfig}`, `--config=${stages}`,
    '--manage-all-nodes=false', '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
    `--server-address=127.0.0.1:${kwokPort}`, '--node-lease-duration-seconds=40',
  ])

  const nodeNames = Array.from({ length: nodes }, (_, i) => `node-${i + 1}`)
  for (const [i, name] of nodeNames.entries()) {
    // 409: the node is there already (a state folder reused); kwok takes it over again.
    const created = await admin.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', type: 'kwok' },
        annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      },
      spec: { podCIDR: nodePodCidr(i), podCIDRs: [nodePodCidr(i)] },
      status: { addresses: [{ type: 'InternalIP', address: nodeIp(i) }, { type: 'Hostname', address: name }] },
    })
    if (created.status !== 201 && created.status !== 409) throw new Error(`creating node ${name}: HTTP ${created.status} ${created.body.slice(0, 300)}`)
  }
  const components = [kcm, scheduler, kwok]
  await Promise.race([...components.map(exitedEarly), waitFor(`${nodes} nodes Ready and the default ServiceAccount`, async () => {
    const list = (await admin.json('GET', '/api/v1/nodes').catch(() => undefined)) as { items: Array<{ status?: { conditions?: Array<{ type: string; status: string }> } }> } | undefined
    const ready = list?.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length ?? 0
    if (ready < nodes) return undefined
    const sa = await admin.request('GET', '/api/v1/namespaces/default/serviceaccounts/default').catch(() => undefined)
    return sa?.status === 200 ? true : undefined
  }, { timeoutMs: 120_000, intervalMs: 250 })])
  log(`control-plane: ${nodes} nodes Ready in ${((Date.now() - started) / 1000).toFixed(1)} s`)

  return {
    url,
    version,
    pki,
    dir,
    binaries,
    adminKubeconfig,
    nodeNames,
    admin,
    etcdUrl,
    kubeconfigFor,
    writeKubeconfig,
    async restartApiServer(meanwhile, opts = {}) {
      await (opts.graceful ? apiserver.stop(60_000) : apiserver.kill())
      await meanwhile?.()
      apiserver = supervisor.start('kube-apiserver', binaries['kube-apiserver'], apiserverArgs)
      await apiReady(apiserver)
    },
    async stopApiServer() {
      await apiserver.kill()
    },
    async startApiServer() {
      apiserver = supervisor.start('kube-apiserver', binaries['kube-apiserver'], apiserverArgs)
      await apiReady(apiserver)
    },
    pauseApiServer(paused) {
      apiserver.child.kill(paused ? 'SIGSTOP' : 'SIGCONT')
    },
    async compactEtcd() {
      const range = (await (await fetch(`${etcdUrl}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: 'AA==' }) })).json()) as { header: { revision: string } }
      const revision = Number(range.header.revision)
      const res = await fetch(`${etcdUrl}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision, physical: true }) })
      if (!res.ok) throw new Error(`etcd compaction to ${revision}: HTTP ${res.status} ${await res.text()}`)
      return revision
    },
    pids: () => supervisor.pids(),
    async stop() {
      await supervisor.stopAll()
      if (!opts.stateDir) rmSync(dir, { recursive: true, force: true })
    },
  }
}
