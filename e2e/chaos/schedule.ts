// The seeded schedule: per cycle, how long the storm lasts, which faults start when (they overlap),
// and how often the churn acts. The same seed gives the same schedule, cycle by cycle.
import type { FaultKind, FaultScope } from './faults.ts'
import { seeded, type Random } from './random.ts'

export interface PlannedFault {
  readonly kind: FaultKind
  /** When it starts, ms after the storm began. */
  readonly atMs: number
  readonly params: Record<string, number | string | boolean>
}

export interface CyclePlan {
  readonly cycle: number
  /** How long faults and churn run before the checkpoint, ms. */
  readonly stormMs: number
  readonly faults: readonly PlannedFault[]
  /** The churn's seeded draws for this cycle (which action, and the pause after it). */
  readonly churn: Random
}

export interface ScheduleOptions {
  readonly seed: number
  readonly scope: FaultScope
  /** Storm length range, ms. */
  readonly stormMs: readonly [number, number]
  /** Faults per storm. */
  readonly faultsPerStorm: readonly [number, number]
}

/**
 * The fault kinds come from a deck: every kind once, in a seeded order, then the next shuffle, so
 * that a run of k storms covers the kinds evenly rather than by chance.
 */
export function createSchedule(kinds: readonly FaultKind[], opts: ScheduleOptions): (cycle: number) => CyclePlan {
  const deck: FaultKind[] = []
  let shuffles = 0
  const draw = (): FaultKind => {
    if (deck.length === 0) deck.push(...seeded(opts.seed, `deck/${shuffles++}`).shuffle(kinds))
    return deck.shift()!
  }
  return (cycle) => {
    const rng = seeded(opts.seed, `cycle/${cycle}`)
    const stormMs = rng.int(opts.stormMs[0], opts.stormMs[1])
    const faults: PlannedFault[] = []
    for (let n = rng.int(opts.faultsPerStorm[0], opts.faultsPerStorm[1]); n > 0; n--) {
      const kind = draw()
      // Starts within the first 60 % of the storm, so that most faults are still on when others begin.
      faults.push({ kind, atMs: rng.int(0, Math.floor(0.6 * stormMs)), params: kind.draw(rng, opts.scope) })
    }
    faults.sort((a, b) => a.atMs - b.atMs)
    return { cycle, stormMs, faults, churn: seeded(opts.seed, `churn/${cycle}`) }
  }
}
