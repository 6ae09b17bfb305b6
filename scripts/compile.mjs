#!/usr/bin/env node
// `npm run compile`: the single self-contained executable, `deno compile` of dist/cli.mjs.
//
// deno compile appends the bundle to a base runtime ("denort") that it downloads for its own
// version unless DENORT_BIN names a local copy. Where neither works (no network), this script says
// so in one line and exits 1; `npm run compile:sea` builds an equivalent executable offline.
//
// deno compile embeds the package.json, node_modules and config it finds around the folder it runs
// in (300 MB from this repository), so the bundle is compiled alone in an empty temporary folder,
// with config discovery off: the executable holds the bundle and nothing else.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
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
const denort = process.env.DENORT_BIN ? resolve(process.env.DENORT_BIN) : undefined
if (denort && !existsSync(denort)) {
  console.error(`compile: DENORT_BIN=${process.env.DENORT_BIN} does not exist`)
  process.exit(1)
}
mkdirSync(dirname(output), { recursive: true })

// All permissions, baked into the executable. The collector needs network, read, write, env and
// sys anyway; what tips it is /proc/net/tcp (the reducer link's silence rule, docs/dead-links.md)
// and the cgroup memory limit under /sys/fs/cgroup: Deno 2 opens nothing under /proc, /dev or /sys
// without --allow-all, whatever --allow-read says. --no-code-cache: the executable would otherwise
// write a V8 code cache next to $TMPDIR on its first run; it writes nothing (a read-only root
// filesystem). Not --quiet: the "Files:" line below is what the executable embeds.
const args = [
  'compile', '--no-check', '--no-config', '--no-lock', '--no-code-cache',
  '--allow-all',
  `--v8-flags=${v8Flags.join(',')}`,
  '--output', output, 'cli.mjs',
]
const work = mkdtempSync(join(tmpdir(), 'k8s-collector-compile-'))
let run
try {
  copyFileSync(bundle, join(work, 'cli.mjs'))
  run = spawnSync(deno, args, { cwd: work, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...(denort ? { DENORT_BIN: denort } : {}) } })
} finally {
  rmSync(work, { recursive: true, force: true })
}
if (run.status !== 0) {
  const text = `${run.stderr ?? ''}${run.stdout ?? ''}`
  if (/error sending request|dns error|Connect/i.test(text) && !denort) {
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
// What deno compile reports it embedded ("Files: 2.28MB"), and the size beyond the base runtime when it is known.
const embedded = /^Files:\s*(\S+)/m.exec(`${run.stdout}\n${run.stderr}`)?.[1] ?? '?'
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`
const size = statSync(output).size
console.log(`compile: wrote ${output} (${mb(size)}; embedded files ${embedded}${denort ? `; ${mb(size - statSync(denort).size)} beyond the base runtime` : ''})`)
