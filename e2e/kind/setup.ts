// The kind suite's fixtures: the kind cluster (created or reused), the collector image built and
// loaded into it, the fake reducer (the same image running `tap`) as a testcontainers container
// on the `kind` Docker network, and the collector deployed from kind/collector.yaml.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers'
import type { DisruptMode } from './disrupt.ts'
import { exec, retry } from '../harness/exec.ts'

/** Everything the suite's fixtures are named after; resolved once from the environment. */
export interface KindSuiteConfig {
  /** The repository root (Dockerfile, kind/). */
  readonly root: string
  /** kind cluster name: K8S_COLLECTOR_E2E_CLUSTER, default `k8s-collector-e2e`; reused when it exists. */
  readonly clusterName: string
  /** Keep cluster, workloads and tap after the run (K8S_COLLECTOR_E2E_KEEP=1), for debugging. */
  readonly keep: boolean
  /** The collector image built from the Dockerfile and loaded into kind. */
  readonly image: string
  /** DENORT_BIN: Deno's base runtime on this machine (absolute, or relative to the working folder, as `npm run compile` takes it), when set. */
  readonly denortBin?: string
  /** Where the cluster's kubeconfig is written (a temporary file; ~/.kube/config is not touched). */
  readonly kubeconfig: string
  /** How scenario 7 breaks the API path (K8S_COLLECTOR_E2E_DISRUPT, default `network`; disrupt.ts). */
  readonly disruption: DisruptMode
}

/** The fake reducer's name on the `kind` network: the collector's EBPF_NET_INTAKE_HOST. */
export const TAP_ALIAS = 'k8s-collector-tap'
/** kind's Docker network (created by `kind create cluster`). */
export const KIND_NETWORK = 'kind'
/** Marks the tap containers this suite starts (found again with `docker ps --filter label=KEY=VALUE`). */
const TAP_LABEL = { key: 'io.k8s-collector.e2e', value: 'tap' } as const
export const TAP_INGEST_PORT = 8000
export const TAP_HTTP_PORT = 8080
/** kind/collector.yaml's namespace, its Deployment's name, and its pods' label selector. */
export const COLLECTOR_NAMESPACE = 'k8s-collector'
export const COLLECTOR_APP = 'k8s-collector'
export const COLLECTOR_SELECTOR = 'app.kubernetes.io/name=k8s-collector,app.kubernetes.io/instance=k8s-collector'
/** The leader-election Lease of kind/collector.yaml's replicas (the default `--lease-name`, in their namespace). */
export const COLLECTOR_LEASE = 'k8s-collector'

import type { Kubectl } from '../harness/kubectl.ts'
export { createKubectl, type Kubectl } from '../harness/kubectl.ts'

/**
 * Reuses the cluster called `clusterName` when `kind get clusters` lists it, else creates it from
 * kind/cluster.yaml. Writes its kubeconfig to `config.kubeconfig`; returns whether it was created.
 */
export async function ensureCluster(config: KindSuiteConfig, log: (line: string) => void): Promise<{ created: boolean }> {
  const existing = (await exec('kind', ['get', 'clusters'])).split('\n').map((l) => l.trim())
  const created = !existing.includes(config.clusterName)
  if (created) {
    log(`creating kind cluster ${config.clusterName} (kind/cluster.yaml; the first run pulls the node image)`)
    await exec(
      'kind',
      ['create', 'cluster', '--config', join(config.root, 'kind', 'cluster.yaml'), '--name', config.clusterName, '--kubeconfig', config.kubeconfig, '--wait', '180s'],
      { timeoutMs: 15 * 60_000, echo: true },
    )
  } else {
    log(`reusing kind cluster ${config.clusterName}`)
  }
  writeFileSync(config.kubeconfig, await exec('kind', ['get', 'kubeconfig', '--name', config.clusterName]), { mode: 0o600 })
  return { created }
}

/** The Docker container of the cluster's control-plane node (where the API server runs). */
export async function controlPlaneNode(clusterName: string): Promise<string> {
  const nodes = (await exec('kind', ['get', 'nodes', '--name', clusterName])).split('\n').map((l) => l.trim()).filter(Boolean)
  const cp = nodes.find((n) => n.endsWith('-control-plane')) ?? nodes.find((n) => n.includes('control-plane'))
  if (!cp) throw new Error(`kind cluster ${clusterName} has no control-plane node (nodes: ${nodes.join(', ') || 'none'})`)
  return cp
}

/** Where DENORT_BIN is put for the image build: the one file under .tmp the build context includes (.dockerignore). */
const DENORT_IN_CONTEXT = '.tmp/denort'

/**
 * `docker build` of the repository's Dockerfile, then `kind load docker-image` into the cluster.
 * DENORT_BIN is copied into the build context first and named to the build by its path there.
 */
