// Writes kind/collector.yaml from charts/k8s-collector (its default values, through the pinned
// helm); `--check` only says whether the file is stale. Usage: npx tsx scripts/collector-manifest.ts [--check]
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderCollectorManifest } from '../e2e/helm/chart.ts'

const file = fileURLToPath(new URL('../kind/collector.yaml', import.meta.url))
const after = await renderCollectorManifest()
if (after === readFileSync(file, 'utf8')) console.log('kind/collector.yaml: up to date with the chart')
else if (process.argv.includes('--check')) {
  console.error('kind/collector.yaml: stale; run npx tsx scripts/collector-manifest.ts')
  process.exitCode = 1
} else {
  writeFileSync(file, after)
  console.log('kind/collector.yaml: written from charts/k8s-collector')
}
