// The HTTP/2 twin of stream-silence.test.ts (docs/dead-links.md §2): the three streams on fake
// time, over one real h2 connection through a TCP proxy, to a server that behaves as a
// kube-apiserver does. Healthy for 20 minutes: watches of [300, 600) s, no teardown, one
// connection, at most one watch request per stream per 5 minutes. The connection frozen (a peer
// that died hard): every stream fails with ping_timeout within 45 s of its last frame, logged once
// each, and watches again through a new connection. A server that speaks only HTTP/1.1: one
// warning line, and the short watches of before.
import { KubeConfig } from '@kubernetes/client-node'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { collect } from '../../e2e/harness/collect.ts'
import { emulateApiServer, PATHS, runStreams, STREAMS, type Behaviour, type EmulatedApiServer, type Stream } from '../../e2e/harness/emulated-apiserver.ts'
import { startFakeApiServer, type FakeApiServer } from '../../e2e/harness/fake-apiserver.ts'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { startTcpProxy, type TcpProxy } from '../../e2e/harness/tcp-proxy.ts'
import { kubeconfigFor } from '../../e2e/harness/test-pki.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import { logger } from '../observe/log.ts'
import { createKubeClient, type KubeClient } from './client.ts'
import { watchJobs, watchPods, watchReplicaSets, type WatchStream } from './stream.ts'

const CACHER: Behaviour = { bookmarkEveryMs: 60_000, bookmarkBeforeEnd: true, headersLateMs: 0, endLateMs: 0 }

let api: FakeApiServer
let proxy: TcpProxy
let clock: FakeClock
let ac: AbortController
let logged: Array<{ type: string; text: string }>
const warnings = (): string[] => logged.filter((l) => l.type === 'warn').map((l) => l.text)

async function start(http2: boolean): Promise<KubeClient> {
  api = await startFakeApiServer(undefined, { http2 })
  proxy = await startTcpProxy({ target: { port: Number(new URL(api.url).port) } })
  const kc = new KubeConfig()
  kc.loadFromString(kubeconfigFor(`https://127.0.0.1:${proxy.port}`, api.pki, { cert: true }))
  return createKubeClient({ kubeConfig: kc, clock })
}

beforeEach(() => {
  clock = createFakeClock()
  ac = new AbortController()
  logged = []
  logger.level = 3
  logger.setReporters([{ log: (entry) => void logged.push({ type: entry.type, text: entry.args.map(String).join(' ') }) }])
})
afterEach(async () => {
  ac.abort()
  await proxy?.close()
  await api?.close()
})

/** The three streams on fake time (jitter 0.5: watches ask for timeoutSeconds 450 over h2, 17 over HTTP/1.1; backoffs are 400 ms). */
function startStreams(client: KubeClient): Record<Stream, WatchStream<unknown>> {
  const opts = { signal: ac.signal, clock, random: () => 0.5 }
  const streams = { pods: watchPods(client, opts), replicasets: watchReplicaSets(client, opts), jobs: watchJobs(client, opts) }
  for (const s of STREAMS) collect(streams[s] as WatchStream<unknown>)
  return streams
}

/** No PING of `client` waits for its answer (the network is real, the clock fake). */
const answered = (client: KubeClient) => (): boolean => client.pings!.sent === client.pings!.answered + client.pings!.unanswered

/** Watch requests (streaming lists left out) each stream sent, by timeoutSeconds. */
function watchesBy(s: Stream): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of api.requests) {
    if (r.path !== PATHS[s] || r.query.get('sendInitialEvents') === 'true') continue
    const t = r.query.get('timeoutSeconds') ?? ''
    out[t] = (out[t] ?? 0) + 1
  }
  return out
}

describe('HTTP/2: 20 minutes of a healthy idle cluster', () => {
  it.each<[string, Behaviour]>([
    ['bookmarks once a minute and 2 s before the end, as the cacher sends them', CACHER],
    ['no bookmark at all: the PINGs keep the connection', { bookmarkBeforeEnd: false, headersLateMs: 0, endLateMs: 0 }],
    ['a slow but live server: headers 15 s late, every body ending 8 s late, no bookmark', { bookmarkBeforeEnd: false, headersLateMs: 15_000, endLateMs: 8_000 }],
  ])('%s: watches of 450 s, nothing torn down, one connection', async (_, behaviour) => {
    const client = await start(true)
    const server = emulateApiServer(api, clock, behaviour)
    const streams = startStreams(client)
    await runStreams(clock, 20 * 60_000, server, streams, answered(client))
    expect(client.protocol).toBe('h2')
    for (const s of STREAMS) {
      const st = streams[s].stats
      expect({ s, errors: st.errors, peer_silent: st.disconnects.peer_silent }).toEqual({ s, errors: {}, peer_silent: 0 })
      // Watches at 0, ~450 and ~900 s: at most one per stream per 5 minutes (the streaming list aside).
      expect(watchesBy(s)).toEqual({ '450': 3 })
      expect(st.watchesOpened - 1).toBeLessThanOrEqual(20 / 5)
    }
    expect(proxy.stats.opened).toBe(1)
    expect(warnings()).toEqual([])
    expect(logged.filter((l) => l.text.includes('HTTP/2'))).toHaveLength(1)
  }, 120_000)
})

