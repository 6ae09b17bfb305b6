// The benchmark sections `npm run bench` runs, in order.
import { benchCeiling, benchChurn, benchInformer, benchSync, benchWire } from './cluster.ts'
import { benchCodec } from './codec.ts'
import { benchDecode } from './decode.ts'
import { benchFailover } from './failover.ts'
import { benchHostile } from './hostile.ts'
import { benchMatch } from './match.ts'
import { benchMatchDeno } from './match-deno.ts'
import { benchReal } from './real.ts'
import type { BenchOptions, BenchSection } from './types.ts'

/** Sections that run only when `--only` names them: `real` starts a control plane and lasts ~1 h (quick: ~6 min). */
export const optInSections: ReadonlySet<string> = new Set(['real'])

export const sections: Record<string, (opts: BenchOptions) => Promise<BenchSection>> = {
  codec: benchCodec,
  match: benchMatch,
  'match-deno': benchMatchDeno,
  decode: benchDecode,
  ceiling: benchCeiling,
  informer: benchInformer,
  sync: benchSync,
  churn: benchChurn,
  wire: benchWire,
  failover: benchFailover,
  hostile: benchHostile,
  real: benchReal,
}
