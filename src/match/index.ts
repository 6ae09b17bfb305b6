// The matching core (docs/behaviour.md §3–§6): pure, deterministic, synchronous.
export { createCollectorCore } from './core.ts'
export type { CollectorCore, CoreConfig, CoreStats, Resolution, StreamName } from './types.ts'
