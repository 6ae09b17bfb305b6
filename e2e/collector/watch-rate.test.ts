// Issue 34 item 3: the watch requests of an idle collector, read from its own metrics
// (k8s_collector_watch_requests_total), against the simulator over HTTP/2 and over HTTP/1.1
// (--http1-only), for 30 minutes of fake time: the collector's streams, client and registry as
// `run` builds them, the simulator's watch deadlines and bookmarks on the same fake clock, real
// TLS sockets in between (docs/dead-links.md §2, bench/README.md "Watch request rate").
import { KubeConfig } from '@kubernetes/client-node'
import { describe, expect, it } from 'vitest'
import { createKubeStreams } from '../../src/collector/streams.ts'
import { createKubeClient } from '../../src/kube/index.ts'
import { createModelContext } from '../../src/model/index.ts'
import { createRegistry } from '../../src/observe/metrics.ts'
import { createFakeClock } from '../harness/fake-clock.ts'
import { metric } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { startSimulator } from '../sim/index.ts'

const STREAMS = ['pods', 'replicasets', 'jobs'] as const
const MINUTES = 30

describe.each([
  ['HTTP/2', false],
  ['HTTP/1.1', true],
])('an idle collector against the simulator over %s', (protocol, http1Only) => {
  it(`sends its watch requests at the protocol's rate for ${MINUTES} minutes, none failing`, async ({ onTestFinished }) => {
    const clock = createFakeClock()
    const sim = await startSimulator({ nodes: 1, controllers: false, clock, http1Only })
    onTestFinished(() => sim.close())
    sim.bulk.createPods(30, { containers: 1 })
    sim.bulk.createReplicaSets(3, { deployment: 'api' })
    sim.bulk.createJobs(2, { cronJob: 'nightly' })
    const kc = new KubeConfig()
    kc.loadFromString(sim.kubeconfig())
    const client = createKubeClient({ kubeConfig: kc, clock })
    const registry = createRegistry()
    const ac = new AbortController()
    onTestFinished(() => ac.abort())
    const streams = createKubeStreams({ client, registry, signal: ac.signal, model: createModelContext(), clock })
    for (const s of STREAMS) void (async () => { for await (const _ of streams[s]); })()

    const read = (name: string, labels: string): number => metric(registry.render(), name, labels) ?? 0
    const requests = () => Object.fromEntries(STREAMS.map((s) => [s, read('k8s_collector_watch_requests_total', `stream="${s}"`)]))
    // Settled: the server holding the three streams' watches (an ended one was asked for again), no PING waiting for its answer.
    const settled = (): true | undefined => {
      const pings = client.pings!
      return sim.stats.watchesOpen === 3 && pings.sent === pings.answered + pings.unanswered ? true : undefined
    }
    // Synced: each stream's streaming list and first watch sent (both count as watch requests).
    await waitFor('the three streams to sync and watch', () => (STREAMS.every((s) => requests()[s]! >= 2) ? settled() : undefined), { timeoutMs: 20_000 })
    const start = requests()
    for (let t = 0; t < MINUTES * 60_000; t += 1000) {
      await clock.advance(1000)
      await waitFor('the streams to settle', settled, { timeoutMs: 10_000, describe: () => ({ watchesOpen: sim.stats.watchesOpen, pings: client.pings }) })
    }
    const end = requests()
    const sent = Object.fromEntries(STREAMS.map((s) => [s, end[s]! - start[s]!]))
    console.log(`${protocol}: watch requests per stream in ${MINUTES} min of an idle cluster:`, sent, 'pings', client.pings)
    expect(client.protocol).toBe(http1Only ? 'http/1.1' : 'h2')
    expect(read('k8s_collector_api_http2', '')).toBe(http1Only ? 0 : 1)
    for (const s of STREAMS) {
      expect(read('k8s_collector_watch_relists_total', `stream="${s}",cause="initial"`)).toBe(1)
      expect(Object.fromEntries(STREAMS.map((x) => [x, read('k8s_collector_watch_disconnects_total', `stream="${x}",cause="peer_silent"`)]))).toEqual({ pods: 0, replicasets: 0, jobs: 0 })
      if (http1Only) {
        // [15, 20) s each: about 100 in 30 minutes.
        expect(sent[s]).toBeGreaterThanOrEqual((MINUTES * 60) / 20)
      } else {
        // [300, 600) s each: at most one per stream per 5 minutes, at least one per 10.
        expect(sent[s]).toBeLessThanOrEqual(MINUTES / 5)
        expect(sent[s]).toBeGreaterThanOrEqual(MINUTES / 10)
      }
    }
    if (!http1Only) {
      expect(read('k8s_collector_api_pings_total', 'outcome="unanswered"')).toBe(0)
      expect(read('k8s_collector_api_pings_total', 'outcome="answered"')).toBeGreaterThan(0)
    }
  }, 240_000)
})
