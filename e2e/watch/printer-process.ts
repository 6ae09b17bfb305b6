// Test-side handle of watch-printer.ts run as a child process (Node via tsx, or Deno): collects its
// JSON lines and waits on them.
import { spawn, type ChildProcess } from 'node:child_process'
import { ByteLineFramer } from '../../src/kube/lines.ts'
import { denoBin, root } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'

/** One line the printer wrote (`t` says which kind; `at` is the child's Date.now()). */
export type Line = { readonly t: string; readonly at: number; readonly s?: string; readonly [key: string]: any }

/** How each runtime runs the printer. */
export const PRINTER_RUNTIMES: Record<string, string[]> = {
  node: [process.execPath, '--import', 'tsx', 'e2e/watch/watch-printer.ts'],
  deno: [denoBin, 'run', '--allow-all', 'e2e/watch/watch-printer.ts'],
}

export const STREAMS = ['pods', 'replicasets', 'jobs'] as const

export class Printer {
  readonly lines: Line[] = []
  readonly child: ChildProcess
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  #stderr = ''
  readonly #stdout = new ByteLineFramer()

  constructor(runtime: string, args: string[]) {
    const [cmd, ...prefix] = PRINTER_RUNTIMES[runtime]!
    this.child = spawn(cmd!, [...prefix, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '' } })
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.#stdout.push(chunk)
      while (this.#stdout.next()) {
        const p = this.#stdout.text()
        if (!p.trim()) continue
        try {
          this.lines.push(JSON.parse(p) as Line)
        } catch {
          this.lines.push({ t: 'junk', at: Date.now(), text: p })
        }
      }
    })
    this.child.stderr!.setEncoding('utf8')
    this.child.stderr!.on('data', (d: string) => {
      this.#stderr = (this.#stderr + d).slice(-20_000)
    })
    this.exited = new Promise((r) => this.child.once('exit', (code, signal) => r({ code, signal })))
  }

  /** A position in the output, to look only at what came after it. */
  mark(): number {
    return this.lines.length
  }

  since(mark: number, t?: string, s?: string): Line[] {
    return this.lines.slice(mark).filter((l) => (t === undefined || l.t === t) && (s === undefined || l.s === s))
  }

  /** Events of stream `s` since `mark`. */
  events(s: string, mark = 0): Line[] {
    return this.since(mark, 'ev', s)
  }

  /** The latest stats line of stream `s` (after `mark`). */
  stats(s: string, mark = 0): Line | undefined {
    for (let i = this.lines.length - 1; i >= mark; i--) {
      const l = this.lines[i]!
      if (l.t === 'stats' && l.s === s) return l
    }
    return undefined
  }

  /** Waits for `probe` over the lines; fails with the child's recent output. */
  until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
    return waitFor(what, async () => {
      if (this.child.exitCode !== null) throw new Error(`printer exited (${this.child.exitCode}) while waiting for ${what}\n${this.tail()}`)
      const got = await probe()
      return got === false ? undefined : got
    }, { timeoutMs, describe: () => this.tail() })
  }

  /** A fresh stats line of every stream: written after `mark`. */
  async freshStats(): Promise<Record<string, Line>> {
    const m = this.mark()
    return this.until('fresh stats', () => {
      const out: Record<string, Line> = {}
      for (const s of STREAMS) {
        const st = this.stats(s, m)
        if (!st) return undefined
        out[s] = st
      }
      return out
    }, 5_000)
  }

  /** The last requests, logs and events, the latest stats and stderr, for failure messages. */
  tail(): string {
    const show = (l: Line) => JSON.stringify(l).slice(0, 400)
    const recent = [
      ...this.lines.filter((l) => l.t !== 'stats' && l.t !== 'body' && l.t !== 'ev').slice(-25).map(show),
      '…last events:',
      ...this.lines.filter((l) => l.t === 'ev').slice(-10).map(show),
    ]
    const stats = STREAMS.map((s) => JSON.stringify(this.stats(s) ?? null))
    return [...recent, ...stats, `stderr: ${this.#stderr.slice(-2000)}`].join('\n')
  }

  /** SIGTERM; resolves with the exit status (SIGKILL after 10 s). */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited
    this.child.kill('SIGTERM')
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000)
    const r = await this.exited
    clearTimeout(timer)
    return r
  }
}

/** Sum of a stats line's relists by cause. */
export const relistTotal = (st: Line | undefined): number => Object.values((st?.relists ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0)

/** `resourceVersion=N` of a request path, as a number (NaN when absent). */
export const rvOfPath = (path: string): number => Number(new URLSearchParams(path.slice(path.indexOf('?') + 1)).get('resourceVersion') ?? Number.NaN)
