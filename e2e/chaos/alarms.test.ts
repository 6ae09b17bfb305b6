// The soak's audit of silent-peer teardowns (issue 24 item 2): explained, after a reset, or false.
import { describe, expect, it } from 'vitest'
import { auditAlarms } from './alarms.ts'
import type { SoakRecord } from './figures.ts'

const MIN = 60_000

function record(injected: SoakRecord['injected'], teardowns: SoakRecord['replicas'][number]['silentTeardowns']): SoakRecord {
  return {
    options: { minutes: 10, seed: 1, pods: 10, runtime: 'node', replicas: 1 },
    startedAt: 0,
    endedAt: 10 * MIN,
    setupMs: 0,
    injected,
    checkpoints: [
      { cycle: 1, kinds: [], healedAt: 2 * MIN, passed: true, ms: 1_000, pods: 10 },
      { cycle: 2, kinds: [], healedAt: 6 * MIN, passed: true, ms: 1_000, pods: 10 },
    ],
    churn: {},
    replicas: [{ name: 'a', lives: [], logLines: {}, silentTeardowns: teardowns }],
    crashes: [],
    shutdown: [],
    faultErrors: [],
  }
}

describe('silent-peer audit', () => {
  it('explains a teardown by a silencing fault of its side until 60 s after the heal, and counts healthy minutes', () => {
    const r = record(
      [{ cycle: 1, kind: 'reducer-silent', side: 'reducer', at: 1 * MIN, endedAt: 1 * MIN, params: {} }],
      [
        { at: 1.5 * MIN, side: 'reducer', msg: 'during' },
        { at: 2.9 * MIN, side: 'reducer', msg: 'aftermath' },
        { at: 3.5 * MIN, side: 'reducer', msg: 'healthy' },
        { at: 1.5 * MIN, side: 'api', msg: 'other side' },
      ],
    )
    const audit = auditAlarms(r)
    expect(audit.teardowns).toEqual({ reducer: 3, api: 1 })
    expect(audit.falseAlarms.map((f) => f.msg)).toEqual(['healthy', 'other side'])
    // Silenced from 1 min to 3 min (heal at 2 min + 60 s): 8 healthy minutes of 10.
    expect(audit.healthyMinutes).toEqual({ reducer: 8, api: 10 })
  })

  it('keeps API teardowns after a reset of the watch connections apart from false alarms', () => {
    const r = record(
      [{ cycle: 2, kind: 'api-drop-watches', side: 'api', at: 5 * MIN, endedAt: 5 * MIN, params: { abrupt: true } }],
      [
        { at: 5.5 * MIN, side: 'api', msg: 'unseen reset' },
        { at: 8 * MIN, side: 'api', msg: 'healthy' },
      ],
    )
    const audit = auditAlarms(r)
    expect(audit.afterReset.map((f) => f.msg)).toEqual(['unseen reset'])
    expect(audit.falseAlarms.map((f) => f.msg)).toEqual(['healthy'])
    expect(audit.healthyMinutes.api).toBe(8)
  })
})
