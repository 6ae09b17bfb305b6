// A five-field cron schedule (minute hour day-of-month month day-of-week, UTC) and its next firing time.

type Field = (v: number) => boolean

const RANGES: Array<[number, number]> = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 7]]
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
}

export interface CronSchedule {
  /** The first firing strictly after `afterMs` (minute resolution), or undefined within ~4 years. */
  next(afterMs: number): number | undefined
}

/** Parses `*`, `N`, `A-B`, lists and `/step`; throws RangeError on anything else. */
export function parseCron(text: string): CronSchedule {
  const expanded = MACROS[text.trim()] ?? text.trim()
  const parts = expanded.split(/\s+/)
  if (parts.length !== 5) throw new RangeError(`cron schedule needs 5 fields: ${JSON.stringify(text)}`)
  const fields = parts.map((p, i) => parseField(p, RANGES[i][0], RANGES[i][1]))
  const [minute, hour, dom, month, dowRaw] = fields
  const dow: Field = (v) => dowRaw(v) || (v === 0 && dowRaw(7))
  const domStar = parts[2] === '*'
  const dowStar = parts[4] === '*'
  const dayMatches = (d: Date) => {
    const a = dom(d.getUTCDate())
    const b = dow(d.getUTCDay())
    // cron: when both day fields are restricted, either may match.
    return domStar || dowStar ? a && b : a || b
  }
  return {
    next(afterMs) {
      let t = Math.floor(afterMs / 60_000) * 60_000 + 60_000
      const limit = afterMs + 4 * 366 * 24 * 3600_000
      while (t <= limit) {
        const d = new Date(t)
        if (!month(d.getUTCMonth() + 1) || !dayMatches(d)) {
          t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
          continue
        }
        if (!hour(d.getUTCHours())) {
          t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1)
          continue
        }
        if (minute(d.getUTCMinutes())) return t
        t += 60_000
      }
      return undefined
    },
  }
}

function parseField(text: string, min: number, max: number): Field {
  const allowed = new Set<number>()
  for (const item of text.split(',')) {
    const m = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/.exec(item)
    if (!m) throw new RangeError(`bad cron field ${JSON.stringify(text)}`)
    let [lo, hi] = m[1] === '*' ? [min, max] : m[1].split('-').map(Number)
    hi ??= m[2] ? max : lo
    const step = m[2] ? Number(m[2]) : 1
    if (lo < min || hi > max || lo > hi || step < 1) throw new RangeError(`cron field ${JSON.stringify(text)} out of range ${min}-${max}`)
    for (let v = lo; v <= hi; v += step) allowed.add(v)
  }
  return (v) => allowed.has(v)
}
