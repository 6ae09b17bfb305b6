// The link against a reducer that goes silent, on fake time, with a scripted kernel probe playing
// the reducer's acknowledgements over real sockets (docs/behaviour.md §7, docs/dead-links.md).
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { IngestMessage } from '../ingest/index.ts'
import { logger } from '../observe/log.ts'
import { createRegistry } from '../observe/metrics.ts'
import { podNew } from '../../e2e/harness/tap-fixtures.ts'
import { fakeReducer, noisyContainer, runLink, scriptedProbe, type RunningLink, type ScriptedProbe } from '../../e2e/harness/link-fixtures.ts'
import type { LinkSession } from './events.ts'
import { KernelProbeError } from './proc-net-tcp.ts'

const warnings: string[] = []
beforeAll(() => {
  logger.level = 1
  logger.setReporters([{ log: (entry) => void (entry.type === 'warn' && warnings.push(entry.args.map(String).join(' '))) }])
})
afterEach(() => {
  warnings.length = 0
})

const HEARTBEAT = 2_000
const LIMIT = 20_000

const pod = (i: number): IngestMessage => podNew(`uid-${i}`, 'default', `web-${i}`, 0x0a000000 + i, { kind: 1, uid: 'd1', name: 'web' }, "'nginx:1.25'")

/** A link with the default heartbeat and silence limit, its probe and when each event came (fake ms since start). */
async function start(opts: { probe: ScriptedProbe; busy?: boolean; reads?: (i: number) => boolean }) {
  const r = await fakeReducer(opts.reads ? { reads: opts.reads } : {})
  const registry = createRegistry()
  let session: LinkSession | undefined
  const at: number[] = []
  const link: RunningLink = runLink(
    { host: '127.0.0.1', port: r.port, hostname: 'h', heartbeatIntervalMs: HEARTBEAT, peerSilentMs: LIMIT, backoffInitialMs: 1_000 },
    (ev) => {
      at.push(link.clock.now() - t0)
      session = ev.type === 'connected' ? ev.session : undefined
      if (ev.type === 'connected') ev.session.send([{ type: 'pod_resync', resyncCount: BigInt(ev.connection) }])
    },
    { probe: opts.probe, registry },
  )
  const t0 = link.clock.now()
  if (opts.busy) {
    // 50 changes a second on the fake clock, to whichever session is up.
    let n = 0
    const tick = (): void => {
      session?.send([pod(n++)])
      link.clock.setTimeout(tick, 20)
    }
    link.clock.setTimeout(tick, 20)
  }
  await link.event(0)
  return { r, link, at, registry, elapsed: () => link.clock.now() - t0 }
}

/** Advances a heartbeat at a time until event `index` or `maxMs` of fake time. */
async function until(link: RunningLink, index: number, maxMs: number): Promise<void> {
  for (let ms = 0; link.events.length <= index && ms < maxMs; ms += HEARTBEAT) await link.clock.advance(HEARTBEAT)
}

