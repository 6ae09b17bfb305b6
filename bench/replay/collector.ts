// Runs the real collector (`node dist/cli.mjs run`, a separate process) against a replay server,
// with an in-process tap as its reducer: counts announcements, times the initial sync, measures
// the process via /proc and reads its /metrics.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startTap, type Tap, type TapRecord } from '../../src/tap/index.ts'
import type { ReplayCluster } from './cluster.ts'
import { cpuMs, freePort, memMB, sleep } from './proc.ts'
import { writeKubeconfig, type ReplayServer } from './server.ts'

export const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../dist/cli.mjs')

export interface CollectorRun {
  readonly pid: number
  /** Resolves when every pod and container of the cluster was announced at the tap. */
  synced(timeoutMs: number): Promise<{ wallMs: number; cpuMs: number }>
  /** Counters of the tap so far. */
  readonly counts: { podNew: number; containers: number; deletes: number; messages: number }
  /** Called for every pod message at the tap with its uid and arrival time (Date.now()). */
  onPodMessage?: (uid: string, type: string, at: number) => void
  /** The collector's /metrics as name{labels} → value. */
  metrics(): Promise<Map<string, number>>
  mem(): { rssMB: number; peakMB: number }
  cpuMs(): number
  stop(): Promise<void>
}

/** Starts the tap and the collector (the clock starts at spawn). `extraNodeArgs` e.g. `--cpu-prof`. */
export async function runCollector(cluster: ReplayCluster, server: ReplayServer, extraNodeArgs: readonly string[] = []): Promise<CollectorRun> {
  if (!existsSync(CLI)) throw new Error(`${CLI} missing: run \`npm run build\` first`)
  const dir = mkdtempSync(join(tmpdir(), 'k8s-bench-'))
  const kubeconfig = join(dir, 'kubeconfig')
  writeKubeconfig(kubeconfig, server.url)
  const counts = { podNew: 0, containers: 0, deletes: 0, messages: 0 }
  let done: (() => void) | undefined
  let doneAt = 0
  let doneCpu = 0
  let child: ChildProcess | undefined
  // eslint-disable-next-line prefer-const
  let run: CollectorRun
  const check = (): void => {
    if (done && counts.podNew >= cluster.pods && counts.containers >= cluster.containers) {
      doneAt = performance.now()
      doneCpu = cpuMs(child!.pid!)
      const d = done
      done = undefined
      d()
    }
  }
  const onRecord = (rec: TapRecord): void => {
    counts.messages++
    const t = rec.type
    if (t !== 'pod_new_with_name' && t !== 'pod_container' && t !== 'pod_delete') return
    if (t === 'pod_new_with_name') counts.podNew++
    else if (t === 'pod_container') counts.containers++
    else counts.deletes++
    run.onPodMessage?.(String(rec.fields.uid), t, Date.now())
    if (done) check()
  }
  const tap: Tap = await startTap({ listen: { host: '127.0.0.1', port: 0 }, maxEvents: 1_000, onRecord })
  const httpPort = await freePort()
  const t0 = performance.now()
  child = spawn(
    process.execPath,
    [...extraNodeArgs, CLI, 'run', '--kubeconfig', kubeconfig, '--intake-host', '127.0.0.1', '--intake-port', String(tap.tcpPort), '--http-listen', `127.0.0.1:${httpPort}`, '--hostname', 'bench', '--log-level', 'warn'],
    { stdio: ['ignore', 'inherit', 'inherit'], cwd: dir },
  )
  const pid = child.pid!
  // Never leave a collector behind when the benchmark dies.
  const reap = (): void => {
    child?.kill('SIGKILL')
  }
  process.once('exit', reap)
  const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()))

  run = {
    pid,
    counts,
    synced(timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`collector did not announce all pods in ${timeoutMs} ms (${counts.podNew}/${cluster.pods} pods, ${counts.containers}/${cluster.containers} containers)`)), timeoutMs)
        done = () => {
          clearTimeout(timer)
          resolve({ wallMs: doneAt - t0, cpuMs: doneCpu })
        }
        check()
      })
    },
    async metrics() {
      const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`)
      const out = new Map<string, number>()
      for (const line of (await res.text()).split('\n')) {
        if (!line || line.startsWith('#')) continue
        const at = line.lastIndexOf(' ')
        out.set(line.slice(0, at), Number(line.slice(at + 1)))
      }
      return out
    },
    mem: () => memMB(pid),
    cpuMs: () => cpuMs(pid),
    async stop() {
      child!.kill('SIGTERM')
      await Promise.race([exited, sleep(6_000)])
      if (child!.exitCode === null && child!.signalCode === null) child!.kill('SIGKILL')
      process.off('exit', reap)
      await tap.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return run
}
