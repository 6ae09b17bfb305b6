// `npm run bench [-- --quick] [-- --only a,b]`: runs every benchmark section, prints its figures and
// targets, compares them with the previous results file of the same section, and writes
// bench/results/<date>-<section>.json.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BenchOptions, BenchSection, BenchTarget } from './types.ts'
import { optInSections, sections } from './sections.ts'

const here = dirname(fileURLToPath(import.meta.url))
const resultsDir = join(here, 'results')

const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const onlyAt = argv.indexOf('--only')
const only = onlyAt >= 0 ? new Set(argv[onlyAt + 1]?.split(',')) : undefined
const opts: BenchOptions = { quick }

const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
}

function previous(name: string): BenchSection | undefined {
  let files: string[] = []
  try {
    const suffix = `-${name}${quick ? '-quick' : ''}.json`
    files = readdirSync(resultsDir).filter((f) => f.endsWith(suffix)).sort()
  } catch {
    return undefined
  }
  for (const file of files.reverse()) {
    try {
      return (JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as { section: BenchSection }).section
    } catch {
      // an unreadable results file is skipped, not fatal
    }
  }
  return undefined
}

const fmt = (v: number | string): string =>
  typeof v === 'number' ? (Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 3 })) : v

const met = (t: BenchTarget): boolean => (t.op === '<=' ? t.value <= t.limit : t.value >= t.limit)

function print(section: BenchSection, before?: BenchSection): void {
  console.log(`\n== ${section.name}${quick ? ' (quick)' : ''}`)
  for (const [key, value] of Object.entries(section.figures)) {
    const old = before?.figures[key]
    const delta = typeof value === 'number' && typeof old === 'number' && old !== 0 ? ` (previous ${fmt(old)}, ×${(value / old).toFixed(2)})` : ''
    console.log(`  ${key.padEnd(44)} ${fmt(value)}${delta}`)
  }
  for (const t of section.targets ?? []) {
    console.log(`  target ${t.name}: ${fmt(t.value)} ${t.unit} ${t.op} ${fmt(t.limit)} → ${met(t) ? 'met' : 'MISSED'}`)
  }
  for (const note of section.notes ?? []) console.log(`  note: ${note}`)
}

mkdirSync(resultsDir, { recursive: true })
const date = new Date().toISOString().slice(0, 10)
console.log(`k8s-collector benchmarks — ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}${quick ? ', quick' : ''}`)
let failed = 0
const runStarted = performance.now()
for (const [name, run] of Object.entries(sections)) {
  if (only ? !only.has(name) : optInSections.has(name)) continue
  const started = performance.now()
  try {
    const section = await run(opts)
    print(section, previous(section.name))
    console.log(`  (${name} took ${((performance.now() - started) / 1000).toFixed(0)} s)`)
    const file = join(resultsDir, `${date}-${section.name}${quick ? '-quick' : ''}.json`)
    writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), quick, machine, section }, null, 2) + '\n')
  } catch (err) {
    failed++
    console.error(`\n== ${name}: FAILED — ${err instanceof Error ? err.stack ?? err.message : String(err)}`)
  }
}
console.log(`\nresults written to ${resultsDir} — ${((performance.now() - runStarted) / 60_000).toFixed(1)} min in all`)
if (failed) process.exit(1)
