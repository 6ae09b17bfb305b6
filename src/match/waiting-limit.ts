// The waiting limit (docs/behaviour.md §6): when too many pods wait for their owners, the core
// asks for a relist of both owner streams and, once both are done, starts a new epoch. Forced
// resyncs back off (doubling, up to a maximum) while the condition persists.
import type { OwnerKind } from '../model/index.ts'
import type { CoreConfig } from './types.ts'

export interface WaitingLimit {
  /** With `waiting` pods waiting at `now`: asks for an owner relist when one is due. */
  check(waiting: number, now: number): void
  /** True once after a relist was asked for: the I/O layer relists both owner streams. */
  takeRelistRequest(): boolean
  /** An owner stream finished a relist (or turned out unavailable); true when that completes a forced resync. */
  relisted(kind: OwnerKind): boolean
  /** When the next forced resync may start, with `waiting` pods waiting; undefined when none is due. */
  nextAt(waiting: number): number | undefined
  /** Forced resyncs completed. */
  readonly count: number
}

type Phase = { readonly phase: 'idle' } | { readonly phase: 'relisting'; readonly pending: Set<OwnerKind> }

export function createWaitingLimit(config: CoreConfig): WaitingLimit {
  const minInterval = config.forcedResyncMinIntervalMs ?? 60_000
  const maxInterval = config.forcedResyncMaxIntervalMs ?? 600_000
  let phase: Phase = { phase: 'idle' }
  let interval = minInterval
  let next = -Infinity
  let count = 0
  let requested = false

  return {
    check(waiting, now) {
      if (waiting < config.waitingLimit) {
        if (phase.phase === 'idle') interval = minInterval
        return
      }
      if (phase.phase !== 'idle' || now < next) return
      phase = { phase: 'relisting', pending: new Set<OwnerKind>(['ReplicaSet', 'Job']) }
      requested = true
      next = now + interval
      interval = Math.min(interval * 2, maxInterval)
    },
    takeRelistRequest() {
      const r = requested
      requested = false
      return r
    },
    relisted(kind) {
      if (phase.phase !== 'relisting') return false
      phase.pending.delete(kind)
      if (phase.pending.size > 0) return false
      phase = { phase: 'idle' }
      count++
      return true
    },
    nextAt: (waiting) => (waiting >= config.waitingLimit && phase.phase === 'idle' ? next : undefined),
    get count() {
      return count
    },
  }
}
