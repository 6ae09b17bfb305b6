// The API silence rule on fake time (docs/behaviour.md §12): the three streams against a real HTTPS
// server that behaves as a kube-apiserver does — a watch's body ends at its timeoutSeconds, with
// bookmarks once a minute and 2 s before that end (or none at all: they are not guaranteed) — for
// 10 minutes, healthy or slow but live, count no teardown; a frozen server is torn down at the limit.
// Over HTTP/1.1 (the fake server's default); stream-ping.test.ts is the HTTP/2 twin.
// Fake time moves in 1 s steps, and between steps the test waits until the client has read all
// the server wrote and every stream's next request was answered, so silences are measured to 1 s.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFakeClock, type FakeClock } from '../../e2e/harness/fake-clock.ts'
import { collect } from '../../e2e/harness/collect.ts'
import { listBody, podObject, sendJson, startFakeApiServer, startWatchBody, type FakeApiServer, type WatchWriter } from '../../e2e/harness/fake-apiserver.ts'
import { emulateApiServer, PATHS, runStreams, STREAMS, type Behaviour, type Stream } from '../../e2e/harness/emulated-apiserver.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import { logger } from '../observe/log.ts'
import type { KubeClient } from './client.ts'
import { watchJobs, watchPods, watchReplicaSets, type WatchStream } from './stream.ts'

const LIMIT_MS = 30_000 // the default silence limit

let api: FakeApiServer
let clock: FakeClock
let ac: AbortController
let warnings: string[]
beforeEach(async () => {
  api = await startFakeApiServer()
  clock = createFakeClock()
  ac = new AbortController()
  warnings = []
  logger.level = 1
  logger.setReporters([{ log: (entry) => void (entry.type === 'warn' && warnings.push(entry.args.map(String).join(' '))) }])
})
afterEach(async () => {
  ac.abort()
  await api.close()
})

/** The three streams on fake time (jitter 0.5: watches ask for timeoutSeconds 17, backoffs are 400 ms). */
function startStreams(client: KubeClient): Record<Stream, WatchStream<unknown>> {
  const opts = { signal: ac.signal, clock, random: () => 0.5 }
  const streams = { pods: watchPods(client, opts), replicasets: watchReplicaSets(client, opts), jobs: watchJobs(client, opts) }
  for (const s of STREAMS) collect(streams[s] as WatchStream<unknown>)
  return streams
}

describe('the API silence rule over 10 minutes of a healthy idle cluster', () => {
  it.each<[string, Behaviour]>([
    ['bookmarks once a minute and 2 s before the end, as the cacher sends them', { bookmarkEveryMs: 60_000, bookmarkBeforeEnd: true, headersLateMs: 0, endLateMs: 0 }],
    ['no bookmark at all (none before the cacher saw an event)', { bookmarkBeforeEnd: false, headersLateMs: 0, endLateMs: 0 }],
    ['a slow but live server: headers 15 s late, every body ending 8 s late, no bookmark', { bookmarkBeforeEnd: false, headersLateMs: 15_000, endLateMs: 8_000 }],
  ])('%s: no request torn down', async (_, behaviour) => {
    const server = emulateApiServer(api, clock, behaviour)
    const streams = startStreams(api.client())
    await runStreams(clock, 600_000, server, streams)
    for (const s of STREAMS) {
      const st = streams[s].stats
      expect({ s, errors: st.errors, peer_silent: st.disconnects.peer_silent }).toEqual({ s, errors: {}, peer_silent: 0 })
      // Each watch asked for 17 s and was ended by the server: a new request every 17 to 40 s.
      expect(st.disconnects.peer_closed).toBeGreaterThanOrEqual(behaviour.headersLateMs ? 14 : 30)
      expect(api.requests.filter((r) => r.path === PATHS[s] && r.query.get('timeoutSeconds') === '17').length).toBe(st.disconnects.peer_closed + 1)
    }
    expect(warnings).toEqual([])
  }, 120_000)
})

