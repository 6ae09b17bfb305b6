// The metric-name reader on the shapes the dashboard uses and on the ones it must not mistake for metrics.
import { describe, expect, it } from 'vitest'
import { metricNames } from './promql-names.ts'

describe('metricNames', () => {
  it.each([
    ['a bare name', 'k8s_collector_epoch', ['k8s_collector_epoch']],
    ['a selector', 'k8s_collector_link_up{job=~"$job", pod=~"a|b"}', ['k8s_collector_link_up']],
    ['label values that look like names', 'up{job="process_cpu_seconds_total", x=\'sum\'}', ['up']],
    ['an aggregation with by', 'sum by (pod, cause) (increase(k8s_collector_link_disconnects_total{pod="x"}[$__rate_interval]))', ['k8s_collector_link_disconnects_total']],
    ['an aggregation with the clause after', 'max(k8s_collector_leader) without (pod)', ['k8s_collector_leader']],
    ['histogram_quantile over a rate', 'histogram_quantile(0.99, sum by (le, pod) (rate(k8s_collector_link_event_to_wire_seconds_bucket[5m])))', ['k8s_collector_link_event_to_wire_seconds_bucket']],
    ['a ratio with vector matching', 'a_bytes / on (pod) group_left (node) b_bytes', ['a_bytes', 'b_bytes']],
    ['keywords and numbers', 'x_total offset 5m > bool 0.85 and y unless z or 1e3 * inf', ['x_total', 'y', 'z']],
    ['a subquery', 'max_over_time(rate(c_total[1m])[10m:30s])', ['c_total']],
    ['__name__ matchers', '{__name__="k8s_collector_epoch", pod="p"}', ['k8s_collector_epoch']],
    ['repeats once', 'a / a', ['a']],
  ])('%s', (_what, expr, names) => {
    expect(metricNames(expr)).toEqual(names)
  })

  it('refuses an unterminated string or bracket instead of guessing', () => {
    expect(() => metricNames('x{job="a}')).toThrow(/unterminated string|unclosed/)
    expect(() => metricNames('rate(x[5m)')).toThrow(/unclosed '\['/)
  })
})
