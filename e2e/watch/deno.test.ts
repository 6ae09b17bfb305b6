// Proves the watch layer on Deno: runs deno-verdict.ts under `deno run --allow-all` and checks its verdict.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const deno = join(root, 'node_modules', '.bin', 'deno')

describe('watch layer on Deno', () => {
  it('syncs, watches, resumes after a clean end and a dropped connection, and aborts', () => {
    const run = spawnSync(deno, ['run', '--allow-all', 'e2e/watch/deno-verdict.ts'], { cwd: root, encoding: 'utf8', timeout: 60_000 })
    const line = run.stdout.trim().split('\n').at(-1) ?? ''
    let verdict: Record<string, unknown>
    try {
      verdict = JSON.parse(line)
    } catch {
      throw new Error(`no verdict (exit ${run.status}): ${run.stdout}\n${run.stderr}`)
    }
    expect(String(verdict.runtime)).toMatch(/^deno /)
    expect(verdict).toMatchObject({
      synced: true,
      watchEvent: true,
      resumedFrom: ['10', '11', '12'],
      listClosed: true,
      events: ['init', 'initApply@9', 'initDone', 'apply@11', 'apply@12', 'delete@13'],
      abortEnded: true,
      socketClosed: true,
      stats: { watchRestarts: 2, errors: { network: 1 }, phase: 'stopped' },
      ok: true,
    })
    expect(run.status).toBe(0)
  })
})