describe('the API silence rule against a server that hangs', () => {
  it('tears every watch down 30 s after its last byte, logs it once with the evidence, and watches again through a new connection', async () => {
    const server = emulateApiServer(api, clock, { bookmarkEveryMs: 60_000, bookmarkBeforeEnd: true, headersLateMs: 0, endLateMs: 0 })
    const streams = startStreams(api.client())
    await runStreams(clock, 100_000, server, streams)
    server.freeze()
    const frozenAt = clock.now()
    const last = Object.fromEntries(STREAMS.map((s) => [s, { lastByteAt: server.log(s).lastByteAt, requests: server.log(s).received }]))
    await runStreams(clock, 40_000, server, streams)
    for (const s of STREAMS) {
      const st = streams[s].stats
      const { lastByteAt, requests } = last[s]!
      expect(st.disconnects.peer_silent).toBe(1)
      const tornDownAt = st.lastError!.atMs
      expect(tornDownAt - lastByteAt).toBeGreaterThanOrEqual(LIMIT_MS)
      expect(tornDownAt - lastByteAt).toBeLessThanOrEqual(LIMIT_MS + 1000)
      expect(tornDownAt - frozenAt).toBeLessThanOrEqual(LIMIT_MS + 1000)
      // The next request after the 400 ms backoff, on a new connection (the client keeps none alive).
      const next = server.log(s).receivedAt[requests]!
      expect(next - tornDownAt).toBeGreaterThanOrEqual(400)
      expect(next - tornDownAt).toBeLessThanOrEqual(1400)
      expect(server.log(s).open.size).toBe(1)
      expect(st.watchesOpened).toBe(server.log(s).answered)
    }
    expect(warnings).toHaveLength(3)
    for (const s of STREAMS) {
      const line = warnings.find((w) => w.startsWith(`${s} watch`))
      expect(line).toMatch(new RegExp(`^${s} watch from resourceVersion 100 \\(timeoutSeconds 17\\) torn down \\(peer_silent\\): the API server sent nothing for 30\\.\\d s; resuming from resourceVersion 100 in 400 ms$`))
    }
  }, 60_000)

  it('tears a LIST page that stalls mid-body down at the limit and fetches that page again', async () => {
    let stalled: WatchWriter | undefined
    api.script(
      PATHS.pods,
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'a', rv: 3 })], 10, 'page-2')),
      (_r, res) => {
        // Headers and half a body, then nothing: a server that hung mid-page.
        stalled = startWatchBody(res)
        stalled.raw('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[')
      },
      (_r, res) => sendJson(res, 200, listBody('PodList', [podObject({ name: 'b', rv: 4 })], 10)),
      (_r, res) => startWatchBody(res).bookmark(10),
    )
    const stream = watchPods(api.client({ streamingList: 'never' }), { signal: ac.signal, clock, random: () => 0.5 })
    const got = collect(stream)
    await api.waitForRequests(2)
    await waitFor('the half page to arrive', () => (stalled ? true : undefined))
    await clock.settle()
    await clock.advance(LIMIT_MS - 1)
    expect(stream.stats.errors).toEqual({})
    await clock.advance(1)
    await waitFor('the teardown', () => stream.stats.errors.peer_silent)
    await stalled!.closed
    await clock.advance(400)
    await got.until((e) => e.some((x) => x.type === 'initDone'))
    expect(got.events.map((e) => e.type)).toEqual(['init', 'initApply', 'initApply', 'initDone'])
    expect(api.requests[2]!.query.get('continue')).toBe('page-2')
    expect(stream.stats).toMatchObject({ disconnects: { peer_silent: 1 }, relists: { initial: 1, error: 0 } })
    expect(warnings).toEqual(['pods LIST continue page (limit 500) torn down (peer_silent): the API server sent nothing for 30.0 s; retrying the list page in 400 ms'])
  })
})
