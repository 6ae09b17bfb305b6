// The tap (`node dist/cli.mjs tap`) as a local process playing the reducer: its ingest port and
// HTTP API on loopback, restartable at the same address.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { freePort, root } from './process.ts'
import { waitFor } from './wait.ts'

export interface TapProcess {
  /** The reducer address the collector is given. */
  readonly ingestPort: number
  /** `http://127.0.0.1:<port>`: /healthz, /state, /events. */
  url(): string
  /** Stops the tap and starts a fresh one on the same ports. */
  restart(): Promise<void>
  stop(): Promise<void>
}

interface Running {
  child: ChildProcess
  exited: Promise<void>
}

async function spawnTap(tcpPort: number, httpPort: number): Promise<Running> {
  const child = spawn(process.execPath, [join(root, 'dist', 'cli.mjs'), 'tap', '--listen', `127.0.0.1:${tcpPort}`, '--http', `127.0.0.1:${httpPort}`, '--log-level', 'warn'], {
    stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' },
  })
  let err = ''
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitFor('the tap to serve', async () => {
    if (child.exitCode !== null) throw new Error(`the tap exited with ${child.exitCode}: ${err}`)
    try {
      return (await fetch(`http://127.0.0.1:${httpPort}/healthz`)).ok ? true : undefined
    } catch {
      return undefined
    }
  }, { timeoutMs: 15_000 })
  return { child, exited }
}

/** Starts the tap on free loopback ports. */
export async function startTapProcess(): Promise<TapProcess> {
  const ingestPort = await freePort()
  const httpPort = await freePort()
  let running = await spawnTap(ingestPort, httpPort)
  const stop = async () => {
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGTERM')
    await running.exited
  }
  return {
    ingestPort,
    url: () => `http://127.0.0.1:${httpPort}`,
    async restart() {
      await stop()
      running = await spawnTap(ingestPort, httpPort)
    },
    stop,
  }
}