export async function buildAndLoadImage(config: KindSuiteConfig, log: (line: string) => void): Promise<void> {
  log(`building ${config.image} (docker build; the first build downloads npm packages${config.denortBin ? '' : ' and the deno runtime'})`)
  const buildArgs: string[] = []
  if (config.denortBin) {
    const staged = join(config.root, DENORT_IN_CONTEXT)
    if (resolve(config.denortBin) !== staged) {
      mkdirSync(dirname(staged), { recursive: true })
      copyFileSync(resolve(config.denortBin), staged)
    }
    buildArgs.push('--build-arg', `DENORT_BIN=${DENORT_IN_CONTEXT}`)
  }
  await exec('docker', ['build', '-t', config.image, ...buildArgs, '.'], { cwd: config.root, timeoutMs: 30 * 60_000, echo: true })
  log(`loading ${config.image} into ${config.clusterName}`)
  await exec('kind', ['load', 'docker-image', config.image, '--name', config.clusterName], { timeoutMs: 10 * 60_000 })
}

/** The fake reducer: a running tap container and its HTTP API as seen from this host. */
export interface TapContainer {
  /** `http://host:port` of the tap's /state, /events (the mapped port may change on restart). */
  url(): string
  /** Stops the container and starts it again: same network alias, fresh tap state. */
  restart(): Promise<void>
  stop(): Promise<void>
  readonly id: string
}

/**
 * Starts `image tap` on the kind network under {@link TAP_ALIAS}, its HTTP port published, and
 * waits until /healthz answers. With `keep` the container outlives this process (no Ryuk cleanup).
 */
export async function startTapContainer(image: string, keep: boolean): Promise<TapContainer> {
  // A tap kept by an earlier run (K8S_COLLECTOR_E2E_KEEP=1) would answer to the same alias.
  const stale = (await exec('docker', ['ps', '-aq', '--filter', `label=${TAP_LABEL.key}=${TAP_LABEL.value}`])).split('\n').filter(Boolean)
  if (stale.length > 0) await exec('docker', ['rm', '-f', ...stale])
  const container: StartedTestContainer = await new GenericContainer(image)
    .withLabels({ [TAP_LABEL.key]: TAP_LABEL.value })
    .withCommand(['tap', '--listen', `0.0.0.0:${TAP_INGEST_PORT}`, '--http', `0.0.0.0:${TAP_HTTP_PORT}`, '--log-format', 'json'])
    .withNetworkMode(KIND_NETWORK)
    .withNetworkAliases(TAP_ALIAS)
    .withExposedPorts(TAP_HTTP_PORT)
    .withWaitStrategy(Wait.forHttp('/healthz', TAP_HTTP_PORT).forStatusCode(200))
    .withStartupTimeout(60_000)
    .withAutoCleanup(!keep)
    .start()
  let stopped = false
  return {
    id: container.getId(),
    url: () => `http://${container.getHost()}:${container.getMappedPort(TAP_HTTP_PORT)}`,
    // testcontainers' restart is `docker restart` (kill, start) and waits for /healthz again,
    // re-reading the published port.
    restart: () => container.restart({ timeout: 0 }),
    async stop() {
      if (stopped) return
      stopped = true
      await container.stop({ timeout: 0 })
    },
  }
}

/**
 * kind/collector.yaml (the chart's default rendering) with the image and the reducer host filled
 * in: the container's `image:` and the value of EBPF_NET_INTAKE_HOST. Throws when either is not
 * found exactly once.
 */
export function collectorManifest(root: string, image: string, reducerHost: string): string {
  const text = readFileSync(join(root, 'kind', 'collector.yaml'), 'utf8')
  const fields = [
    { name: 'image', pattern: /^(\s+image: ).*$/gm, value: image },
    { name: 'EBPF_NET_INTAKE_HOST', pattern: /^(\s+- name: EBPF_NET_INTAKE_HOST\n\s+value: ).*$/gm, value: reducerHost },
  ]
  let out = text
  for (const f of fields) {
    const n = [...out.matchAll(f.pattern)].length
    if (n !== 1) throw new Error(`kind/collector.yaml has ${n} ${f.name} fields, expected 1`)
    out = out.replace(f.pattern, (_, head: string) => head + JSON.stringify(f.value))
  }
  return out
}

/** Applies the collector manifest and waits for its Deployment to roll out. */
export async function deployCollector(kubectl: Kubectl, manifest: string): Promise<void> {
  await retry(() => kubectl(['apply', '-f', '-'], { input: manifest }), 3, 2000)
  await kubectl(['rollout', 'status', `deployment/${COLLECTOR_APP}`, '-n', COLLECTOR_NAMESPACE, '--timeout=180s'], { timeoutMs: 200_000 })
}

/** Removes what the collector manifest created (namespace, RBAC); returns without waiting. */
export async function undeployCollector(kubectl: Kubectl, manifest: string, wait: boolean): Promise<void> {
  await kubectl(['delete', '-f', '-', '--ignore-not-found', `--wait=${wait}`, '--timeout=120s'], { input: manifest, timeoutMs: 150_000 })
}

export async function deleteCluster(config: KindSuiteConfig): Promise<void> {
  await exec('kind', ['delete', 'cluster', '--name', config.clusterName, '--kubeconfig', config.kubeconfig], { timeoutMs: 180_000 })
}
