// Writes the option tables into README.md between their markers; `--check` only says whether they are stale.
// Usage: npx tsx scripts/options-table.ts [--check]
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { withOptionTables } from '../src/cli/options-markdown.ts'

const readme = fileURLToPath(new URL('../README.md', import.meta.url))
const before = readFileSync(readme, 'utf8')
const after = withOptionTables(before)

if (after === before) console.log('README.md: the option tables are up to date')
else if (process.argv.includes('--check')) {
  console.error('README.md: the option tables are stale; run npx tsx scripts/options-table.ts')
  process.exitCode = 1
} else {
  writeFileSync(readme, after)
  console.log('README.md: option tables written')
}
