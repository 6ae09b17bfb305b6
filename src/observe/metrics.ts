// A tiny Prometheus registry: counters, gauges (set or read at scrape time) and fixed-bucket
// histograms with label sets, rendered in the text exposition format 0.0.4.

/** A metric definition is invalid or clashes with one already registered. */
export class MetricsError extends Error {
  override name = 'MetricsError'
}

/** Label values in the order of the metric's `labelNames`, as returned by a `collect` callback. */
export type LabeledValue = readonly [labelValues: readonly string[], value: number]

/**
 * What a `collect` callback returns at scrape time: the value of a label-less metric, or one value
 * per label set (label sets not returned are not rendered).
 */
export type Collected = number | Iterable<LabeledValue>

export interface MetricOptions {
  /** `[a-zA-Z_:][a-zA-Z0-9_:]*`; counters should end in `_total`, units go in the name (`_seconds`). */
  readonly name: string
  readonly help: string
  readonly labelNames?: readonly string[]
}

export interface CallbackOptions extends MetricOptions {
  /** Read at every `render()`; replaces what was set or incremented on the metric. */
  readonly collect?: () => Collected
}

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds, strictly increasing; `+Inf` is implied. */
  readonly buckets: readonly number[]
}

/** One label set of a counter: bind it once (`counter.labels('dns')`) and increment it cheaply. */
export interface CounterChild {
  inc(by?: number): void
  readonly value: number
}
export interface GaugeChild {
  set(value: number): void
  inc(by?: number): void
  dec(by?: number): void
  readonly value: number
}
export interface HistogramChild {
  observe(value: number): void
  readonly count: number
  readonly sum: number
}

export interface Counter extends CounterChild {
  /** The child for these label values (created on first use; cache it in hot paths). */
  labels(...values: string[]): CounterChild
}
export interface Gauge extends GaugeChild {
  labels(...values: string[]): GaugeChild
}
export interface Histogram extends HistogramChild {
  labels(...values: string[]): HistogramChild
}

/** Holds metrics by name and renders them all. */
export interface Registry {
  counter(opts: CallbackOptions): Counter
  gauge(opts: CallbackOptions): Gauge
  histogram(opts: HistogramOptions): Histogram
  /** The text exposition format 0.0.4 (serve with `Content-Type: text/plain; version=0.0.4`). */
  render(): string
}

/** Content type of {@link Registry.render}'s output. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

/** Default latency buckets in seconds (1 ms … 10 s). */
export const DEFAULT_SECONDS_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

/** Escapes a label value: backslash, double quote and line feed (format 0.0.4). */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))
}

function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'))
}

/** A sample value as Prometheus writes it: `+Inf`, `-Inf`, `NaN` or a JS number. */
export function formatValue(v: number): string {
  if (v === Infinity) return '+Inf'
  if (v === -Infinity) return '-Inf'
  return Number.isNaN(v) ? 'NaN' : String(v)
}

function labelText(names: readonly string[], values: readonly string[], extra = ''): string {
  const parts = names.map((n, i) => `${n}="${escapeLabelValue(values[i]!)}"`)
  if (extra) parts.push(extra)
  return parts.length === 0 ? '' : `{${parts.join(',')}}`
}

/** One time series: its rendered label text is built once, when the child is created. */
class ScalarChild implements GaugeChild {
  value = 0
  /** The last scrape whose `collect` returned this series. */
  scrape = 0
  constructor(readonly labelValues: readonly string[], readonly text: string) {}
  set(value: number): void {
    this.value = value
  }
  inc(by = 1): void {
    this.value += by
  }
  dec(by = 1): void {
    this.value -= by
  }
}

class CounterSeries extends ScalarChild {
  override inc(by = 1): void {
    if (!(by >= 0)) throw new MetricsError(`a counter can only increase (got ${by})`)
    this.value += by
  }
}

class HistogramSeries implements HistogramChild {
  readonly counts: Float64Array
  count = 0
  sum = 0
  constructor(readonly labelValues: readonly string[], readonly text: string, private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1)
  }
  observe(value: number): void {
    // Binary search for the first bound ≥ value (the last slot is +Inf).
    let lo = 0
    let hi = this.bounds.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (value <= this.bounds[mid]!) hi = mid
      else lo = mid + 1
    }
    this.counts[lo]!++
    this.count++
    this.sum += value
  }
}

interface Family {
  readonly name: string
  readonly help: string
  readonly type: 'counter' | 'gauge' | 'histogram'
  render(out: string[]): void
}

function validate(opts: MetricOptions, reserved: readonly string[]): readonly string[] {
  if (!METRIC_NAME.test(opts.name)) throw new MetricsError(`invalid metric name ${JSON.stringify(opts.name)}`)
  const labelNames = opts.labelNames ?? []
  for (const l of labelNames) {
    if (!LABEL_NAME.test(l) || l.startsWith('__') || reserved.includes(l)) {
      throw new MetricsError(`invalid label name ${JSON.stringify(l)} on ${opts.name}`)
    }
  }
  if (new Set(labelNames).size !== labelNames.length) throw new MetricsError(`duplicate label names on ${opts.name}`)
  return labelNames
}

