// The high-availability fixture: the API simulator, the tap, and collector replicas with
// --leader-elect as real processes (the built bundle with its V8 flags), each reaching the
// simulator through its own TCP proxy port and kubeconfig, so one of them can be cut off.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ConnectionSnapshot } from '../../src/tap/index.ts'
import { startTap, type Tap } from '../../src/tap/index.ts'
import { converged, expectedPods, type ClusterObjects } from '../harness/expect.ts'
import { metric, RUNTIMES, startCollector, type CollectorProcess } from '../harness/process.ts'
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.ts'
import { waitFor } from '../harness/wait.ts'
import { startSimulator, type Simulator } from '../sim/index.ts'

/** Leader-election timing of a replica, in seconds (the CLI's flags). */
export interface Timing {
  readonly duration: number
  readonly renewDeadline: number
  readonly retry: number
}

/** One collector process: its name is its `--hostname` (how the tap tells connections apart) and its identity. */
export interface Replica {
  readonly name: string
  /** Its own path to the API server. */
  readonly proxy: TcpProxy
  readonly process: CollectorProcess
  /** `/readyz`: status and body (status 0 while the process does not listen). */
  readyz(): Promise<{ status: number; body: string }>
  /** A metric of its /metrics (first series matching the label filter). */
  metric(name: string, labels?: string): Promise<number | undefined>
  readonly stderr: () => string
}

export interface HaCluster {
  readonly sim: Simulator
  /** The simulator's own kubeconfig file (for kubectl). */
  readonly kubeconfig: string
  readonly tap: Tap
  readonly replicas: Replica[]
  /** Starts a replica named `name` with these timings (and extra flags); resolves once it serves /readyz. */
  start(name: string, timing: Timing, extraArgs?: string[]): Promise<Replica>
  /** Waits until the tap holds exactly the cluster's pods on `name`'s open connection; returns it. */
  converged(name: string, timeoutMs?: number): Promise<ConnectionSnapshot>
  /** Every connection the tap saw from these replicas, oldest first. */
  connections(names?: readonly string[]): ConnectionSnapshot[]
  /** The replica whose connection is open at the tap (waits for one). */
  leader(timeoutMs?: number): Promise<Replica>
  /** The last lines of every replica's log, for failure messages. */
  logs(): string
  close(): Promise<void>
}

const LEASE_NAMESPACE = 'default'
export const LEASE_NAME = 'k8s-collector'

/** Starts the simulator (with the given workload), the tap, and no replicas yet. */
export async function startHaCluster(workload: (sim: Simulator) => void): Promise<HaCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kc-ha-'))
  const sim = await startSimulator({ nodes: 2, jobRunMs: 600_000 })
  workload(sim)
  const cluster = (): ClusterObjects => ({ pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') })
  await waitFor('the workload to run', () => (expectedPods(cluster()).length >= 10 ? true : undefined), { describe: () => expectedPods(cluster()).length })
  const tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
  const replicas: Replica[] = []
  const simPort = Number(new URL(sim.url).port)
  const kubeconfig = join(dir, 'sim.kubeconfig')
  writeFileSync(kubeconfig, sim.kubeconfig())

  const ha: HaCluster = {
    sim,
    kubeconfig,
    tap,
    replicas,
    async start(name, timing, extraArgs = []) {
      const proxy = await startTcpProxy({ target: { port: simPort } })
      const kubeconfig = join(dir, `${name}.kubeconfig`)
      writeFileSync(kubeconfig, sim.kubeconfig().replace(sim.url, `https://127.0.0.1:${proxy.port}`))
      // A stand-in pod for the replica, so that it reports its Kubernetes Events about it (docs/events.md).
      const self = sim.create('pods', { metadata: { name, namespace: LEASE_NAMESPACE }, spec: { containers: [{ name: 'collector', image: 'k8s-collector' }] } })
      const process = await startCollector(RUNTIMES.node!, {
        kubeconfig,
        intakePort: tap.tcpPort,
        hostname: name,
        env: { POD_NAME: name, POD_NAMESPACE: LEASE_NAMESPACE, POD_UID: self.metadata.uid },
        extraArgs: [
          '--leader-elect',
          '--lease-namespace', LEASE_NAMESPACE,
          '--lease-name', LEASE_NAME,
          '--identity', name,
          '--lease-duration-secs', String(timing.duration),
          '--lease-renew-deadline-secs', String(timing.renewDeadline),
          '--lease-retry-period-secs', String(timing.retry),
          ...extraArgs,
        ],
      })
      const url = `http://127.0.0.1:${process.httpPort}`
      const r: Replica = {
        name,
        proxy,
        process,
        async readyz() {
          try {
            const res = await fetch(`${url}/readyz`)
            return { status: res.status, body: await res.text() }
          } catch (err) {
            return { status: 0, body: `unreachable: ${(err as Error).message}` } // not listening yet
          }
        },
        metric: async (m, labels) => metric(await process.metrics(), m, labels),
        stderr: process.stderr,
      }
      replicas.push(r)
      await waitFor(`${name} to listen`, async () => ((await r.readyz()).status !== 0 ? true : undefined), { describe: () => process.stderr().slice(-1500) })
      return r
    },
    converged: (name, timeoutMs = 30_000) => converged(async () => ({ cluster: cluster(), tap: tap.state() }), name, timeoutMs),
    connections: (names = replicas.map((r) => r.name)) => tap.state().connections.filter((c) => names.includes(c.hostname ?? '')),
    async leader(timeoutMs = 20_000) {
      const open = await waitFor('a replica connected to the tap', () => ha.connections().find((c) => c.open), { timeoutMs, describe: () => ha.logs() })
      return replicas.find((r) => r.name === open.hostname)!
    },
    logs: () => replicas.map((r) => `--- ${r.name}\n${r.stderr().slice(-2500)}`).join('\n'),
    async close() {
      for (const r of replicas) if (r.process.child.exitCode === null && r.process.child.signalCode === null) r.process.child.kill('SIGKILL')
      for (const r of replicas) await r.proxy.close()
      await tap.close()
      await sim.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return ha
}

/** A replica's lease as the simulator holds it. */
export function leaseHolder(sim: Simulator): string | undefined {
  return sim.get('leases', LEASE_NAMESPACE, LEASE_NAME)?.spec?.holderIdentity
}

/** Milliseconds since the epoch of a tap timestamp. */
export const at = (iso: string | undefined): number => (iso === undefined ? Number.NaN : Date.parse(iso))
