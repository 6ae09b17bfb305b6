// The matching core (docs/behaviour.md §2–§6): pure, deterministic, synchronous.
export { createCollectorCore, type CollectorCore } from './core.ts'
export { kindCode, resolveOwner } from './resolve.ts'
export type { CoreConfig, CoreStats, Resolution, StreamName } from './types.ts'
