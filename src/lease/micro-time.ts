// metav1.MicroTime, the type of a Lease's acquireTime and renewTime: written as RFC 3339 in UTC with
// exactly six fractional digits (what the API server requires), read in any RFC 3339 form.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

/**
 * Parses an RFC 3339 timestamp with 0 to 9 fractional digits and a `Z` or `±hh:mm` offset (what a
 * server, kubectl or another client may have written) into microseconds since the Unix epoch,
 * truncating below the microsecond (exact for years 1685–2255, the safe-integer range). Undefined
 * when `text` is not such a timestamp.
 */
export function parseMicroTime(text: string): number | undefined {
  const t = parse(text)
  return t && t.ms * 1000 + t.micros
}

/** Formats microseconds since the Unix epoch as `2006-01-02T15:04:05.000000Z`. */
export function formatMicroTime(epochMicros: number): string {
  const micros = Math.floor(epochMicros)
  const ms = Math.floor(micros / 1000)
  return format(ms, micros - ms * 1000)
}

/** A timestamp in the canonical six-digit UTC form when it parses; otherwise the text unchanged. */
export function normaliseMicroTime(text: string): string {
  const t = parse(text)
  return t ? format(t.ms, t.micros) : text
}

/** Milliseconds since the epoch and the microseconds within the millisecond, kept apart so any year is exact. */
function parse(text: string): { ms: number; micros: number } | undefined {
  const m = RFC3339.exec(text)
  if (!m) return undefined
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number]
  const offsetMinutes = m[8] ? (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10])) : 0
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined
  if (Math.abs(offsetMinutes) >= 24 * 60) return undefined
  const fraction = Number((m[7] ?? '').padEnd(6, '0').slice(0, 6))
  const ms = utcMs(year, month, day, hour, minute, second) - offsetMinutes * 60_000 + Math.floor(fraction / 1000)
  return { ms, micros: fraction % 1000 }
}

function format(ms: number, micros: number): string {
  const iso = new Date(ms).toISOString() // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z`
}

// Not Date.UTC, which reads years 0–99 as 1900–1999.
function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  d.setUTCHours(hour, minute, second, 0)
  return d.getTime()
}

function daysIn(year: number, month: number): number {
  return new Date(utcMs(year, month + 1, 0)).getUTCDate()
}
