// `npm run compile` embeds the bundle and nothing else: compiled from this repository (package.json,
// 300 MB of node_modules around it) with the npm `deno` binary standing in for the base runtime
// (offline), the executable is at most 10 MB larger than that runtime.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { denoBin, root } from '../harness/process.ts'

const LIMIT_BYTES = 10e6

describe('npm run compile', () => {
  it('embeds the bundle alone, whatever folder it runs in', () => {
    if (!existsSync(join(root, 'dist', 'cli.mjs'))) throw new Error('dist/cli.mjs is missing: run `npm run build` first (npm test does)')
    expect(existsSync(join(root, 'node_modules'))).toBe(true) // what deno compile would pick up
    const dir = mkdtempSync(join(tmpdir(), 'compile-test-'))
    try {
      const out = join(dir, 'k8s-collector')
      const run = spawnSync(process.execPath, [join(root, 'scripts', 'compile.mjs')], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, DENORT_BIN: denoBin, K8S_COLLECTOR_COMPILE_OUT: out },
        timeout: 120_000,
      })
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0)
      // What deno compile reported, e.g. "embedded files 2.28MB".
      const reported = /embedded files ([\d.]+)(KB|MB|GB)/.exec(run.stdout)
      expect(reported, run.stdout).not.toBeNull()
      const reportedBytes = Number(reported![1]) * { KB: 1e3, MB: 1e6, GB: 1e9 }[reported![2] as 'KB' | 'MB' | 'GB']
      expect(reportedBytes).toBeLessThanOrEqual(LIMIT_BYTES)
      expect(statSync(out).size - statSync(denoBin).size).toBeLessThanOrEqual(LIMIT_BYTES)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 150_000)
})
