// Process measurements from /proc (Linux): CPU time and RSS of another process, free ports,
// and small statistics helpers shared by the replay sections.
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'

const TICK_MS = 10 // USER_HZ is 100 on Linux

/** user + system CPU time of `pid`, ms (children not included). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields after the command: state(3) ppid(4) … utime(14) stime(15) → indexes 11, 12 here
  return (Number(f[11]) + Number(f[12])) * TICK_MS
}

/** Resident set size now and its peak (VmHWM), MB. */
export function memMB(pid: number): { rssMB: number; peakMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rssMB: Math.round(kb('VmRSS') / 102.4) / 10, peakMB: Math.round(kb('VmHWM') / 102.4) / 10 }
}

/** The pids of process group `pgid` (a contender's shell and what it started). */
export function groupPids(pgid: number): number[] {
  const out: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      // fields after the command: state ppid pgrp …
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) out.push(Number(d))
    } catch {
      // the process ended while /proc was read
    }
  }
  return out
}

/** {@link cpuMs} summed over process group `pgid`: a process that exited is no longer counted. */
export function groupCpuMs(pgid: number): number {
  return groupPids(pgid).reduce((n, pid) => n + cpuMs(pid), 0)
}

/** {@link memMB} summed over process group `pgid` (peaks summed: exact for one process, an upper bound for more). */
export function groupMemMB(pgid: number): { rssMB: number; peakMB: number } {
  let rss = 0
  let peak = 0
  for (const pid of groupPids(pgid)) {
    const m = memMB(pid)
    rss += m.rssMB
    peak += m.peakMB
  }
  return { rssMB: Math.round(rss * 10) / 10, peakMB: Math.round(peak * 10) / 10 }
}

/** A TCP port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!
}

export const round = (v: number, digits = 1): number => Math.round(v * 10 ** digits) / 10 ** digits

/** `1.5k`-style label of a pod count, for figure names: 10000 → `10k`. */
export const sizeLabel = (n: number): string => (n % 1000 === 0 ? `${n / 1000}k` : String(n))
