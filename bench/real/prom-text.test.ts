// The Prometheus text parser and the counter deltas, on the exposition format's corner cases and
// on two scrapes of the real kube-apiserver v1.37.2 taken a minute apart during the real section's
// churn, ours on Deno watching (fixtures/, trimmed to the metrics the bench reads).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { counterDeltas, parsePromText, PromTextError, total } from './prom-text.ts'

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')

describe('parsePromText', () => {
  it.each([
    ['no labels', 'up 1', { name: 'up', labels: {}, value: 1 }],
    ['labels', 'a_total{verb="LIST",resource="pods"} 42', { name: 'a_total', labels: { verb: 'LIST', resource: 'pods' }, value: 42 }],
    ['escapes in a value', 'a{path="x\\"y\\\\z\\nw"} 1', { name: 'a', labels: { path: 'x"y\\z\nw' }, value: 1 }],
    ['a comma and a brace inside a value', 'a{q="{a,b}",r="s"} 2', { name: 'a', labels: { q: '{a,b}', r: 's' }, value: 2 }],
    ['a trailing comma', 'a{q="1",} 3', { name: 'a', labels: { q: '1' }, value: 3 }],
    ['+Inf', 'b_bucket{le="+Inf"} +Inf', { name: 'b_bucket', labels: { le: '+Inf' }, value: Infinity }],
    ['a timestamp after the value', 'a 7 1700000000000', { name: 'a', labels: {}, value: 7 }],
    ['a float in exponent form', 'a 1.5e+06', { name: 'a', labels: {}, value: 1_500_000 }],
  ])('%s', (_, line, sample) => {
    expect(parsePromText(`# HELP a x\n# TYPE a counter\n${line}\n`)).toEqual([sample])
  })

  it.each([
    ['no value', 'a{q="1"}'],
    ['an unterminated value', 'a{q="1} 2'],
    ['a bad escape', 'a{q="\\t"} 2'],
    ['a value that is not a number', 'a 12abc'],
    ['a label without quotes', 'a{q=1} 2'],
  ])('rejects %s, naming the line', (_, line) => {
    expect(() => parsePromText(`ok 1\n${line}\n`)).toThrow(PromTextError)
    expect(() => parsePromText(`ok 1\n${line}\n`)).toThrow(/line 2/)
  })

  it('reads a real kube-apiserver scrape, keeping only the metrics asked for', () => {
    const text = fixture('metrics-before.txt')
    const all = parsePromText(text)
    const samples = text.split('\n').filter((l) => l && !l.startsWith('#'))
    expect(all).toHaveLength(samples.length)
    const kept = parsePromText(text, (n) => n === 'apiserver_request_total')
    expect(kept.length).toBeGreaterThan(10)
    expect(kept.every((s) => s.name === 'apiserver_request_total')).toBe(true)
    // v1.37's labels: by verb, group, version, resource, subresource, scope, component, code, dry_run; no user agent.
    expect(Object.keys(kept[0]!.labels).sort()).toEqual(['code', 'component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'])
  })
})

describe('counterDeltas', () => {
  const before = parsePromText(fixture('metrics-before.txt'))
  const after = parsePromText(fixture('metrics-after.txt'))
  const pods = (l: Readonly<Record<string, string>>) => l.resource === 'pods'

  it('sums what each series grew by, by the labels asked for', () => {
    const byVerb = counterDeltas(before, after, 'apiserver_request_total', ['verb'], pods)
    // Summing by hand over the fixture's series agrees with the map.
    const sum = (s: typeof before, verb: string) => s.filter((x) => x.name === 'apiserver_request_total' && x.labels.resource === 'pods' && x.labels.verb === verb).reduce((a, x) => a + x.value, 0)
    for (const verb of ['POST', 'DELETE', 'WATCH']) expect(byVerb.get(verb) ?? 0).toBe(sum(after, verb) - sum(before, verb))
    // The churn created and deleted pods meanwhile; the collector opened pod watches.
    expect(byVerb.get('POST')).toBeGreaterThan(100)
    expect(byVerb.get('DELETE')).toBeGreaterThan(100)
    expect(byVerb.get('WATCH')).toBeGreaterThan(0)
  })

  it('sums histogram _sum series (watch event bytes) over the resources', () => {
    const bytes = total(counterDeltas(before, after, 'apiserver_watch_events_sizes_sum', [], pods))
    const events = total(counterDeltas(before, after, 'apiserver_watch_events_total', [], pods))
    expect(events).toBeGreaterThan(1000)
    // A pod watch event of this cluster is a few KB of JSON.
    expect(bytes / events).toBeGreaterThan(1000)
    expect(bytes / events).toBeLessThan(20_000)
  })

  it('counts a series new in the second scrape from 0, and one that went down (a restart) from 0', () => {
    const a = parsePromText('x_total{v="A"} 5\nx_total{v="B"} 9\n')
    const b = parsePromText('x_total{v="A"} 7\nx_total{v="B"} 2\nx_total{v="C"} 4\n')
    expect(Object.fromEntries(counterDeltas(a, b, 'x_total', ['v']))).toEqual({ A: 2, B: 2, C: 4 })
  })

  it('matches a series whatever the order of its labels', () => {
    const a = parsePromText('x_total{a="1",b="2"} 5\n')
    const b = parsePromText('x_total{b="2",a="1"} 8\n')
    expect(Object.fromEntries(counterDeltas(a, b, 'x_total', ['a']))).toEqual({ 1: 3 })
  })
})
