// The benchmark sections `npm run bench` runs, in order.
import { benchCodec } from './codec.ts'
import { benchMatch } from './match.ts'
import type { BenchOptions, BenchSection } from './types.ts'

export const sections: Record<string, (opts: BenchOptions) => Promise<BenchSection>> = {
  codec: benchCodec,
  match: benchMatch,
}
