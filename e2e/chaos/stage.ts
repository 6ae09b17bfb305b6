// The soak's stage: the API simulator with its workload, the tap behind the reducer proxy, and the
// collector replicas, each reaching the simulator through its own TCP proxy; the fault targets.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTap, type Tap } from '../../src/tap/index.ts'
import { RUNTIMES } from '../harness/process.ts'
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.ts'
import { startSimulator, type Simulator } from '../sim/index.ts'
import { pause, type FaultTargets } from './faults.ts'
import { startReducerPath, type ReducerPath } from './reducer-path.ts'
import { createReplica, type CollectorLife, type Replica } from './replica.ts'
import { createWorkload, planWorkload, type WorkloadPlan } from './workload.ts'

export interface StageOptions {
  readonly pods: number
  readonly runtime: string
  readonly replicas: number
  /** Run the replicas with `--leader-elect` (two or more replicas). */
  readonly leaderElect: boolean
  /** Told about every crash of a replica. */
  readonly onCrash: (replica: string, life: CollectorLife, logTail: string) => void
  readonly log: (line: string) => void
  /** A directory for each replica's log file (`<name>.log`). */
  readonly logDir?: string
}

export interface Stage extends FaultTargets {
  readonly plan: WorkloadPlan
  /** The tap now (a reducer restart replaces it). */
  tap(): Tap
  /** Every replica running again, after a kill or a crash. */
  ensureRunning(): Promise<void>
  close(): Promise<void>
}

export async function startStage(opts: StageOptions): Promise<Stage> {
  const cmd = RUNTIMES[opts.runtime]
  if (!cmd) throw new Error(`unknown runtime ${opts.runtime} (one of ${Object.keys(RUNTIMES).join(', ')})`)
  const artifact = cmd.find((a) => a.includes('/dist/'))
  if (artifact && !existsSync(artifact)) throw new Error(`${artifact} is missing: run \`npm run build\` first`)
  const dir = mkdtempSync(join(tmpdir(), 'kc-chaos-'))
  const plan = planWorkload(opts.pods)
  const sim: Simulator = await startSimulator({ nodes: plan.nodes, podStartDelayMs: 200, podStopDelayMs: 200, jobRunMs: 15_000 })
  const closers: Array<() => Promise<void>> = [() => sim.close()]
  try {
    const t = Date.now()
    await createWorkload(sim, plan, 120_000 + opts.pods * 30)
    opts.log(`workload: ${sim.list('pods').length} pods on ${plan.nodes} nodes in ${((Date.now() - t) / 1000).toFixed(1)} s`)

    // The soak reads only the open connections: keeping the tap's defaults (1,000 closed connections
    // and 100,000 records) held every resync of 10k pods and slowed the simulator in this process.
    const tapOptions = { maxClosedConnections: 2, maxEvents: 1_000 }
    let tap = await startTap({ listen: { host: '127.0.0.1', port: 0 }, ...tapOptions })
    const tapPort = tap.tcpPort
    closers.push(() => tap.close())
    const reducerPath: ReducerPath = await startReducerPath(tapPort)
    closers.push(() => reducerPath.close())

    const simPort = Number(new URL(sim.url).port)
    const apiPaths: TcpProxy[] = []
    const replicas: Replica[] = []
    for (let i = 0; i < opts.replicas; i++) {
      const proxy = await startTcpProxy({ target: { port: simPort } })
      closers.push(() => proxy.close())
      apiPaths.push(proxy)
      const name = `chaos-${String.fromCharCode(97 + i)}`
      const kubeconfig = join(dir, `${name}.kubeconfig`)
      writeFileSync(kubeconfig, sim.kubeconfig().replace(sim.url, `https://127.0.0.1:${proxy.port}`), { mode: 0o600 })
      const election = opts.leaderElect ? ['--leader-elect', '--lease-namespace', 'default', '--identity', name] : []
      replicas.push(createReplica({ runtime: opts.runtime, name, kubeconfig, intakePort: reducerPath.port, extraArgs: election, ...(opts.logDir ? { logFile: join(opts.logDir, `${name}.log`) } : {}), onCrash: (life, tail) => opts.onCrash(name, life, tail) }))
    }
    closers.push(async () => {
      for (const r of replicas) await r.stop()
    })
    for (const r of replicas) await r.start()

    let tapRestart: Promise<void> = Promise.resolve()
    const stage: Stage = {
      sim,
      plan,
      replicas,
      apiPaths,
      reducerPath,
      owners: new Map(),
      tap: () => tap,
      restartTap(downMs, signal) {
        tapRestart = tapRestart.then(async () => {
          await tap.close()
          await pause(downMs, signal)
          tap = await startTap({ listen: { host: '127.0.0.1', port: tapPort }, ...tapOptions })
        })
        return tapRestart
      },
      async killReplica(index, downMs, signal) {
        const r = replicas[index]!
        await r.kill()
        await pause(downMs, signal)
        if (!r.running) await r.start()
      },
      leader() {
        const open = tap.state().connections.filter((c) => c.open)
        const newest = open.at(-1)
        const i = newest ? replicas.findIndex((r) => r.name === newest.hostname) : -1
        return i >= 0 ? i : undefined
      },
      async ensureRunning() {
        await tapRestart
        for (const r of replicas) if (!r.running) await r.start()
      },
      async close() {
        for (const close of closers.reverse()) await close().catch((err: unknown) => opts.log(`closing: ${(err as Error).message}`))
        rmSync(dir, { recursive: true, force: true })
      },
    }
    return stage
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
}
