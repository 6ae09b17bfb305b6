// The Prometheus registry: text format 0.0.4, escaping, callbacks, histograms, validation.
import { describe, expect, it } from 'vitest'
import { createRegistry, escapeLabelValue, formatValue, MetricsError } from './metrics.ts'

describe('metrics registry', () => {
  it('renders a label-less counter as 0 before any increment, then its total', () => {
    const r = createRegistry()
    const c = r.counter({ name: 'kc_events_total', help: 'Events seen.' })
    expect(r.render()).toBe('# HELP kc_events_total Events seen.\n# TYPE kc_events_total counter\nkc_events_total 0\n')
    c.inc()
    c.inc(2.5)
    expect(c.value).toBe(3.5)
    expect(r.render()).toContain('\nkc_events_total 3.5\n')
  })

  it('renders labeled series with escaped values, one line per label set in creation order', () => {
    const r = createRegistry()
    const c = r.counter({ name: 'kc_errors_total', help: 'Errors.', labelNames: ['cause', 'host'] })
    const dns = c.labels('dns', 'a')
    dns.inc()
    dns.inc()
    c.labels('weird', 'back\\slash "quoted"\nnewline').inc(7)
    expect(c.labels('dns', 'a')).toBe(dns)
    expect(r.render()).toBe(
      '# HELP kc_errors_total Errors.\n# TYPE kc_errors_total counter\n' +
        'kc_errors_total{cause="dns",host="a"} 2\n' +
        'kc_errors_total{cause="weird",host="back\\\\slash \\"quoted\\"\\nnewline"} 7\n',
    )
  })

  it('escapes HELP text (backslash and newline only)', () => {
    const r = createRegistry()
    r.gauge({ name: 'g', help: 'a\\b\n"c"' })
    expect(r.render().split('\n')[0]).toBe('# HELP g a\\\\b\\n"c"')
  })

  it('gauges set, inc and dec; special values use the Prometheus spellings', () => {
    const r = createRegistry()
    const g = r.gauge({ name: 'kc_level', help: 'L.', labelNames: ['k'] })
    g.labels('a').set(5)
    g.labels('a').dec(2)
    g.labels('b').inc()
    g.labels('inf').set(Infinity)
    g.labels('ninf').set(-Infinity)
    g.labels('nan').set(NaN)
    const lines = r.render().split('\n')
    expect(lines).toContain('kc_level{k="a"} 3')
    expect(lines).toContain('kc_level{k="b"} 1')
    expect(lines).toContain('kc_level{k="inf"} +Inf')
    expect(lines).toContain('kc_level{k="ninf"} -Inf')
    expect(lines).toContain('kc_level{k="nan"} NaN')
  })

  it('reads callback metrics at every render, labeled ones only with the label sets returned', () => {
    const r = createRegistry()
    let n = 1
    let causes: Array<[string[], number]> = [[['dns'], 1], [['timeout'], 4]]
    r.gauge({ name: 'kc_n', help: 'N.', collect: () => n })
    r.counter({ name: 'kc_c_total', help: 'C.', labelNames: ['cause'], collect: () => causes })
    expect(r.render()).toContain('\nkc_n 1\n')
    n = 42
    causes = [[['refused'], 2]]
    const text = r.render()
    expect(text).toContain('\nkc_n 42\n')
    expect(text).toContain('kc_c_total{cause="refused"} 2\n')
    expect(text).not.toContain('dns')
  })

  it('renders histograms with cumulative buckets, +Inf, sum and count', () => {
    const r = createRegistry()
    const h = r.histogram({ name: 'kc_latency_seconds', help: 'Latency.', buckets: [0.1, 1, 5] })
    for (const v of [0.05, 0.1, 0.5, 2, 7, 1]) h.observe(v)
    expect(h.count).toBe(6)
    expect(r.render()).toBe(
      '# HELP kc_latency_seconds Latency.\n# TYPE kc_latency_seconds histogram\n' +
        'kc_latency_seconds_bucket{le="0.1"} 2\n' +
        'kc_latency_seconds_bucket{le="1"} 4\n' +
        'kc_latency_seconds_bucket{le="5"} 5\n' +
        'kc_latency_seconds_bucket{le="+Inf"} 6\n' +
        `kc_latency_seconds_sum ${0.05 + 0.1 + 0.5 + 2 + 7 + 1}\n` +
        'kc_latency_seconds_count 6\n',
    )
  })

  it('puts le after the other labels of a labeled histogram', () => {
    const r = createRegistry()
    r.histogram({ name: 'h', help: 'H.', labelNames: ['op'], buckets: [1] }).labels('x"y').observe(3)
    expect(r.render()).toContain('h_bucket{op="x\\"y",le="1"} 0\nh_bucket{op="x\\"y",le="+Inf"} 1\nh_sum{op="x\\"y"} 3\nh_count{op="x\\"y"} 1\n')
  })

  it.each([
    ['a bad metric name', () => createRegistry().counter({ name: '1abc', help: '' })],
    ['a bad label name', () => createRegistry().counter({ name: 'a', help: '', labelNames: ['a-b'] })],
    ['a reserved label name', () => createRegistry().counter({ name: 'a', help: '', labelNames: ['__x'] })],
    ['le on a histogram', () => createRegistry().histogram({ name: 'a', help: '', labelNames: ['le'], buckets: [1] })],
    ['unsorted buckets', () => createRegistry().histogram({ name: 'a', help: '', buckets: [2, 1] })],
    ['a wrong number of label values', () => createRegistry().counter({ name: 'a', help: '', labelNames: ['x'] }).labels('1', '2')],
    ['a label-less call on a labeled metric', () => createRegistry().counter({ name: 'a', help: '', labelNames: ['x'] }).inc()],
    ['a negative counter increment', () => createRegistry().counter({ name: 'a', help: '' }).inc(-1)],
    [
      'a duplicate name',
      () => {
        const r = createRegistry()
        r.counter({ name: 'a', help: '' })
        r.gauge({ name: 'a', help: '' })
      },
    ],
  ])('rejects %s', (_what, f) => {
    expect(f).toThrow(MetricsError)
  })

  it('formats values and escapes label values', () => {
    expect([1, 0.25, 1e21, NaN, Infinity, -Infinity].map(formatValue)).toEqual(['1', '0.25', '1e+21', 'NaN', '+Inf', '-Inf'])
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd')
  })
})
