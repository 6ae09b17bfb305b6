// The control plane's child processes: each started under its upstream name with its output in a
// log file, stopped with SIGTERM (SIGKILL after a grace period), and killed if this process exits
// first, so no component outlives the test or the CLI that started it.
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** One running component. */
export interface Component {
  readonly name: string
  readonly child: ChildProcess
  readonly logFile: string
  /** Resolves when the process has exited (with its code or signal). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** The tail of its log, for failure messages. */
  logTail(bytes?: number): string
  /** SIGTERM, then SIGKILL after `graceMs` (default 10 s); resolves once it has exited. */
  stop(graceMs?: number): Promise<void>
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>
}

/** Starts components and remembers the running ones; {@link Supervisor.stopAll} stops them, newest first. */
export class Supervisor {
  private readonly alive = new Set<ChildProcess>()
  private readonly started: Component[] = []
  // A test runner or CLI that exits without stopping the control plane still takes it down.
  private readonly onExit = () => {
    for (const c of this.alive) c.kill('SIGKILL')
  }

  constructor(private readonly logDir: string) {
    process.on('exit', this.onExit)
  }

  /** Starts `binary args…` as `name`, appending stdout and stderr to `<logDir>/<name>.log`. */
  start(name: string, binary: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Component {
    const c = startComponent(name, binary, args, this.logDir, env, this.alive)
    this.started.push(c)
    return c
  }

  /** Stops every component started (newest first, each with SIGTERM then SIGKILL after `graceMs`). */
  async stopAll(graceMs = 10_000): Promise<void> {
    for (const c of [...this.started].reverse()) await c.stop(graceMs)
    process.off('exit', this.onExit)
  }

  /** The pids of the components still running. */
  pids(): number[] {
    return [...this.alive].map((c) => c.pid!).filter((p) => p !== undefined)
  }
}

function startComponent(name: string, binary: string, args: readonly string[], logDir: string, env: NodeJS.ProcessEnv, alive: Set<ChildProcess>): Component {
  const logFile = join(logDir, `${name}.log`)
  const fd = openSync(logFile, 'a')
  const child = spawn(binary, args, { stdio: ['ignore', fd, fd], env })
  closeSync(fd)
  alive.add(child)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      alive.delete(child)
      resolve({ code, signal })
    })
    child.once('error', () => {
      alive.delete(child)
      resolve({ code: null, signal: null })
    })
  })
  const running = () => child.exitCode === null && child.signalCode === null
  const logTail = (bytes = 3000) => {
    try {
      const text = readFileSync(logFile, 'utf8')
      return text.slice(-bytes)
    } catch {
      return ''
    }
  }
  return {
    name,
    child,
    logFile,
    exited,
    logTail,
    async stop(graceMs = 10_000) {
      if (!running()) return void (await exited)
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    },
    async kill() {
      if (running()) child.kill('SIGKILL')
      await exited
    },
  }
}
