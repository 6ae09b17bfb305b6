// The session's heartbeat: what it sends and its period on the injected clock (docs/behaviour.md §7:
// `heartbeat` + `collector_health(0, 0)` every interval; the reducer drops a connection silent for 30 s).
import type { IngestMessage } from '../ingest/index.ts'
import type { Clock, TimerHandle } from '../util/clock.ts'

/** What every heartbeat sends. */
export const HEARTBEAT_MESSAGES: readonly IngestMessage[] = [
  { type: 'heartbeat' },
  { type: 'collector_health', status: 0, detail: 0 },
]

export interface Heartbeat {
  /** No beat after this one. */
  stop(): void
}

/**
 * Calls `beat` every `intervalMs` on `clock` until stopped; the next beat is armed before `beat`
 * runs, so a beat may stop the heartbeat.
 */
export function startHeartbeat(clock: Clock, intervalMs: number, beat: () => void): Heartbeat {
  let timer: TimerHandle | undefined
  const tick = (): void => {
    timer = clock.setTimeout(tick, intervalMs)
    beat()
  }
  timer = clock.setTimeout(tick, intervalMs)
  return {
    stop() {
      clock.clearTimeout(timer)
      timer = undefined
    },
  }
}
