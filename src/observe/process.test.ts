// Process gauges read at scrape time.
import { expect, it } from 'vitest'
import { createRegistry } from './metrics.ts'
import { registerProcessMetrics } from './process.ts'

it('exposes the process gauges with live values', () => {
  const r = createRegistry()
  registerProcessMetrics(r)
  const values = new Map(
    r
      .render()
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => [l.split(' ')[0]!, Number(l.split(' ')[1])] as const),
  )
  expect(values.get('process_resident_memory_bytes')).toBeGreaterThan(1_000_000)
  expect(values.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0)
  expect(values.get('nodejs_heap_size_total_bytes')).toBeGreaterThanOrEqual(values.get('nodejs_heap_size_used_bytes')!)
  expect(values.get('nodejs_external_memory_bytes')).toBeGreaterThanOrEqual(0)
  expect(values.get('process_cpu_seconds_total')).toBeGreaterThan(0)
  const start = values.get('process_start_time_seconds')!
  expect(start).toBeLessThanOrEqual(Date.now() / 1000 + 1)
  expect(start).toBeGreaterThan(Date.now() / 1000 - 3600)
})
