// The process's memory against its container's limit: the cgroup memory limit read at start-up,
// logged and exported beside the RSS, and a warning while the RSS is above 85 % of it (README
// "Memory sizing" says what to set).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'
import { sleep, systemClock, type Clock } from '../util/clock.ts'
import { logger } from './log.ts'
import type { Registry } from './metrics.ts'

/** The memory limit of the process's cgroup. */
export interface CgroupMemoryLimit {
  /** The limit in bytes; undefined when there is none (unlimited, or no memory controller found). */
  readonly bytes: number | undefined
  /** The file the limit was read from, or why there is none. */
  readonly source: string
}

/** What {@link startMemoryWatch} reads and logs with; each defaults to the process's own. */
export interface MemoryWatchDeps {
  readonly clock?: Clock
  /** Resident set size now, bytes. */
  readonly rss?: () => number
  readonly log?: { info(message: string): void; warn(message: string): void }
  /** Where /proc and /sys are found (tests point it at a folder of their own). */
  readonly root?: string
}

/** The share of the limit above which the RSS is warned about. */
export const WARN_RATIO = 0.85
/** The share it must fall below before the next warning (no warning per check while it hovers). */
const CLEAR_RATIO = 0.8
const CHECK_MS = 5_000
/** cgroup v1 reports "no limit" as the largest page-aligned 63-bit number. */
const V1_UNLIMITED = 2 ** 62

/**
 * Reads the cgroup memory limit (v2 `memory.max`, else v1 `memory.limit_in_bytes`) of the process's
 * own cgroup and of its ancestors, the smallest one found. Never throws: unreadable files mean no limit.
 */
export function readCgroupMemoryLimit(root = '/'): CgroupMemoryLimit {
  let cgroups: string
  try {
    cgroups = readFileSync(join(root, 'proc/self/cgroup'), 'utf8')
  } catch (err) {
    return { bytes: undefined, source: `no /proc/self/cgroup (${(err as Error).message})` }
  }
  for (const line of cgroups.split('\n')) {
    const [id, controllers, path] = line.split(':', 3)
    if (path === undefined) continue
    const found =
      id === '0' && controllers === ''
        ? smallest(root, 'sys/fs/cgroup', path, 'memory.max')
        : controllers!.split(',').includes('memory')
          ? smallest(root, 'sys/fs/cgroup/memory', path, 'memory.limit_in_bytes')
          : undefined
    if (found) return found
  }
  return { bytes: undefined, source: 'no cgroup memory controller' }
}

/** The smallest limit in `file` of the cgroup at `path` and its ancestors; undefined when no such file exists. */
function smallest(root: string, mount: string, path: string, file: string): CgroupMemoryLimit | undefined {
  let best: CgroupMemoryLimit | undefined
  // Inside a container the cgroup's path may not exist under the mount (a cgroup namespace shows
  // it as /); walking up ends at the mount's root either way.
  for (let dir = path; ; dir = dir.slice(0, dir.lastIndexOf('/')) || '/') {
    const at = join(root, mount, dir, file)
    let text: string | undefined
    try {
      text = readFileSync(at, 'utf8').trim()
    } catch {
      text = undefined // this level has no such file; its ancestors may
    }
    if (text !== undefined) {
      const bytes = text === 'max' || Number(text) >= V1_UNLIMITED ? undefined : Number(text)
      if (best === undefined || (bytes !== undefined && (best.bytes === undefined || bytes < best.bytes))) best = { bytes, source: join('/', mount, dir, file) }
    }
    if (dir === '/' || dir === '') break
  }
  return best
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`

/**
 * Reads the cgroup memory limit once, logs it, registers `k8s_collector_memory_limit_bytes` (the
 * limit; +Inf without one) beside `process_resident_memory_bytes`, and until `signal` aborts checks
 * the RSS every 5 s: a warning when it passes 85 % of the limit, again only after it fell below 80 %.
 */
export function startMemoryWatch(registry: Registry, signal: AbortSignal, deps: MemoryWatchDeps = {}): CgroupMemoryLimit {
  const clock = deps.clock ?? systemClock
  const rss = deps.rss ?? (() => process.memoryUsage.rss())
  const log = deps.log ?? logger.withTag('memory')
  const limit = readCgroupMemoryLimit(deps.root)
  registry.gauge({
    name: 'k8s_collector_memory_limit_bytes',
    help: 'Memory limit of the collector\'s cgroup (the container limit), bytes; +Inf without one.',
    collect: () => limit.bytes ?? Infinity,
  })
  if (limit.bytes === undefined) {
    log.info(`no memory limit (${limit.source}); RSS ${mib(rss())}`)
    return limit
  }
  const bytes = limit.bytes
  log.info(`memory limit ${mib(bytes)} (${limit.source}); RSS ${mib(rss())}, warning above ${Math.round(WARN_RATIO * 100)} %`)
  void (async () => {
    let warned = false
    while (!signal.aborted) {
      const now = rss()
      if (!warned && now > bytes * WARN_RATIO) {
        warned = true
        log.warn(
          `RSS ${mib(now)} is ${Math.round((now / bytes) * 100)} % of the memory limit ${mib(bytes)}: ` +
            'past the limit the container is killed and every stream relists; raise the limit (README "Memory sizing")',
        )
      } else if (warned && now < bytes * CLEAR_RATIO) {
        warned = false
        log.info(`RSS ${mib(now)} is back below ${Math.round(CLEAR_RATIO * 100)} % of the memory limit ${mib(bytes)}`)
      }
      await sleep(clock, CHECK_MS, signal)
    }
  })()
  return limit
}
