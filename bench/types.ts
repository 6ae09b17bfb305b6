// The shape every benchmark section returns to the `npm run bench` harness.

/** A goal a figure is held to (issue targets), e.g. framing overhead ≤ 20 %. */
export interface BenchTarget {
  readonly name: string
  readonly value: number
  readonly limit: number
  readonly op: '<=' | '>='
  readonly unit: string
}

/** One section of the benchmark report. */
export interface BenchSection {
  /** Short id, used in the results file name and the markdown table (e.g. `codec`). */
  readonly name: string
  /** Figures as printed: name → value (numbers carry their unit in the name, e.g. `encode_MBps`). */
  readonly figures: Record<string, number | string>
  readonly targets?: readonly BenchTarget[]
  readonly notes?: readonly string[]
}

export interface BenchOptions {
  /** Small sizes for a CI smoke run (the whole `--quick` run stays under two minutes). */
  readonly quick: boolean
}
