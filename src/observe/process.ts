// Process gauges (memory, CPU, start time) read at scrape time, in the usual Prometheus names.
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
