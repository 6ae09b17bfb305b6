// The soak's path to the reducer: reducer-proxy.py in front of the tap, driven by one command at
// a time (stall, slow reader, refuse, close right after the handshake, freeze).
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'reducer-proxy.py')

/** What the proxy does to new and open connections (reducer-proxy.py explains each). */
export type ReducerPathMode = 'pass' | 'stall' | 'refuse' | 'close-early' | 'freeze' | { slow: number }

export interface ReducerPath {
  /** Where the collector connects. */
  readonly port: number
  /** Puts `mode` in force; resolves with the number of connections it touched. */
  set(mode: ReducerPathMode): Promise<number>
  close(): Promise<void>
}

/** Starts the proxy in front of the tap's port `upstreamPort`. */
export async function startReducerPath(upstreamPort: number): Promise<ReducerPath> {
  const child = spawn('python3', [SCRIPT, String(upstreamPort)], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const waiting: Array<(line: string) => void> = []
  const early: string[] = []
  createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiting.shift()
    if (w) w(line)
    else early.push(line)
  })
  const nextLine = (what: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const queued = early.shift()
      if (queued !== undefined) return resolve(queued)
      const timer = setTimeout(() => reject(new Error(`reducer proxy: no answer to ${what}; stderr: ${stderr}`)), 10_000)
      waiting.push((line) => {
        clearTimeout(timer)
        resolve(line)
      })
      void exited.then(() => reject(new Error(`reducer proxy exited (${child.exitCode}); stderr: ${stderr}`)))
    })
  const first = await nextLine('start-up')
  const port = Number(/^listening (\d+)$/.exec(first)?.[1])
  if (!port) throw new Error(`reducer proxy: unexpected first line ${first}; stderr: ${stderr}`)

  let queue = Promise.resolve(0)
  return {
    port,
    set(mode) {
      const text = typeof mode === 'string' ? mode : `slow ${Math.max(1, Math.round(mode.slow))}`
      // One command in flight at a time: the answers come back in order.
      queue = queue.catch(() => 0).then(async () => {
        child.stdin.write(`${text}\n`)
        const answer = await nextLine(text)
        const m = /^ok \S+ (\d+)$/.exec(answer)
        if (!m) throw new Error(`reducer proxy: ${text} → ${answer}`)
        return Number(m[1])
      })
      return queue
    },
    async close() {
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
      await exited
      clearTimeout(timer)
    },
  }
}
