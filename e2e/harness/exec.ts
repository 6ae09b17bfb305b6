// Runs command-line tools (kubectl, docker, kind …) as child processes with deadlines and readable failures.
import { spawn } from 'node:child_process'

export interface ExecOptions {
  /** Written to the child's stdin, then stdin is closed. */
  readonly input?: string
  /** Kills the child (SIGKILL) after this long, ms. Default 60 s. */
  readonly timeoutMs?: number
  readonly env?: NodeJS.ProcessEnv
  readonly cwd?: string
  /** Also copy the child's stdout and stderr to our stderr as they come (long builds). */
  readonly echo?: boolean
}

/** A tool exited non-zero, was killed at its deadline, or could not start. */
export class CommandError extends Error {
  override name = 'CommandError'
  constructor(
    readonly command: string,
    readonly code: number | null,
    readonly stderr: string,
    options?: { cause?: unknown },
  ) {
    const tail = stderr.trim().split('\n').slice(-8).join('\n')
    super(`${command} ${code === null ? 'did not finish' : `exited ${code}`}${tail ? `:\n${tail}` : ''}`, options)
  }
}

const KEEP_BYTES = 256 * 1024

/** Runs `cmd args…`; resolves with its stdout, rejects with a {@link CommandError}. */
export function exec(cmd: string, args: readonly string[], opts: ExecOptions = {}): Promise<string> {
  const shown = [cmd, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    let err = ''
    let killed = false
    const timer = setTimeout(() => {
      killed = true
      child.kill('SIGKILL')
    }, opts.timeoutMs ?? 60_000)
    child.stdout.on('data', (d: Buffer) => {
      out.push(d)
      if (opts.echo) process.stderr.write(d)
    })
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      if (err.length > KEEP_BYTES) err = err.slice(-KEEP_BYTES / 2)
      if (opts.echo) process.stderr.write(d)
    })
    child.once('error', (cause) => {
      clearTimeout(timer)
      reject(new CommandError(shown, null, String(cause), { cause }))
    })
    child.once('close', (code) => {
      clearTimeout(timer)
      if (code === 0 && !killed) resolve(Buffer.concat(out).toString('utf8'))
      else reject(new CommandError(shown, killed ? null : code, killed ? `${err}\n(killed after ${opts.timeoutMs ?? 60_000} ms)` : err))
    })
    // A child that exits before reading its stdin makes the write fail with EPIPE; 'close' reports it.
    child.stdin.on('error', () => {})
    child.stdin.end(opts.input ?? '')
  })
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Retries `fn` while it throws, `attempts` times in all, `delayMs` apart; rethrows the last error. */
export async function retry<T>(fn: () => Promise<T>, attempts = 5, delayMs = 1000): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn()
    } catch (err) {
      if (i >= attempts) throw err
      await sleep(delayMs)
    }
  }
}
