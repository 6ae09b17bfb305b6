// Reading the collector's /metrics (Prometheus text format) for the soak's figures.

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** Every sample of the text (comments skipped). */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = []
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!
    out.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return out
}

/** The values of metric `name` summed by the value of `label` (`''` sums everything under one key). */
export function byLabel(text: string, name: string, label = ''): Record<string, number> {
  const out: Record<string, number> = {}
  for (const s of parseSamples(text)) {
    if (s.name !== name) continue
    const key = label ? (s.labels[label] ?? '') : ''
    out[key] = (out[key] ?? 0) + s.value
  }
  return out
}

/** Adds `b` into `a`, key by key. */
export function addInto(a: Record<string, number>, b: Readonly<Record<string, number>>): Record<string, number> {
  for (const [k, v] of Object.entries(b)) a[k] = (a[k] ?? 0) + v
  return a
}
