#!/usr/bin/env node
// `npm run compile`: the single self-contained executable, `deno compile` of dist/cli.mjs.
//
// deno compile appends the bundle to a base runtime ("denort") that it downloads for its own
// version unless DENORT_BIN names a local copy. Where neither works (no network), this script says
// so in one line and exits 1; `npm run compile:sea` builds an equivalent executable offline.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
// The V8 flags every form of the collector runs with (scripts/v8-flags.json), baked into the executable.
const v8Flags = JSON.parse(readFileSync(join(root, 'scripts', 'v8-flags.json'), 'utf8'))
const bundle = join(root, 'dist', 'cli.mjs')
const output = resolve(root, process.env.K8S_COLLECTOR_COMPILE_OUT ?? join('dist', 'k8s-collector'))

if (!existsSync(bundle)) {
  console.error('compile: dist/cli.mjs is missing; run `npm run build` first')
  process.exit(1)
}
const deno = join(dirname(createRequire(import.meta.url).resolve('deno/package.json')), 'deno')
if (process.env.DENORT_BIN && !existsSync(process.env.DENORT_BIN)) {
  console.error(`compile: DENORT_BIN=${process.env.DENORT_BIN} does not exist`)
  process.exit(1)
}
mkdirSync(dirname(output), { recursive: true })

// All permissions, baked into the executable. The collector needs network, read, write, env and
// sys anyway; what tips it is /proc/net/tcp (the reducer link's silence rule, docs/dead-links.md):
// Deno 2 opens nothing under /proc, /dev or /sys without --allow-all, whatever --allow-read says.
const args = [
  'compile', '--no-check', '--quiet',
  '--allow-all',
  `--v8-flags=${v8Flags.join(',')}`,
  '--output', output, bundle,
]
const run = spawnSync(deno, args, { encoding: 'utf8', env: process.env })
if (run.status !== 0) {
  const text = `${run.stderr ?? ''}${run.stdout ?? ''}`
  if (/error sending request|dns error|Connect/i.test(text) && !process.env.DENORT_BIN) {
    console.error(
      'compile: deno compile could not download its base runtime (denort) — no network to the Deno release downloads here. ' +
        'Set DENORT_BIN=/path/to/denort (from the denort zip of the same Deno version, ' +
        `${JSON.parse(spawnSync(deno, ['eval', 'console.log(JSON.stringify(Deno.version.deno))'], { encoding: 'utf8' }).stdout || '"?"')}), ` +
        'or build the offline single executable with `npm run compile:sea`.',
    )
  } else {
    console.error(`compile: deno compile failed:\n${text.trim()}`)
  }
  process.exit(1)
}
console.log(`compile: wrote ${output}`)
