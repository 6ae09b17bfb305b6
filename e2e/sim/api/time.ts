// metav1.Time and metav1.MicroTime as the API server parses and prints them: RFC 3339, seconds for
// Time (fractions accepted and dropped), exactly six fractional digits for MicroTime, always UTC on output.

export const TIME_LAYOUT = '2006-01-02T15:04:05Z07:00'
export const MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00'

/** A time the server cannot parse, with Go's wording (`parsing time "…" as "…": cannot parse "…" as "…"`). */
export class TimeParseError extends Error {
  override name = 'TimeParseError'
}

const ELEMENTS: Array<[RegExp, string]> = [
  [/^\d{4}/, '2006'], [/^-/, '-'], [/^\d{2}/, '01'], [/^-/, '-'], [/^\d{2}/, '02'], [/^T/, 'T'],
  [/^\d{2}/, '15'], [/^:/, ':'], [/^\d{2}/, '04'], [/^:/, ':'], [/^\d{2}/, '05'],
]

/** Parses `text` as Go's time.Parse(layout) would for these two layouts; returns epoch microseconds. */
function parse(text: string, micro: boolean): number {
  const layout = micro ? MICRO_LAYOUT : TIME_LAYOUT
  const fail = (rest: string, elem: string): never => {
    throw new TimeParseError(`parsing time ${JSON.stringify(text)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(elem)}`)
  }
  let rest = text
  const parts: string[] = []
  for (const [re, elem] of ELEMENTS) {
    const m = re.exec(rest)
    if (!m) fail(rest, elem)
    parts.push(m![0])
    rest = rest.slice(m![0].length)
  }
  let fraction = ''
  if (micro) {
    // ".000000" needs exactly six digits (Go: stdFracSecond0).
    const m = /^\.\d{6}/.exec(rest)
    if (!m) fail(rest, '.000000')
    fraction = m![0].slice(1)
    rest = rest.slice(7)
  } else {
    const m = /^[.,]\d+/.exec(rest) // a fraction is accepted even though the layout has none
    if (m) {
      fraction = m[0].slice(1, 7).padEnd(6, '0')
      rest = rest.slice(m[0].length)
    }
  }
  let offsetMin = 0
  if (rest.startsWith('Z')) rest = rest.slice(1)
  else {
    const m = /^([+-])(\d{2}):(\d{2})/.exec(rest)
    if (!m) fail(rest, 'Z07:00')
    offsetMin = (m![1] === '-' ? -1 : 1) * (Number(m![2]) * 60 + Number(m![3]))
    rest = rest.slice(6)
  }
  if (rest) throw new TimeParseError(`parsing time ${JSON.stringify(text)}: extra text: ${JSON.stringify(rest)}`)
  const [y, , mo, , d, , h, , mi, , s] = parts.map(Number)
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) {
    throw new TimeParseError(`parsing time ${JSON.stringify(text)}: ${mo < 1 || mo > 12 ? 'month' : d < 1 || d > 31 ? 'day' : h > 23 ? 'hour' : mi > 59 ? 'minute' : 'second'} out of range`)
  }
  const ms = Date.UTC(y, mo - 1, d, h, mi, s) - offsetMin * 60_000
  return ms * 1000 + Number(fraction || '0')
}

/** A metav1.Time value normalised as the server prints it (UTC, seconds); throws TimeParseError. */
export function normalizeTime(text: string): string {
  const us = parse(text, false)
  return new Date(Math.floor(us / 1e6) * 1000).toISOString().replace('.000Z', 'Z')
}

/** A metav1.MicroTime value normalised as the server prints it (UTC, six digits); throws TimeParseError. */
export function normalizeMicroTime(text: string): string {
  const us = parse(text, true)
  return formatMicroTime(us)
}

/** Epoch microseconds as a MicroTime string. */
export function formatMicroTime(us: number): string {
  const ms = Math.floor(us / 1000)
  return new Date(ms).toISOString().slice(0, 19) + '.' + String(((us % 1e6) + 1e6) % 1e6).padStart(6, '0') + 'Z'
}

/** Now as a MicroTime string. */
export function microNow(ms = Date.now()): string {
  return formatMicroTime(ms * 1000)
}
