// Issue 24 item 2 in the soak: every link torn down as silent (`peer_silent`) must be explained by
// a fault that silenced that side; the rest are false alarms, counted against the healthy time.
// A teardown after the API server reset its connections is kept apart: the link was dead, but the
// collector should have seen the reset at once rather than 30 s later.
import type { SoakRecord } from './figures.ts'

export type Side = 'reducer' | 'api'

/** The faults that make a side's peer silent (frozen, stalled, partitioned): a teardown may follow. */
const SILENCING: Record<Side, readonly string[]> = {
  reducer: ['reducer-stall', 'reducer-silent'],
  api: ['api-stall', 'api-silent', 'api-partition'],
}

/** The faults after which the simulator resets the open watch connections (no silence, a close). */
const RESETTING = ['api-drop-watches', 'api-restart', 'api-throttle', 'api-errors']

/**
 * A silencing fault explains teardowns until this long after it ended or its cycle was healed,
 * whichever is later: the API rule fires 30 s after the last byte, the reducer's within 27 s, and
 * a frozen connection stays frozen past the heal until the rule finds it.
 */
const AFTERMATH_MS = 60_000

export interface AlarmAudit {
  /** Teardowns no fault explains. */
  readonly falseAlarms: Array<{ replica: string; at: number; side: Side; msg: string }>
  /** API teardowns within the aftermath of a reset of the watch connections and of no silencing fault: the reset went unseen. */
  readonly afterReset: Array<{ replica: string; at: number; msg: string }>
  /** Teardowns by side. */
  readonly teardowns: Record<Side, number>
  /** Minutes of the soak (after setup) with no silencing (API: nor resetting) fault of that side in force or in its aftermath. */
  readonly healthyMinutes: Record<Side, number>
}

/** The windows in which a teardown of `side` is explained, merged and sorted. */
function windowsOf(r: SoakRecord, kinds: readonly string[]): Array<[number, number]> {
  const healed = new Map(r.checkpoints.map((c) => [c.cycle, c.healedAt]))
  const windows = r.injected
    .filter((f) => kinds.includes(f.kind))
    .map((f): [number, number] => [f.at, Math.max(f.endedAt ?? r.endedAt, healed.get(f.cycle) ?? r.endedAt) + AFTERMATH_MS])
    .sort((a, b) => a[0] - b[0])
  const merged: Array<[number, number]> = []
  for (const w of windows) {
    const last = merged.at(-1)
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1])
    else merged.push([...w])
  }
  return merged
}

/** Audits the silent-peer teardowns of a finished soak. */
export function auditAlarms(r: SoakRecord): AlarmAudit {
  const from = r.startedAt + r.setupMs
  const falseAlarms: AlarmAudit['falseAlarms'] = []
  const afterReset: AlarmAudit['afterReset'] = []
  const resets = windowsOf(r, RESETTING)
  const within = (windows: Array<[number, number]>, at: number) => windows.some(([a, b]) => a <= at && at <= b)
  const teardowns: Record<Side, number> = { reducer: 0, api: 0 }
  const healthyMinutes: Record<Side, number> = { reducer: 0, api: 0 }
  for (const side of ['reducer', 'api'] as const) {
    const windows = windowsOf(r, SILENCING[side])
    let faultyMs = 0
    for (const [a, b] of windowsOf(r, side === 'api' ? [...SILENCING.api, ...RESETTING] : SILENCING.reducer)) faultyMs += Math.max(0, Math.min(b, r.endedAt) - Math.max(a, from))
    healthyMinutes[side] = Math.round(((r.endedAt - from - faultyMs) / 60_000) * 10) / 10
    for (const x of r.replicas) {
      for (const t of x.silentTeardowns) {
        if (t.side !== side) continue
        teardowns[side]++
        if (within(windows, t.at)) continue
        if (side === 'api' && within(resets, t.at)) afterReset.push({ replica: x.name, at: t.at, msg: t.msg })
        else falseAlarms.push({ replica: x.name, at: t.at, side, msg: t.msg })
      }
    }
  }
  return { falseAlarms, afterReset, teardowns, healthyMinutes }
}
