// One collector replica of the soak, run as an orchestrator runs it: the shipped form on the chosen
// runtime, restarted after a SIGKILL or a crash, its memory, CPU, metrics and log lines sampled.
import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { freePort, runArgs, RUNTIMES } from '../harness/process.ts'

/** One process of a replica, from spawn to exit. */
export interface CollectorLife {
  readonly pid: number
  readonly startedAt: number
  endedAt?: number
  exit?: { code: number | null; signal: NodeJS.Signals | null }
  /** Why it ended: killed by the soak (SIGKILL), stopped at the end (SIGTERM), or a crash. */
  ending?: 'killed' | 'stopped' | 'crashed'
  /** CPU time so far (utime + stime), ms, and resident memory, MB, at the last sample. */
  cpuMs: number
  rss: Array<{ at: number; mb: number }>
  /** The last /metrics text scraped from it. */
  metrics: string
}

export interface ReplicaOptions {
  readonly runtime: string
  readonly name: string
  readonly kubeconfig: string
  readonly intakePort: number
  readonly extraArgs?: readonly string[]
  /** Every log line of every life is appended to this file. */
  readonly logFile?: string
  /** Told about every unexpected exit (after it is recorded). */
  readonly onCrash?: (life: CollectorLife, logTail: string) => void
}

export interface Replica {
  readonly name: string
  readonly lives: readonly CollectorLife[]
  /** Log lines by level, over every life. */
  readonly logLines: Record<string, number>
  /** The log lines that report a connection torn down as silent (`peer_silent`): the reducer link's or the watches'. */
  readonly silentTeardowns: Array<{ at: number; side: 'reducer' | 'api'; msg: string }>
  readonly running: boolean
  start(): Promise<void>
  /** SIGKILL, as a node failure or an OOM kill would; resolves once the process is gone. */
  kill(): Promise<void>
  /** SIGTERM at the end of the soak; resolves with how it exited. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined>
  /** Reads RSS and CPU from /proc and scrapes /metrics (skipped quietly while it is not up). */
  sample(): Promise<void>
  /** Scrapes /metrics into the current life; resolves with the text ('' while it does not answer). */
  scrape(): Promise<string>
  readyz(): Promise<{ status: number; body: string }>
  logTail(): string
}

const CLOCK_TICKS = 100 // Linux USER_HZ

function procStats(pid: number): { cpuMs: number; rssMb: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
    return { cpuMs, rssMb: rssKb / 1024 }
  } catch {
    return undefined
  }
}

export function createReplica(opts: ReplicaOptions): Replica {
  const cmd = RUNTIMES[opts.runtime]
  if (!cmd) throw new Error(`unknown runtime ${opts.runtime} (one of ${Object.keys(RUNTIMES).join(', ')})`)
  const lives: CollectorLife[] = []
  const logLines: Record<string, number> = {}
  const silentTeardowns: Replica['silentTeardowns'] = []
  const tail: string[] = []
  let child: ChildProcess | undefined
  let httpPort = 0
  let exited: Promise<void> = Promise.resolve()

  const logFile = opts.logFile ? createWriteStream(opts.logFile, { flags: 'a' }) : undefined
  const onLine = (line: string) => {
    logFile?.write(`${line}\n`)
    tail.push(line)
    if (tail.length > 300) tail.splice(0, 100)
    let entry: { level?: string; msg?: string; time?: string; component?: string }
    try {
      entry = JSON.parse(line) as typeof entry
    } catch {
      logLines.unparsed = (logLines.unparsed ?? 0) + 1
      return
    }
    const level = entry.level ?? 'unknown'
    logLines[level] = (logLines[level] ?? 0) + 1
    if (entry.msg?.includes('peer_silent')) {
      const side = entry.component?.startsWith('link') ? 'reducer' : 'api'
      silentTeardowns.push({ at: entry.time ? Date.parse(entry.time) : Date.now(), side, msg: entry.msg })
    }
  }

  const replica: Replica = {
    name: opts.name,
    lives,
    logLines,
    silentTeardowns,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null
    },
    async start() {
      httpPort = await freePort()
      const [bin, ...prefix] = cmd
      const c = spawn(
        bin!,
        [...prefix, ...runArgs({ kubeconfig: opts.kubeconfig, intakePort: opts.intakePort, httpPort, hostname: opts.name }), ...(opts.extraArgs ?? [])],
        { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '' } },
      )
      const life: CollectorLife = { pid: c.pid!, startedAt: Date.now(), cpuMs: 0, rss: [], metrics: '' }
      lives.push(life)
      child = c
      createInterface({ input: c.stderr! }).on('line', onLine)
      exited = new Promise((resolve) =>
        c.once('exit', (code, signal) => {
          life.endedAt = Date.now()
          life.exit = { code, signal }
          life.ending ??= 'crashed'
          if (life.ending === 'crashed') opts.onCrash?.(life, replica.logTail())
          resolve()
        }),
      )
    },
    async kill() {
      const life = lives.at(-1)
      if (!replica.running || !life) return
      await replica.sample()
      life.ending = 'killed'
      child!.kill('SIGKILL')
      await exited
    },
    async stop() {
      const life = lives.at(-1)
      if (!replica.running || !life) return undefined
      await replica.sample()
      life.ending = 'stopped'
      child!.kill('SIGTERM')
      const timer = setTimeout(() => child?.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
      return life.exit
    },
    async sample() {
      const life = lives.at(-1)
      if (!life || !replica.running) return
      const s = procStats(life.pid)
      if (s) {
        life.cpuMs = s.cpuMs
        life.rss.push({ at: Date.now(), mb: s.rssMb })
      }
      await replica.scrape()
    },
    async scrape() {
      const life = lives.at(-1)
      if (!life || !replica.running) return ''
      try {
        const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`, { signal: AbortSignal.timeout(5_000) })
        if (!res.ok) return ''
        life.metrics = await res.text()
        return life.metrics
      } catch {
        return '' // not listening yet, or just killed: the previous scrape stands
      }
    },
    async readyz() {
      try {
        const res = await fetch(`http://127.0.0.1:${httpPort}/readyz`, { signal: AbortSignal.timeout(5_000) })
        return { status: res.status, body: (await res.text()).trim() }
      } catch (err) {
        return { status: 0, body: (err as Error).message }
      }
    },
    logTail: () => tail.slice(-60).join('\n'),
  }
  return replica
}
