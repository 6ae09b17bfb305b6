// Process gauges (memory, CPU, start time) read at scrape time, in the usual Prometheus names, and
// the build-info gauge (version and runtime).
import process from 'node:process'
import type { Registry } from './metrics.ts'

/**
 * Registers `process_resident_memory_bytes`, `process_cpu_seconds_total` (user + system),
 * `process_start_time_seconds`, `nodejs_heap_size_used_bytes`, `nodejs_heap_size_total_bytes` and
 * `nodejs_external_memory_bytes` on `registry`; all are read when the registry renders (a scrape
 * every few seconds at most, so one `memoryUsage()` per gauge costs nothing worth caching).
 * Works on Node and Deno (both implement `process.memoryUsage` and `process.cpuUsage`).
 */
export function registerProcessMetrics(registry: Registry): void {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime())
  registry.gauge({ name: 'process_resident_memory_bytes', help: 'Resident set size in bytes.', collect: () => process.memoryUsage().rss })
  registry.gauge({ name: 'nodejs_heap_size_used_bytes', help: 'JavaScript heap in use, bytes.', collect: () => process.memoryUsage().heapUsed })
  registry.gauge({ name: 'nodejs_heap_size_total_bytes', help: 'JavaScript heap allocated, bytes.', collect: () => process.memoryUsage().heapTotal })
  registry.gauge({
    name: 'nodejs_external_memory_bytes',
    help: 'Memory of C++ objects bound to JavaScript objects (buffers included), bytes.',
    collect: () => process.memoryUsage().external,
  })
  registry.counter({
    name: 'process_cpu_seconds_total',
    help: 'User and system CPU time spent, seconds.',
    collect: () => {
      const cpu = process.cpuUsage()
      return (cpu.user + cpu.system) / 1e6
    },
  })
  registry.gauge({ name: 'process_start_time_seconds', help: 'Start time of the process since the Unix epoch, seconds.', collect: () => startSeconds })
}

/** The JavaScript runtime this process runs on, with its version (`20.19.2`, `2.5.6`: no leading v). */
export function runtimeInfo(): { readonly name: 'node' | 'deno'; readonly version: string } {
  const deno = (globalThis as { Deno?: { version?: { deno?: string } } }).Deno?.version?.deno
  return deno ? { name: 'deno', version: deno } : { name: 'node', version: process.versions.node }
}

/**
 * Registers `k8s_collector_build_info{version, runtime, runtime_version}`, always 1: the release
 * (`version`) and what runs it (`runtime`: node, also for the Node single executable, or deno).
 */
export function registerBuildInfo(registry: Registry, build: { readonly version: string }): void {
  const runtime = runtimeInfo()
  registry.gauge({
    name: 'k8s_collector_build_info',
    help: 'Always 1; the labels say which release runs (version) on which runtime (runtime: node or deno, runtime_version).',
    labelNames: ['version', 'runtime', 'runtime_version'],
  }).labels(build.version, runtime.name, runtime.version).set(1)
}