describe('HTTP/2: a connection that freezes (a peer that died hard)', () => {
  /** Runs `ms` of fake time in 1 s steps; after each, every stream waits out a backoff or has its request answered. */
  async function runFrozen(ms: number, server: EmulatedApiServer, streams: Record<Stream, WatchStream<unknown>>): Promise<void> {
    for (let t = 0; t < ms; t += 1000) {
      await clock.advance(1000)
      await waitFor('the streams to settle', () => {
        const ok = STREAMS.every((s) => {
          const log = server.log(s)
          const st = streams[s].stats
          return st.phase === 'backoff' || log.received > log.answered || st.watchesOpened === log.answered
        })
        return ok ? true : undefined
      }, { timeoutMs: 10_000 })
    }
  }

  it('fails every stream with ping_timeout within 45 s of the last frame, logs it once each, and watches again through a new connection', async () => {
    const client = await start(true)
    const server = emulateApiServer(api, clock, CACHER)
    const streams = startStreams(client)
    await runStreams(clock, 100_000, server, streams, answered(client))
    expect(proxy.stats.opened).toBe(1)
    await proxy.setMode('freeze')
    const frozenAt = clock.now()
    const before = Object.fromEntries(STREAMS.map((s) => [s, server.log(s).received]))
    await runFrozen(50_000, server, streams)
    const failedAt = STREAMS.map((s) => streams[s].stats.lastError?.atMs ?? 0)
    for (const s of STREAMS) {
      const st = streams[s].stats
      expect({ s, errors: st.errors, disconnects: st.disconnects.peer_silent }).toEqual({ s, errors: { ping_timeout: 1 }, disconnects: 1 })
      // The same connection, so the same instant for all three; the next request 400 ms later, answered.
      expect(st.lastError!.atMs).toBe(failedAt[0])
      const next = server.log(s).receivedAt[before[s]!]!
      expect(next - st.lastError!.atMs).toBeGreaterThanOrEqual(400)
      expect(next - st.lastError!.atMs).toBeLessThanOrEqual(1400)
      expect(st.watchesOpened).toBe(server.log(s).answered)
      expect(st.phase).toBe('watching')
    }
    expect(failedAt[0]! - frozenAt).toBeGreaterThan(15_000)
    expect(failedAt[0]! - frozenAt).toBeLessThanOrEqual(45_000 + 1000)
    expect(proxy.stats.opened).toBe(2)
    expect(warnings()).toHaveLength(3)
    for (const s of STREAMS) {
      const line = warnings().find((w) => w.startsWith(`${s} watch`))
      expect(line).toMatch(
        new RegExp(
          `^${s} watch from resourceVersion 100 \\(timeoutSeconds 450\\) failed: 127\\.0\\.0\\.1:${proxy.port}: the API server did not answer an HTTP/2 PING ` +
            `\\(no answer within 15 s, nothing received for (3\\d|4[0-5])\\.\\d s\\); resuming from resourceVersion 100 in 400 ms$`,
        ),
      )
    }
  }, 60_000)
})

describe('a server that speaks only HTTP/1.1', () => {
  it('says so in one warning line and keeps the short watches of before', async () => {
    const client = await start(false)
    const server = emulateApiServer(api, clock, CACHER)
    const streams = startStreams(client)
    await runStreams(clock, 120_000, server, streams)
    expect(client.protocol).toBe('http/1.1')
    for (const s of STREAMS) {
      expect(streams[s].stats.errors).toEqual({})
      expect(Object.keys(watchesBy(s))).toEqual(['17'])
    }
    expect(warnings()).toEqual([
      `127.0.0.1:${proxy.port}: HTTP/1.1 (the server chose http/1.1 by ALPN, not h2); watches stay short (15 to 20 s) so that a dead API server is still found within a minute (docs/dead-links.md §2)`,
    ])
  }, 60_000)
})
