// `npm run build` says what it built in a few lines and warns about nothing (issue 20): the real
// build config, written to a temporary directory instead of dist/ (which other suites are using).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { root } from '../harness/process.ts'

const out = mkdtempSync(join(tmpdir(), 'k8s-collector-build-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

it('builds the bundle with a short summary and no warning', () => {
  const script = `import { build } from 'unbuild'
await build(${JSON.stringify(root)}, false, { hooks: { 'build:prepare'(ctx) { ctx.options.outDir = ${JSON.stringify(out)} } } })`
  // As from a shell: under test or CI, consola (unbuild's logger) would hide everything below warnings.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NODE_ENV|TEST|CI|VITEST.*)$/.test(k)))
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env, encoding: 'utf8', timeout: 170_000 })
  const output = (run.stdout + run.stderr).split('\n').filter((l) => l.trim())
  expect(run.status, output.join('\n')).toBe(0)
  expect(output.join('\n')).not.toMatch(/warn|unused|📦/i)
  expect(output.length, output.join('\n')).toBeLessThanOrEqual(5)
  expect(output.join('\n')).toContain('cli.mjs (total size:')
  expect(readFileSync(join(out, 'cli.mjs'), 'utf8').slice(0, 40)).toMatch(/^#!\/usr\/bin\/env -S node /)
}, 180_000)
