// Helpers for the end-to-end tests: the built collector as a child process, expectations derived
// from the simulated cluster, and polling with readable failures.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ConnectionSnapshot, PodSnapshot, Tap } from '../../src/tap/index.ts'
import type { Simulator } from '../sim/index.ts'

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const denoBin = join(dirname(createRequire(import.meta.url).resolve('deno/package.json')), 'deno')

/** The three forms the collector ships in (issue 5), as command prefixes. */
export const RUNTIMES: Record<string, string[]> = {
  node: [process.execPath, join(root, 'dist', 'cli.mjs')],
  deno: [denoBin, 'run', '--allow-net', '--allow-read', '--allow-env', '--allow-sys=hostname,cpus,osRelease', join(root, 'dist', 'cli.mjs')],
  sea: [join(root, 'dist', 'k8s-collector-node')],
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolvePort(port))
    })
  })
}

/** Polls `probe` until it returns a value other than undefined; fails with `what` and the last observation. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, opts: { timeoutMs?: number; describe?: () => unknown } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000)
  for (;;) {
    const got = await probe()
    if (got !== undefined) return got
    if (Date.now() > deadline) {
      const seen = opts.describe ? `\nlast seen: ${JSON.stringify(opts.describe(), null, 1).slice(0, 4000)}` : ''
      throw new Error(`timed out waiting for ${what}${seen}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

export interface CollectorProcess {
  readonly child: ChildProcess
  readonly httpPort: number
  readonly stderr: () => string
  /** Sends SIGTERM; resolves with the exit code and how long the exit took. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>
  metrics(): Promise<string>
}

export async function startCollector(runtime: string[], opts: { kubeconfig: string; intakePort: number; hostname: string; extraArgs?: string[] }): Promise<CollectorProcess> {
  const httpPort = await freePort()
  const [cmd, ...prefix] = runtime
  const child = spawn(
    cmd!,
    [
      ...prefix,
      'run',
      '--kubeconfig', opts.kubeconfig,
      '--intake-host', '127.0.0.1',
      '--intake-port', String(opts.intakePort),
      '--http-listen', `127.0.0.1:${httpPort}`,
      '--hostname', opts.hostname,
      '--heartbeat-interval-sec', '1',
      '--log-format', 'json',
      '--log-level', 'debug',
      ...(opts.extraArgs ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '' } },
  )
  let err = ''
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString()
    if (err.length > 2_000_000) err = err.slice(-1_000_000)
  })
  child.stdout!.resume()
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })))
  return {
    child,
    httpPort,
    stderr: () => err,
    async stop() {
      const t = Date.now()
      child.kill('SIGTERM')
      const result = await Promise.race([exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit 10 s after SIGTERM\n${err.slice(-3000)}`)), 10_000))])
      return { ...result, ms: Date.now() - t }
    },
    async metrics() {
      const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`)
      return res.text()
    },
  }
}

/** A metric's value from Prometheus text (first series matching the label filter), or undefined. */
export function metric(text: string, name: string, labels = ''): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue
    const rest = line.slice(name.length)
    if (labels ? rest.startsWith(`{`) && rest.includes(labels) : rest.startsWith(' ')) return Number(rest.slice(rest.lastIndexOf(' ') + 1))
  }
  return undefined
}

/** What the reducer should hold for the simulated cluster right now (behaviour.md §3). */
export interface ExpectedPod {
  uid: string
  ns: string
  podName: string
  ip: string
  ownerKind: number
  ownerUid: string
  ownerName: string
  isHostNetwork: boolean
  version: string
  containers: string[]
}

type K8sObject = { metadata: { uid: string; name: string; namespace?: string; deletionTimestamp?: string; ownerReferences?: Array<{ kind: string; uid: string; name: string; controller?: boolean }> }; spec?: { hostNetwork?: boolean }; status?: { podIP?: string; containerStatuses?: Array<{ image: string; containerID?: string }> } }

const KIND_CODE: Record<string, number> = { ReplicaSet: 0, Deployment: 1, Job: 2, CronJob: 3 }
const controllerOf = (o: K8sObject) => o.metadata.ownerReferences?.find((r) => r.controller)

export function expectedPods(sim: Simulator): ExpectedPod[] {
  const out: ExpectedPod[] = []
  for (const p of sim.list('pods') as K8sObject[]) {
    if (!p.status?.podIP || p.metadata.deletionTimestamp) continue
    let owner = { kind: 254, uid: '', name: p.metadata.name }
    const c = controllerOf(p)
    if (c) {
      owner = { kind: KIND_CODE[c.kind] ?? 255, uid: c.uid, name: c.name }
      if (c.kind === 'ReplicaSet' || c.kind === 'Job') {
        const o = (sim.list(c.kind === 'ReplicaSet' ? 'replicasets' : 'jobs') as K8sObject[]).find((x) => x.metadata.uid === c.uid)
        const up = o && controllerOf(o)
        if (up && ((c.kind === 'ReplicaSet' && up.kind === 'Deployment') || (c.kind === 'Job' && up.kind === 'CronJob'))) {
          owner = { kind: KIND_CODE[up.kind]!, uid: up.uid, name: up.name }
        }
      }
    }
    const statuses = p.status.containerStatuses ?? []
    const images = statuses.map((s) => s.image).filter(Boolean).sort()
    out.push({
      uid: p.metadata.uid,
      ns: p.metadata.namespace ?? '',
      podName: p.metadata.name,
      ip: /^\d+\.\d+\.\d+\.\d+$/.test(p.status.podIP) ? p.status.podIP : '0.0.0.0',
      ownerKind: owner.kind,
      ownerUid: owner.uid,
      ownerName: owner.name,
      isHostNetwork: p.spec?.hostNetwork === true,
      version: images.map((i) => `'${i}'`).join(','),
      containers: statuses.filter((s) => s.containerID).map((s) => s.containerID!.replace(/^[a-z]+:\/\//, '')).sort(),
    })
  }
  return out.sort((a, b) => a.uid.localeCompare(b.uid))
}

/** The tap's view of one connection in the same shape. */
export function heldPods(conn: ConnectionSnapshot | undefined): ExpectedPod[] {
  return (conn?.pods ?? [])
    .map((p: PodSnapshot) => ({
      uid: p.uid,
      ns: p.ns,
      podName: p.podName,
      ip: p.ip,
      ownerKind: p.ownerKind,
      ownerUid: p.ownerUid,
      ownerName: p.ownerName,
      isHostNetwork: p.isHostNetwork,
      version: p.version,
      containers: p.containers.map((c) => c.id.replace(/^[a-z]+:\/\//, '')).sort(),
    }))
    .sort((a, b) => a.uid.localeCompare(b.uid))
}

/** The newest open connection of the tap from the collector called `hostname`. */
export function openConnection(tap: Tap, hostname: string): ConnectionSnapshot | undefined {
  return [...tap.state().connections].reverse().find((c) => c.open && c.hostname === hostname)
}

/** Waits until the tap holds exactly what the cluster implies; returns that connection. */
export async function converged(tap: Tap, sim: Simulator, hostname: string, timeoutMs = 20_000): Promise<ConnectionSnapshot> {
  let last: unknown
  return waitFor(
    `the tap to hold exactly the cluster's pods (${hostname})`,
    () => {
      const conn = openConnection(tap, hostname)
      const want = expectedPods(sim)
      const got = heldPods(conn)
      last = { want, got }
      return want.length > 0 && JSON.stringify(want) === JSON.stringify(got) ? conn : undefined
    },
    { timeoutMs, describe: () => last },
  )
}
