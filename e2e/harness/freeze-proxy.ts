// The freezing proxy (freeze-proxy.py) as a child process: a collector's reducer path that can die
// hard (freeze), be reset (cut) or stall for a while, its receive window closed within ~2 KB.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { root } from './process.ts'
import { waitFor } from './wait.ts'

export interface FreezeProxy {
  readonly port: number
  /** Freezes every connection open now, for good (nothing read or answered); new ones are served. Resolves with how many. */
  freeze(): Promise<number>
  /** Resets every frozen connection (the client gets an RST). Resolves with how many. */
  cut(): Promise<number>
  /** Stops reading from every client, open or new, until {@link resume}. Resolves with the connections open. */
  stall(): Promise<number>
  resume(): Promise<number>
  close(): Promise<void>
}

/** Starts freeze-proxy.py in front of 127.0.0.1:`upstreamPort`. */
export async function startFreezeProxy(upstreamPort: number): Promise<FreezeProxy> {
  const child = spawn('python3', [join(root, 'e2e', 'harness', 'freeze-proxy.py'), String(upstreamPort)], { stdio: ['pipe', 'pipe', 'pipe'] })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const seen: string[] = []
  let err = ''
  child.stderr!.on('data', (d: Buffer) => void (err += d.toString()))
  createInterface({ input: child.stdout! }).on('line', (l) => seen.push(l))
  let from = 0
  const next = (word: string) =>
    waitFor(`the freeze proxy to answer ${word}`, () => {
      for (; from < seen.length; from++) if (seen[from]!.startsWith(`${word} `)) return Number(seen[from++]!.split(' ')[1])
      if (child.exitCode !== null) throw new Error(`freeze-proxy.py exited ${child.exitCode}: ${err}`)
      return undefined
    }, { timeoutMs: 10_000, intervalMs: 20, describe: () => ({ seen, err }) })
  const command = (line: string, answer: string) => {
    child.stdin!.write(`${line}\n`)
    return next(answer)
  }
  const port = await next('listening')
  return {
    port,
    freeze: () => command('freeze', 'frozen'),
    cut: () => command('cut', 'cut'),
    stall: () => command('stall', 'stalled'),
    resume: () => command('resume', 'resumed'),
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}
