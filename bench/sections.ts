// The benchmark sections `npm run bench` runs, in order.
import type { BenchOptions, BenchSection } from './types.ts'

export const sections: Record<string, (opts: BenchOptions) => Promise<BenchSection>> = {}
