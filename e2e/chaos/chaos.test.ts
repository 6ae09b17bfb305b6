// Issue 18: a two-minute seeded chaos soak as part of `npm test`: the built collector (the bundle
// on Node with its V8 flags) against the simulator and the tap under overlapping faults and churn.
// It fails on a failed checkpoint, a crash, an unclean SIGTERM exit or a false silent-peer alarm,
// never on a time.
import { describe, expect, it } from 'vitest'
import { computeFigures } from './figures.ts'
import { formatFigures } from './report.ts'
import { runSoak } from './soak.ts'

describe('chaos soak', () => {
  it('keeps the reducer exactly in step with the cluster through two minutes of seeded faults', async () => {
    const log: string[] = []
    const record = await runSoak({ minutes: 2, seed: 18, pods: 300, runtime: 'node', replicas: 1, log: (line) => void log.push(line) })
    const figures = computeFigures(record)
    const summary = `${log.join('\n')}\n\n${formatFigures(figures)}`
    expect(figures.faults.total, summary).toBeGreaterThan(0)
    expect(figures.checkpoints.total, summary).toBeGreaterThanOrEqual(2)
    expect(figures.verdict.why, summary).toEqual([])
  }, 600_000)
})