interface ChildMap<C> {
  get(values: readonly string[]): C
  all(): IterableIterator<C>
  root(): C
}

/** Child lookup by label values; the key is built only when a child is looked up, never per increment. */
function childMap<C extends { readonly labelValues: readonly string[] }>(
  name: string,
  labelNames: readonly string[],
  make: (values: readonly string[], text: string) => C,
): ChildMap<C> {
  const children = new Map<string, C>()
  const get = (values: readonly string[]): C => {
    if (values.length !== labelNames.length) {
      throw new MetricsError(`${name} takes ${labelNames.length} label values (${labelNames.join(', ')}), got ${values.length}`)
    }
    const key = values.join('\u0000')
    let child = children.get(key)
    if (!child) {
      child = make([...values], labelText(labelNames, values))
      children.set(key, child)
    }
    return child
  }
  let rootChild: C | undefined
  return {
    get,
    all: () => children.values(),
    root: () => {
      if (labelNames.length > 0) throw new MetricsError(`${name} has labels (${labelNames.join(', ')}); use .labels(…)`)
      return (rootChild ??= get([]))
    },
  }
}

function scalarFamily<C extends ScalarChild>(
  type: 'counter' | 'gauge',
  opts: CallbackOptions,
  labelNames: readonly string[],
  make: (values: readonly string[], text: string) => C,
): { family: Family; children: ChildMap<C> } {
  const children = childMap(opts.name, labelNames, make)
  // The label-less series exists from the start so that it renders as 0 before any increment.
  if (labelNames.length === 0) children.root()
  const collect = opts.collect
  let scrape = 0
  const family: Family = {
    name: opts.name,
    help: opts.help,
    type,
    render(out) {
      scrape++
      if (collect) {
        const got = collect()
        if (typeof got === 'number') children.root().value = got
        else for (const [values, value] of got) Object.assign(children.get(values), { value, scrape })
      }
      for (const c of children.all()) {
        // A collected labeled family renders only the label sets this scrape returned.
        if (collect && labelNames.length > 0 && c.scrape !== scrape) continue
        out.push(`${opts.name}${c.text} ${formatValue(c.value)}\n`)
      }
    },
  }
  return { family, children }
}

export function createRegistry(): Registry {
  const families = new Map<string, Family>()
  const add = (family: Family): void => {
    if (families.has(family.name)) throw new MetricsError(`metric ${family.name} is already registered`)
    families.set(family.name, family)
  }
  return {
    counter(opts) {
      const { family, children } = scalarFamily('counter', opts, validate(opts, []), (v, t) => new CounterSeries(v, t))
      add(family)
      return {
        labels: (...values: string[]) => children.get(values),
        inc: (by?: number) => children.root().inc(by),
        get value() {
          return children.root().value
        },
      }
    },
    gauge(opts) {
      const { family, children } = scalarFamily('gauge', opts, validate(opts, []), (v, t) => new ScalarChild(v, t))
      add(family)
      return {
        labels: (...values: string[]) => children.get(values),
        set: (value: number) => children.root().set(value),
        inc: (by?: number) => children.root().inc(by),
        dec: (by?: number) => children.root().dec(by),
        get value() {
          return children.root().value
        },
      }
    },
    histogram(opts) {
      const labelNames = validate(opts, ['le'])
      const bounds = [...opts.buckets]
      if (bounds.length === 0 || bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= bounds[i - 1]!))) {
        throw new MetricsError(`${opts.name}: buckets must be finite and strictly increasing`)
      }
      const children = childMap(opts.name, labelNames, (v, t) => new HistogramSeries(v, t, bounds))
      if (labelNames.length === 0) children.root()
      const les = [...bounds.map(formatValue), '+Inf'].map((le) => `le="${le}"`)
      add({
        name: opts.name,
        help: opts.help,
        type: 'histogram',
        render(out) {
          for (const c of children.all()) {
            let cumulative = 0
            for (let i = 0; i < les.length; i++) {
              cumulative += c.counts[i]!
              out.push(`${opts.name}_bucket${labelText(labelNames, c.labelValues, les[i])} ${cumulative}\n`)
            }
            out.push(`${opts.name}_sum${c.text} ${formatValue(c.sum)}\n`, `${opts.name}_count${c.text} ${c.count}\n`)
          }
        },
      })
      return {
        labels: (...values: string[]) => children.get(values),
        observe: (value: number) => children.root().observe(value),
        get count() {
          return children.root().count
        },
        get sum() {
          return children.root().sum
        },
      }
    },
    render() {
      const out: string[] = []
      for (const f of families.values()) {
        out.push(`# HELP ${f.name} ${escapeHelp(f.help)}\n`, `# TYPE ${f.name} ${f.type}\n`)
        f.render(out)
      }
      return out.join('')
    },
  }
}
