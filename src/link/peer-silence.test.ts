// The silence rule sample by sample, and the meter's fall-back to the socket-level rule.
import type { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createAckMeter, createSilenceRule, type AckSample } from './peer-silence.ts'
import { KernelProbeError, type KernelProbe } from './proc-net-tcp.ts'

const LIMIT = 20_000
const sample = (acked: number, inKernel: number, inSocket = 0): AckSample => ({ acked, inKernel, inSocket, source: 'kernel' })

/** Feeds one sample every 2 s from t = 0; returns the time of the first silence, if any. */
function run(samples: readonly AckSample[]): { at: number; silentMs: number } | undefined {
  const rule = createSilenceRule(LIMIT)
  for (let i = 0; i < samples.length; i++) {
    const silent = rule.observe(samples[i]!, i * 2_000)
    if (silent) return { at: i * 2_000, silentMs: silent.silentMs }
  }
  return undefined
}

const repeat = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i))

describe('the silence rule (docs/behaviour.md §7)', () => {
  it.each([
    ['an idle link whose heartbeats are acknowledged', repeat(300, (i) => sample(i * 50, 0))],
    ['acknowledgements a whole heartbeat late', repeat(300, (i) => sample(i * 50, 50))],
    ['a slow reader: 1 byte acknowledged per 2 s while megabytes wait', repeat(300, (i) => sample(i, 4_000_000 - i, 8_000_000))],
    ['a reducer that stalls for just under the limit, then reads', repeat(300, (i) => sample(Math.floor(i / 10) * 1_000, 5_000))],
    ['nothing acknowledged but nothing waiting either', repeat(300, () => sample(1_000, 0))],
  ])('never fires for %s (10 minutes)', (_, samples) => {
    expect(run(samples)).toBeUndefined()
  })

  it('fires once the acknowledged bytes have not moved for the limit while bytes wait, not before', () => {
    // Progress until t = 10 s, then nothing more acknowledged while heartbeats pile up.
    const samples = repeat(40, (i) => (i <= 5 ? sample(i * 50, 0) : sample(250, (i - 5) * 50)))
    expect(run(samples)).toEqual({ at: 10_000 + LIMIT, silentMs: LIMIT })
    expect(run(samples.slice(0, 15))).toBeUndefined()
  })

  it('wants a sample at every heartbeat while bytes wait, else a quarter of the limit after the last', () => {
    const rule = createSilenceRule(LIMIT)
    expect(rule.due(0)).toBe(true)
    rule.observe(sample(100, 0), 0)
    expect([rule.due(2_000), rule.due(4_999), rule.due(5_000)]).toEqual([false, false, true])
    rule.observe(sample(100, 28), 6_000)
    expect(rule.due(8_000)).toBe(true)
  })

  it('counts under the socket-level rule too: bytes in the socket that the kernel does not take', () => {
    const samples = repeat(40, (i) => ({ acked: 9_000, inKernel: 0, inSocket: 100 + i, source: 'socket' as const }))
    expect(run(samples)).toEqual({ at: LIMIT, silentMs: LIMIT })
  })
})

describe('the acknowledgement meter', () => {
  const socket = { writableLength: 300 } as Socket

  it('counts handed − in the socket − in the kernel', () => {
    const meter = createAckMeter({ unacknowledged: () => 700 }, () => expect.unreachable())
    expect(meter.sample(socket, 10_000)).toEqual({ acked: 9_000, inSocket: 300, inKernel: 700, source: 'kernel' })
  })

  it('falls back to the socket-level rule for good once the kernel’s view cannot be read, and says so once', () => {
    let calls = 0
    const probe: KernelProbe = {
      unacknowledged() {
        if (++calls === 2) throw new KernelProbeError('cannot read /proc/net/tcp: denied')
        return 700
      },
    }
    const told: string[] = []
    const meter = createAckMeter(probe, (err) => told.push(err.message))
    expect(meter.sample(socket, 10_000).source).toBe('kernel')
    expect(meter.sample(socket, 10_000)).toEqual({ acked: 9_700, inSocket: 300, inKernel: 0, source: 'socket' })
    expect(meter.sample(socket, 10_000).source).toBe('socket')
    expect(calls).toBe(2)
    expect(told).toEqual(['cannot read /proc/net/tcp: denied'])
  })

  it('lets any other failure through', () => {
    const meter = createAckMeter({ unacknowledged: () => { throw new TypeError('bug') } }, () => {})
    expect(() => meter.sample(socket, 1)).toThrow(TypeError)
  })
})