describe.each([
  ['quiet (heartbeats only)', false, 'prompt'],
  ['quiet (heartbeats only), acknowledged a heartbeat late until then', false, 'late'],
  ['busy (50 changes a second)', true, 'prompt'],
] as const)('reducer link: a reducer that goes silent, %s', (_, busy, kind) => {
  it('is dropped as peer_silent after the limit (and a quarter at most), counted, logged once with the evidence, then replaced', async () => {
    const probe = scriptedProbe({ kind })
    const { link, at, registry, elapsed } = await start({ probe, busy })
    await until(link, 99, 61_000)
    expect(link.events.map((e) => e.type)).toEqual(['connected'])
    const frozenAt = elapsed()
    probe.script = { kind: 'frozen' }
    await until(link, 1, LIMIT - HEARTBEAT)
    expect(link.events).toHaveLength(1)
    await until(link, 1, LIMIT / 4 + 4 * HEARTBEAT)
    const ended = link.events[1]
    expect(ended).toMatchObject({ type: 'disconnected', reason: { cause: 'peer_silent' } })
    // Timed from the first sample after the freeze (every heartbeat while bytes wait, else a quarter
    // of the limit later): at most limit + quarter + heartbeat after it.
    expect(at[1]! - frozenAt).toBeGreaterThanOrEqual(LIMIT)
    expect(at[1]! - frozenAt).toBeLessThanOrEqual(LIMIT + LIMIT / 4 + HEARTBEAT)
    const error = (ended as { reason: { error: Error } }).reason.error
    expect(error).toMatchObject({ name: 'PeerSilentError', silentMs: LIMIT, source: 'kernel', waiting: { socket: 0, queue: 0 } })
    expect((error as unknown as { waiting: { kernel: number } }).waiting.kernel).toBeGreaterThan(busy ? 10_000 : 100)
    expect(error.message).toMatch(/^the reducer acknowledged nothing for 20\.0 s: \d+ bytes wait in the kernel, 0 in the socket, 0 in the queue$/)
    expect(warnings.filter((w) => w.includes('peer_silent'))).toEqual([expect.stringContaining(error.message)])
    expect(registry.render()).toContain('k8s_collector_link_disconnects_total{cause="peer_silent"} 1')
    // The next connection is up after the backoff (≤ 1 s), and stays up with a live reducer.
    probe.script = { kind }
    await link.clock.advance(1_000)
    await link.event(2)
    expect(link.events[2]).toMatchObject({ type: 'connected', connection: 2 })
    await until(link, 3, 60_000)
    expect(link.events).toHaveLength(3)
  })
})

describe('reducer link: no false alarms (docs/behaviour.md §7)', () => {
  it.each([
    // Nothing waits at a sample: the next one comes a quarter of the limit later (~100 in 10 minutes).
    ['an idle link whose reducer acknowledges at once', { kind: 'prompt' } as const, false, 100],
    ['an idle link whose reducer acknowledges a whole heartbeat late', { kind: 'late' } as const, false, 300],
    ['a busy link whose reducer acknowledges 1 byte per heartbeat', { kind: 'slow', bytesPerSample: 1 } as const, true, 300],
  ])('keeps %s for 10 minutes', async (_, script, busy, samples) => {
    const probe = scriptedProbe(script)
    const { link } = await start({ probe, busy })
    await until(link, 1, 10 * 60_000)
    expect(link.events.map((e) => e.type)).toEqual(['connected'])
    expect(link.stats().disconnects).toMatchObject({ peer_silent: 0, buffer_overflow: 0 })
    expect(Math.abs(probe.samples - samples)).toBeLessThanOrEqual(1)
  })
})

describe('reducer link: without the kernel’s view (not Linux, /proc unreadable)', () => {
  it('says so once, then drops a reducer that stopped reading once the socket takes nothing for the limit', async () => {
    const probe = scriptedProbe()
    probe.unacknowledged = () => {
      throw new KernelProbeError('cannot read /proc/net/tcp: Requires all access')
    }
    const { link } = await start({ probe, reads: (i) => i > 0 })
    await link.clock.advance(HEARTBEAT)
    expect(warnings).toEqual([expect.stringMatching(/^cannot read the kernel's view of the reducer socket \(cannot read \/proc\/net\/tcp: Requires all access\)/)])
    // Far more than the kernel buffers of a loopback connection whose reader is stuck.
    const connected = link.events[0] as { session: LinkSession }
    for (let i = 0; i < 600; i++) connected.session.send([noisyContainer(i)])
    await until(link, 1, 10 * LIMIT)
    expect(link.events[1]).toMatchObject({ type: 'disconnected', reason: { cause: 'peer_silent', error: { source: 'socket' } } })
    await link.clock.advance(1_000)
    await link.event(2)
    await link.clock.advance(3 * HEARTBEAT)
    expect(warnings.filter((w) => w.startsWith('cannot read the kernel'))).toHaveLength(1)
  })
})
