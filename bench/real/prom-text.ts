// Reads kube-apiserver's /metrics (Prometheus text exposition 0.0.4) into samples, and turns two
// scrapes into per-label deltas: what the API server counted between them (bench/real.ts).

/** One sample line: metric name, its labels, its value. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** A parse error names the line, so a format change of the server shows where. */
export class PromTextError extends Error {
  override name = 'PromTextError'
}

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', n: '\n' }

/** Parses `{a="x",b="y\"z"}` starting at `text[at] === '{'`; returns the labels and the index after `}`. */
function parseLabels(text: string, at: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {}
  let i = at + 1
  for (;;) {
    while (text[i] === ' ' || text[i] === ',') i++
    if (text[i] === '}') return { labels, end: i + 1 }
    const eq = text.indexOf('=', i)
    if (eq < 0 || text[eq + 1] !== '"') throw new PromTextError(`line ${line}: expected name="value" at column ${i + 1}`)
    const key = text.slice(i, eq).trim()
    let value = ''
    for (i = eq + 2; ; i++) {
      const ch = text[i]
      if (ch === undefined) throw new PromTextError(`line ${line}: unterminated label value of ${key}`)
      if (ch === '"') break
      if (ch === '\\') {
        const esc = ESCAPES[text[i + 1] ?? '']
        if (esc === undefined) throw new PromTextError(`line ${line}: bad escape \\${text[i + 1]} in label ${key}`)
        value += esc
        i++
      } else value += ch
    }
    labels[key] = value
    i++
  }
}

/**
 * Every sample of `text` whose metric name passes `keep` (default: all). Comments (`# HELP`,
 * `# TYPE`) and blank lines are skipped; a timestamp after the value is ignored.
 */
export function parsePromText(text: string, keep: (name: string) => boolean = () => true): Sample[] {
  const out: Sample[] = []
  const lines = text.split('\n')
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!
    if (line === '' || line.startsWith('#')) continue
    const brace = line.indexOf('{')
    const space = line.indexOf(' ')
    const nameEnd = brace >= 0 && (space < 0 || brace < space) ? brace : space
    if (nameEnd <= 0) throw new PromTextError(`line ${n + 1}: no value: ${line.slice(0, 80)}`)
    const name = line.slice(0, nameEnd)
    if (!keep(name)) continue
    let labels: Record<string, string> = {}
    let rest = nameEnd
    if (line[nameEnd] === '{') ({ labels, end: rest } = parseLabels(line, nameEnd, n + 1))
    const fields = line.slice(rest).trim().split(/\s+/)
    const value = fields[0] === '+Inf' ? Infinity : fields[0] === '-Inf' ? -Infinity : Number(fields[0])
    if (fields[0] === undefined || fields[0] === '' || (Number.isNaN(value) && fields[0] !== 'NaN')) throw new PromTextError(`line ${n + 1}: bad value ${JSON.stringify(fields[0])}`)
    out.push({ name, labels, value })
  }
  return out
}

/**
 * What a counter (or a histogram's `_sum` / `_count`) grew by between two scrapes, summed by the
 * labels `by` (e.g. `['verb', 'resource']`, key `LIST pods`), over the samples `where` accepts.
 * A series absent from `before` counts from 0 (created in between); a series that went down (a
 * restarted server) counts from 0 too, as Prometheus' `increase` does.
 */
export function counterDeltas(
  before: readonly Sample[],
  after: readonly Sample[],
  name: string,
  by: readonly string[],
  where: (labels: Readonly<Record<string, string>>) => boolean = () => true,
): Map<string, number> {
  const seriesKey = (s: Sample) => Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join(',')
  const old = new Map<string, number>()
  for (const s of before) if (s.name === name) old.set(seriesKey(s), s.value)
  const out = new Map<string, number>()
  for (const s of after) {
    if (s.name !== name || !where(s.labels)) continue
    const was = old.get(seriesKey(s)) ?? 0
    const grew = s.value >= was ? s.value - was : s.value
    if (grew === 0) continue
    const key = by.map((l) => s.labels[l] ?? '').join(' ')
    out.set(key, (out.get(key) ?? 0) + grew)
  }
  return out
}

/** The sum of a {@link counterDeltas} map. */
export const total = (deltas: ReadonlyMap<string, number>): number => [...deltas.values()].reduce((a, b) => a + b, 0)
