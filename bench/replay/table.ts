// Prints the markdown results tables of bench/README.md from the latest FULL results files
// (bench/results/<date>-<section>.json, not -quick): figures named `<size>_…` become one row per
// figure with a column per size; targets with met/missed.
// Usage: npx tsx bench/replay/table.ts [DATE]   (default: the newest date that has results)
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BenchSection, BenchTarget } from '../types.ts'

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results')
const files = readdirSync(dir).filter((f) => /^\d{4}-\d{2}-\d{2}-[a-z-]+\.json$/.test(f) && !f.endsWith('-quick.json'))
const date = process.argv[2] ?? files.map((f) => f.slice(0, 10)).sort().at(-1)
if (!date) throw new Error(`no full results in ${dir}`)
const ORDER = ['codec', 'match', 'match-deno', 'decode', 'ceiling', 'informer', 'sync', 'sync-deno', 'churn', 'churn-deno', 'wire', 'wire-deno']

const fmt = (v: number | string | undefined): string =>
  v === undefined ? '' : typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: 3 }) : v
const met = (t: BenchTarget): boolean => (t.op === '<=' ? t.value <= t.limit : t.value >= t.limit)

const sections = files
  .filter((f) => f.startsWith(date))
  .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { machine: Record<string, unknown>; section: BenchSection })
  .sort((a, b) => ORDER.indexOf(a.section.name) - ORDER.indexOf(b.section.name))
const m = sections[0]?.machine
if (m) console.log(`Full run of ${date} — ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}\n`)

const targets: BenchTarget[] = []
for (const { section } of sections) {
  console.log(`#### ${section.name}\n`)
  const sized = new Map<string, Map<string, number | string>>()
  const sizes: string[] = []
  const plain: Array<[string, number | string]> = []
  for (const [key, value] of Object.entries(section.figures)) {
    const at = /^(\d+k)_(.+)$/.exec(key)
    if (!at) {
      plain.push([key, value])
      continue
    }
    if (!sizes.includes(at[1]!)) sizes.push(at[1]!)
    if (!sized.has(at[2]!)) sized.set(at[2]!, new Map())
    sized.get(at[2]!)!.set(at[1]!, value)
  }
  if (sized.size > 0) {
    console.log(`| figure | ${sizes.join(' | ')} |\n|---|${sizes.map(() => '---:').join('|')}|`)
    for (const [name, bySize] of sized) console.log(`| ${name} | ${sizes.map((s) => fmt(bySize.get(s))).join(' | ')} |`)
  }
  if (plain.length > 0) {
    console.log('| figure | value |\n|---|---:|')
    for (const [name, value] of plain) console.log(`| ${name} | ${fmt(value)} |`)
  }
  console.log('')
  targets.push(...(section.targets ?? []))
}
if (targets.length > 0) {
  console.log('#### Targets\n\n| target | value | limit | |\n|---|---:|---:|---|')
  for (const t of targets) console.log(`| ${t.name} | ${fmt(t.value)} ${t.unit} | ${t.op} ${fmt(t.limit)} | ${met(t) ? 'met' : '**MISSED**'} |`)
}
