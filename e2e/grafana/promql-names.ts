// The metric names a PromQL expression reads: a small lexer that knows which identifiers are not
// metrics (functions, aggregations and their label lists, label matchers, keywords, durations).
// The real parser is Prometheus itself, which evaluates every expression in queries.test.ts; this
// only has to find the names so that each can be held against the collector's /metrics.

/** Aggregation operators: `sum by (pod) (…)` has no parenthesis right after `sum`. */
const AGGREGATIONS = new Set([
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio',
])
/** Words followed by a parenthesised list of label names. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'])
/** Binary operators, modifiers and literals spelled as words. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'atan2', 'bool', 'offset', 'inf', 'nan'])

const IDENT_START = /[A-Za-z_:]/
const IDENT = /[A-Za-z0-9_:]/

/** The index just past the string literal that starts at `i` ("…", '…' with escapes, `…` raw). */
function skipString(s: string, i: number): number {
  const quote = s[i]
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\' && quote !== '`') j++
    else if (s[j] === quote) return j + 1
  }
  throw new Error(`unterminated string at ${i} in ${s}`)
}

/** The index just past the bracket that closes the one at `i`, strings inside skipped. */
function skipBracketed(s: string, i: number, close: string): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '"' || s[j] === "'" || s[j] === '`') j = skipString(s, j) - 1
    else if (s[j] === close) return j + 1
  }
  throw new Error(`unclosed '${s[i]}' at ${i} in ${s}`)
}

const nextNonSpace = (s: string, i: number): number => {
  while (i < s.length && /\s/.test(s[i]!)) i++
  return i
}

/** Every metric name `expr` selects, in order of appearance, without repeats. */
export function metricNames(expr: string): string[] {
  const names = new Set<string>()
  let i = 0
  while (i < expr.length) {
    const c = expr[i]!
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(expr, i)
    } else if (c === '{') {
      // Label matchers; `{__name__="x"}` names a metric too.
      const end = skipBracketed(expr, i, '}')
      const byName = /__name__\s*=\s*"([^"]*)"/.exec(expr.slice(i, end))
      if (byName) names.add(byName[1]!)
      i = end
    } else if (c === '[') {
      i = skipBracketed(expr, i, ']') // a range or subquery: durations only
    } else if (/[0-9.]/.test(c)) {
      while (i < expr.length && /[0-9A-Za-z_.]/.test(expr[i]!)) i++ // a number or a duration (5m, 1e3, 0x1f)
    } else if (IDENT_START.test(c)) {
      const start = i
      while (i < expr.length && IDENT.test(expr[i]!)) i++
      const word = expr.slice(start, i)
      const next = nextNonSpace(expr, i)
      const lower = word.toLowerCase()
      if (LABEL_LISTS.has(lower) && expr[next] === '(') i = skipBracketed(expr, next, ')')
      else if (KEYWORDS.has(lower)) continue
      else if (expr[next] === '(') continue // a function call
      else if (AGGREGATIONS.has(lower) && /^(by|without)\b/i.test(expr.slice(next))) continue
      else names.add(word)
    } else {
      i++
    }
  }
  return [...names]
}
