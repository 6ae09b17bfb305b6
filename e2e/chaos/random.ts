// The soak's seeded randomness: one generator per purpose and cycle, so that a seed replays the
// same faults and the same churn whatever the timing of a run did to the other draws.

/** A seeded source of uniform numbers in [0, 1) and the draws the soak makes from it. */
export interface Random {
  next(): number
  /** A whole number in [min, max]. */
  int(min: number, max: number): number
  /** A number in [min, max). */
  between(min: number, max: number): number
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
  /** A copy of `items` in a random order. */
  shuffle<T>(items: readonly T[]): T[]
}

/** 32-bit FNV-1a of a string: turns (seed, purpose, cycle) into a generator's state. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** The generator for `purpose` (e.g. `faults/3`) of the run seeded with `seed` (mulberry32). */
export function seeded(seed: number, purpose: string): Random {
  let state = hash(`${seed}/${purpose}`)
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const r: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    between: (min, max) => min + next() * (max - min),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick from an empty list')
      return items[Math.floor(next() * items.length)]!
    },
    shuffle: (items) => {
      const out = [...items]
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[out[i], out[j]] = [out[j]!, out[i]!]
      }
      return out
    },
  }
  return r
}
