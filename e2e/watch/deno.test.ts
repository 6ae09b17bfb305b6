// Proves the watch layer on Deno: runs deno-verdict.ts under `deno run --allow-all` and checks its verdict.
import { describe, expect, it } from 'vitest'
import { denoVerdict } from './deno-run.ts'

describe('watch layer on Deno', () => {
  it('syncs, watches, resumes after a clean end and a dropped connection, and aborts', () => {
    const { verdict, status } = denoVerdict('deno-verdict.ts')
    expect(String(verdict.runtime)).toMatch(/^deno /)
    expect(verdict).toMatchObject({
      synced: true,
      watchEvent: true,
      resumedFrom: ['10', '11', '12'],
      listClosed: true,
      events: ['init', 'initApply@9', 'initDone', 'apply@11', 'apply@12', 'delete@13'],
      abortEnded: true,
      socketClosed: true,
      stats: { watchRestarts: 2, errors: { reset: 1 }, phase: 'stopped' },
      ok: true,
    })
    expect(status).toBe(0)
  })
})
