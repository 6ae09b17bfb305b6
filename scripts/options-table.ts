// Writes the option tables into the READMEs between their markers; `--check` only says whether one is stale.
// Usage: npx tsx scripts/options-table.ts [--check]
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { OPTION_DOCUMENTS, withOptionTables } from '../src/cli/options-markdown.ts'

for (const { path, tables } of OPTION_DOCUMENTS) {
  const file = fileURLToPath(new URL(`../${path}`, import.meta.url))
  const before = readFileSync(file, 'utf8')
  const after = withOptionTables(before, tables)
  if (after === before) console.log(`${path}: the option tables are up to date`)
  else if (process.argv.includes('--check')) {
    console.error(`${path}: the option tables are stale; run npx tsx scripts/options-table.ts`)
    process.exitCode = 1
  } else {
    writeFileSync(file, after)
    console.log(`${path}: option tables written`)
  }
}
