// One window's API cost from two real scrapes and audit records, and the baseline subtraction.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { apiCost, COST_METRICS, heapAllocated, lessBaseline } from './api-cost.ts'
import { parsePromText } from './prom-text.ts'

const scrape = (name: string) => parsePromText(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8'), (n) => COST_METRICS.has(n))
const watch = (userAgent: string, resource: string) => ({ userAgent, verb: 'WATCH', resource, code: 200, uri: `/api/v1/${resource}?watch=true`, at: 0 })

describe('apiCost', () => {
  const before = scrape('metrics-before.txt')
  const after = scrape('metrics-after.txt')
  const cost = apiCost(before, after, [watch('k8s-collector', 'pods'), watch('k8s-collector', 'jobs'), watch('', 'pods')], 'bench-collector')

  it('takes requests and user agents from the audit records', () => {
    expect(cost.requests).toEqual({ WATCH: 3 })
    expect(cost.requestsByResource).toEqual({ 'WATCH pods': 2, 'WATCH jobs': 1 })
    expect(cost.userAgents).toEqual(['(none)', 'k8s-collector'])
  })

  it("takes bytes and events from the server's metrics, for the collected resources only", () => {
    expect(cost.bytes.WATCH).toBeGreaterThan(0)
    expect(cost.watchEvents).toBeGreaterThan(0)
    expect(Object.keys(cost.serverRequests)).toEqual(expect.arrayContaining(['POST', 'DELETE']))
    // The collector's flow schema saw its watches (ours was running between the two scrapes).
    expect(cost.flowSchemaRequests).toBeGreaterThan(0)
  })

  it("counts other clients' lists: the server's LISTs and streaming lists less the collector's own", () => {
    const own = (uri: string, verb = 'LIST') => ({ userAgent: 'k8s-collector', verb, resource: 'pods', code: 200, uri, at: 0 })
    const a = parsePromText('apiserver_request_total{verb="LIST",resource="pods"} 10\napiserver_watch_list_duration_seconds_count{resource="pods"} 2\n')
    const b = parsePromText('apiserver_request_total{verb="LIST",resource="pods"} 15\napiserver_watch_list_duration_seconds_count{resource="pods"} 4\n')
    const mine = [own('/api/v1/pods?limit=500'), own('/api/v1/pods?watch=1&sendInitialEvents=true', 'WATCH'), own('/api/v1/pods?watch=1&resourceVersion=5', 'WATCH')]
    expect(apiCost(a, b, mine, 'x').otherLists).toBe(5 + 2 - 2)
  })
})

describe('heapAllocated', () => {
  it("takes the Go heap's allocations between two real scrapes (kube-apiserver v1.37.2)", () => {
    // The two lines of each fixture come from the scrapes of one run, before and after its collectors.
    expect(heapAllocated(scrape('metrics-before.txt'), scrape('metrics-after.txt'))).toBe(1.6098979968e10 - 1.164038824e10)
  })

  it('falls back to the runtime/metrics name, and is NaN without either', () => {
    const a = parsePromText('go_gc_heap_allocs_bytes_total 1e9\n')
    const b = parsePromText('go_gc_heap_allocs_bytes_total 1.5e9\n')
    expect(heapAllocated(a, b)).toBe(5e8)
    expect(heapAllocated(parsePromText('apiserver_request_total{verb="LIST"} 1\n'), b)).toBeNaN()
  })
})

describe('lessBaseline', () => {
  const window = { otherLists: 0, requests: { WATCH: 30 }, requestsByResource: {}, requestsByShape: {}, userAgents: [], serverRequests: { WATCH: 40, POST: 1000 }, flowSchemaRequests: 30, bytes: { WATCH: 5_000, LIST: 10 }, watchEvents: 500 }
  const baseline = { ...window, requests: {}, serverRequests: { WATCH: 5, POST: 500 }, flowSchemaRequests: 0, bytes: { WATCH: 1_000, LIST: 20 }, watchEvents: 100 }

  it('subtracts the scaled baseline from the server-wide figures, floored at 0', () => {
    const less = lessBaseline(window, baseline, 2)
    expect(less.bytes).toEqual({ WATCH: 3_000, LIST: 0 })
    expect(less.watchEvents).toBe(300)
    expect(less.serverRequests).toEqual({ WATCH: 30, POST: 0 })
  })

  it("keeps the collector's own figures (audit log, flow schema)", () => {
    const less = lessBaseline(window, baseline, 2)
    expect(less.requests).toEqual({ WATCH: 30 })
    expect(less.flowSchemaRequests).toBe(30)
  })
})
