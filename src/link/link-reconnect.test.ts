// The link reconnecting over real sockets, on fake time: peer close, DNS per attempt, refused,
// timeout, backoff growth and reset.
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { createServer, type Socket } from 'node:net'
import { logger } from '../observe/log.ts'
import { systemLookup, type Lookup } from './connect.ts'
import type { DisconnectReason } from './events.ts'
import { types } from '../../e2e/harness/fake-reducer.ts'
import { fakeReducer as reducer, runLink as running } from '../../e2e/harness/link-fixtures.ts'
import { waitFor } from '../../e2e/harness/wait.ts'

beforeAll(() => {
  logger.level = -999
})

/** Polls `pred` (state only observable from outside) until it holds. */
const until = (pred: () => boolean, what: string): Promise<true> => waitFor(what, () => pred() || undefined, { timeoutMs: 5_000 })

/** Accepts (and reads) connections on `port` until the test ends. */
async function listen(port: number): Promise<void> {
  const sockets: Socket[] = []
  const server = createServer((s) => void sockets.push(s.resume()))
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  onTestFinished(
    () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  )
}

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

const fast = { backoffInitialMs: 20, backoffMaxMs: 40, heartbeatIntervalMs: 60_000 }

describe('reducer link: reconnecting (docs/behaviour.md §7)', () => {
  it('notices at once when the reducer closes the connection and reconnects with a new handshake', async () => {
    const r = await reducer()
    const events: string[] = []
    const reasons: DisconnectReason[] = []
    let resync = 0n
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', ...fast }, (ev) => {
      if (ev.type === 'connected') {
        events.push(`session ${ev.connection}`)
        ev.session.send([{ type: 'pod_resync', resyncCount: ++resync }])
      } else if (ev.type === 'disconnected') {
        events.push(`disconnect ${ev.reason.cause}`)
        reasons.push(ev.reason)
      }
    })
    await link.event(0)
    await link.clock.advance(100)
    const first = await r.connection(0)
    await first.waitFor((m) => m.some((x) => x.type === 'pod_resync'), 5_000, 'resync 1')
    // The link writes nothing now (heartbeat a minute away), so only the socket can tell it.
    first.socket.destroy()
    await link.event(1)
    await link.clock.advance(fast.backoffMaxMs)
    await link.event(2)
    await link.clock.advance(100)
    const second = await r.connection(1)
    await second.waitFor((m) => m.some((x) => x.type === 'pod_resync'), 5_000, 'resync 2')
    expect(types(second.messages)).toEqual([
      'version_info',
      'connect',
      'report_cpu_cores',
      'cloud_platform',
      'set_node_info',
      'metadata_complete',
      'pod_resync',
    ])
    expect(second.messages.at(-1)).toMatchObject({ resyncCount: 2n })
    expect(events).toEqual(['session 1', 'disconnect peer_closed', 'session 2'])
    expect(reasons[0]!.error?.name).toBe('ConnectionLostError')
    expect(link.stats()).toMatchObject({ connects: 2, reconnects: 1, state: 'connected' })
    expect(link.stats().disconnects.peer_closed).toBe(1)
  })

  it('resolves a DNS name on every attempt (injected lookup) and retries failed lookups', async () => {
    const r = await reducer()
    const asked: string[] = []
    let failNext = 1
    const lookup: Lookup = async (host) => {
      asked.push(host)
      if (failNext > 0) {
        failNext--
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
      }
      return systemLookup(host)
    }
    const link = running({ host: 'localhost', port: r.port, hostname: 'h', ...fast }, undefined, { lookup })
    await until(() => link.state === 'backoff', 'the failed lookup')
    await link.clock.advance(fast.backoffMaxMs)
    const first = await r.connection(0)
    await first.waitFor((m) => m.length >= 6, 5_000, 'handshake 1')
    expect(link.stats().connectErrors.dns).toBe(1)
    expect(link.events[0]).toMatchObject({ type: 'connectFailed', cause: 'dns', target: `localhost:${r.port}`, error: { name: 'DnsLookupError' } })
    first.socket.destroy()
    expect(await link.event(2)).toMatchObject({ type: 'disconnected' })
    await link.clock.advance(fast.backoffMaxMs)
    const second = await r.connection(1)
    await second.waitFor((m) => m.length >= 6, 5_000, 'handshake 2')
    expect(asked).toEqual(['localhost', 'localhost', 'localhost'])
  })

  it('tries every resolved address in turn', async () => {
    const r = await reducer()
    const link = running(
      { host: 'reducer.example', port: r.port, hostname: 'h', ...fast },
      undefined,
      // ::1 is refused (nothing listens there on this port, or no IPv6 at all), 127.0.0.1 accepts.
      { lookup: async () => [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }] },
    )
    await (await r.connection(0)).waitFor((m) => m.length >= 6, 5_000, 'handshake')
    // Only a whole attempt failing counts as a connect error.
    expect(link.stats().connectErrors).toMatchObject({ dns: 0, refused: 0, unreachable: 0, other: 0 })
  })

  it('counts refused connections and keeps retrying until the reducer is up', async () => {
    const port = await freePort()
    const link = running({ host: '127.0.0.1', port, hostname: 'h', ...fast })
    await until(() => link.stats().connectErrors.refused >= 1, 'a refused attempt')
    await link.clock.advance(fast.backoffMaxMs)
    await until(() => link.stats().connectErrors.refused >= 2, 'two refused attempts')
    expect(link.state).not.toBe('connected')
    expect(link.send([{ type: 'heartbeat' }])).toBe(false)
    // A reducer appears on that port: the next attempt gets a session.
    await listen(port)
    await until(() => link.state === 'backoff', 'waiting to retry')
    await link.clock.advance(fast.backoffMaxMs)
    await until(() => link.state === 'connected', 'connected')
    expect(link.stats().droppedWhileDisconnected).toBe(1)
  })

  it('gives up an attempt after the connect timeout (resolve + connect)', async () => {
    const never: Lookup = () => new Promise(() => {})
    // The jitter is fixed: a drawn delay of 0 would let the same advance() run the retry too, and
    // the link would be connecting again, not in backoff (1 run in 20 with Math.random).
    const link = running({ host: 'blackhole.example', port: 8000, hostname: 'h', connectTimeoutMs: 30, ...fast }, undefined, {
      lookup: never,
      random: () => 0.5,
    })
    // The attempt's timer starts once the link has begun it (real promise turns, however slow the machine).
    await until(() => link.state === 'connecting' && link.clock.pending > 0, 'the attempt started')
    await link.clock.advance(29)
    expect(link.stats().connectErrors.timeout).toBe(0)
    await link.clock.advance(1)
    // Time stands still on the fake clock, so the link cannot pass beyond backoff while this waits.
    await until(() => link.state === 'backoff', 'backoff after the timeout')
    expect(link.stats().connectErrors.timeout).toBe(1)
    // The backoff and the next attempt's timeout (the first attempt checked it to the ms): time
    // moves in steps, so an attempt begun late (promise turns on a loaded machine) still times out.
    const start = link.clock.now()
    await waitFor(
      'two timeouts within 1 s of fake time',
      async () => {
        if (link.stats().connectErrors.timeout >= 2) return true
        if (link.clock.now() - start < 1_000) await link.clock.advance(5)
        return undefined
      },
      { timeoutMs: 5_000 },
    )
    expect(link.stats().connects).toBe(0)
  })

  it('grows the backoff across short sessions and resets it after a session that stayed up long enough', async () => {
    for (const [resetAfterMs, expected] of [
      [60_000, [0, 1, 2]],
      [0, [0, 1, 1]],
    ] as const) {
      const r = await reducer()
      const failures: number[] = []
      const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h', ...fast, backoffResetAfterMs: resetAfterMs }, (ev) => {
        if (ev.type === 'connected') failures.push(link.stats().consecutiveFailures)
      })
      for (let i = 0; i < 3; i++) {
        const c = await r.connection(i)
        await c.waitFor((m) => m.length >= 6, 5_000, 'handshake')
        c.socket.destroy()
        await link.event(2 * i + 1)
        if (i < 2) await link.clock.advance(fast.backoffMaxMs)
      }
      await until(() => failures.length === 3, 'three sessions')
      expect(failures).toEqual(expected)
      await link.stop()
    }
  })

  it('waits 1 s → 30 s before reconnecting (full jitter), starting over after a session that stayed up 2 minutes', async () => {
    const r = await reducer()
    // random just below 1: every delay is its ceiling less 1 ms.
    const link = running({ host: '127.0.0.1', port: r.port, hostname: 'h' }, undefined, { random: () => 0.999_999 })
    let sessions = 0
    /** Ends the current session after `upMs`, then checks that the next attempt comes `delayMs` later, not before. */
    async function reconnectsAfter(upMs: number, delayMs: number): Promise<void> {
      await link.event(2 * sessions)
      await link.clock.advance(upMs)
      r.connections[sessions]!.socket.destroy()
      await link.event(2 * sessions + 1)
      sessions++
      await link.clock.advance(delayMs - 1)
      expect(link.state).toBe('backoff')
      await link.clock.advance(1)
      expect(link.state).not.toBe('backoff')
    }
    for (const delayMs of [999, 1_999, 3_999, 7_999, 15_999, 29_999, 29_999]) await reconnectsAfter(0, delayMs)
    await reconnectsAfter(119_999, 29_999)
    await reconnectsAfter(120_000, 999)
    expect(link.stats().connectErrors).toMatchObject({ refused: 0, timeout: 0 })
  })

  it('stops promptly when aborted while waiting to reconnect', async () => {
    const port = await freePort()
    const link = running({ host: '127.0.0.1', port, hostname: 'h', backoffInitialMs: 60_000, backoffMaxMs: 60_000 }, undefined, { random: () => 0.99 })
    await until(() => link.state === 'backoff', 'backoff')
    await link.stop()
    expect(link.state).toBe('stopped')
  })
})
