// The link reconnecting over real sockets: peer close, DNS per attempt, refused, timeout, backoff reset.
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Socket } from 'node:net'
import { logger } from '../observe/log.ts'
import { systemLookup, type Lookup } from './connect.ts'
import type { DisconnectReason, LinkOptions } from './config.ts'
import { startFakeReducer, types, type FakeReducer } from '../../e2e/harness/fake-reducer.ts'
import { createReducerLink, type LinkDeps, type ReducerLink } from './link.ts'

beforeAll(() => {
  logger.level = -999
})

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function reducer(opts?: Parameters<typeof startFakeReducer>[0]): Promise<FakeReducer> {
  const r = await startFakeReducer(opts)
  cleanups.push(() => r.close())
  return r
}

function running(options: LinkOptions, deps: LinkDeps = {}): ReducerLink & { stop(): Promise<void> } {
  const link = createReducerLink(options, deps)
  const ac = new AbortController()
  const done = link.run(ac.signal)
  const stop = async (): Promise<void> => {
    ac.abort()
    await done
  }
  cleanups.push(stop)
  return Object.assign(link, { stop })
}

/** Resolves when `pred()` holds, polling every few ms (for state only observable from outside). */
async function until(pred: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const start = Date.now()
  while (!pred()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
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
    const link = running({
      host: '127.0.0.1',
      port: r.port,
      hostname: 'h',
      ...fast,
      onSession(info) {
        events.push(`session ${info.connection}`)
        link.send([{ type: 'pod_resync', resyncCount: ++resync }])
      },
      onDisconnect(reason) {
        events.push(`disconnect ${reason.cause}`)
        reasons.push(reason)
      },
    })
    const first = await r.connection(0)
    await first.waitFor((m) => m.some((x) => x.type === 'pod_resync'), 5_000, 'resync 1')
    // The link writes nothing now (heartbeat a minute away), so only the socket can tell it.
    first.socket.destroy()
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
    const link = running({ host: 'localhost', port: r.port, hostname: 'h', ...fast }, { lookup })
    const first = await r.connection(0)
    await first.waitFor((m) => m.length >= 6, 5_000, 'handshake 1')
    expect(link.stats().connectErrors.dns).toBe(1)
    first.socket.destroy()
    const second = await r.connection(1)
    await second.waitFor((m) => m.length >= 6, 5_000, 'handshake 2')
    expect(asked).toEqual(['localhost', 'localhost', 'localhost'])
  })

  it('tries every resolved address in turn', async () => {
    const r = await reducer()
    const link = running(
      { host: 'reducer.example', port: r.port, hostname: 'h', ...fast },
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
    await until(() => link.stats().connectErrors.refused >= 2, 'two refused attempts')
    expect(link.state).not.toBe('connected')
    expect(link.send([{ type: 'heartbeat' }])).toBe(false)
    // A reducer appears on that port: the next attempt gets a session.
    const sockets: Socket[] = []
    const server = createServer((s) => void sockets.push(s.resume()))
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    cleanups.push(
      () =>
        new Promise((resolve) => {
          for (const s of sockets) s.destroy()
          server.close(() => resolve())
        }),
    )
    await until(() => link.state === 'connected', 'connected')
    expect(link.stats().droppedWhileDisconnected).toBe(1)
  })

  it('gives up an attempt after the connect timeout (resolve + connect)', async () => {
    const never: Lookup = () => new Promise(() => {})
    const link = running({ host: 'blackhole.example', port: 8000, hostname: 'h', connectTimeoutMs: 30, ...fast }, { lookup: never })
    await until(() => link.stats().connectErrors.timeout >= 2, 'two timeouts')
    expect(link.stats().connects).toBe(0)
  })

  it('grows the backoff across short sessions and resets it after a session that stayed up long enough', async () => {
    for (const [resetAfterMs, expected] of [
      [60_000, [0, 1, 2]],
      [0, [0, 1, 1]],
    ] as const) {
      const r = await reducer()
      const failures: number[] = []
      const link = running({
        host: '127.0.0.1',
        port: r.port,
        hostname: 'h',
        ...fast,
        backoffResetAfterMs: resetAfterMs,
        onSession: () => failures.push(link.stats().consecutiveFailures),
      })
      for (let i = 0; i < 3; i++) {
        const c = await r.connection(i)
        await c.waitFor((m) => m.length >= 6, 5_000, 'handshake')
        c.socket.destroy()
      }
      await until(() => failures.length === 3, 'three sessions')
      expect(failures).toEqual(expected)
      await link.stop()
    }
  })

  it('stops promptly when aborted while waiting to reconnect', async () => {
    const port = await freePort()
    const link = running({ host: '127.0.0.1', port, hostname: 'h', backoffInitialMs: 60_000, backoffMaxMs: 60_000 }, { random: () => 0.99 })
    await until(() => link.state === 'backoff', 'backoff')
    await link.stop()
    expect(link.state).toBe('stopped')
  })
})
