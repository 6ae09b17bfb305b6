// Process gauges read at scrape time.
import { expect, it } from 'vitest'
import { createRegistry } from './metrics.ts'
import { registerBuildInfo, registerProcessMetrics } from './process.ts'

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

it('exposes the build info as a gauge of 1 labelled with the release and the runtime', () => {
  const r = createRegistry()
  registerBuildInfo(r, { version: '1.2.3' })
  expect(r.render()).toContain(
    `# TYPE k8s_collector_build_info gauge\nk8s_collector_build_info{version="1.2.3",runtime="node",runtime_version="${process.versions.node}"} 1\n`,
  )
})
