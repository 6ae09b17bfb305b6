// Issue 24, the API side: an API server that goes silent (every connection open at that moment
// frozen by a proxy: kept open, nothing forwarded) while new connections are served. The built
// collector (dist/cli.mjs on Node and on Deno) finds its three watches dead and has every stream
// working again through new connections within 60 s, in a quiet cluster (the simulator's bookmarks
// at the real server's 60 s) and a busy one (pods churning); docs/behaviour.md §12. Over HTTP/1.1
// (the simulator with http1Only) the silence rule tears each watch down; over HTTP/2 (issue 34)
// the shared connection's unanswered PING fails all three (docs/dead-links.md §2).
// The limit is 10 s here (real time); the rules are the ones of the 30 s default.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it, type TestContext } from 'vitest'
import { startTap } from '../../src/tap/index.ts'
import { converged, openConnection } from '../harness/expect.ts'
import { metric, RUNTIMES, startCollector } from '../harness/process.ts'
import { startTcpProxy } from '../harness/tcp-proxy.ts'
import { waitFor } from '../harness/wait.ts'
import { startSimulator } from '../sim/index.ts'

const STREAMS = ['pods', 'replicasets', 'jobs'] as const
const LIMIT_SECS = 10
const container = (name: string, image: string) => ({ name, image })

/** A Deployment and a Job named `name`: their pods reach the tap with their owners only if all three streams work. */
function createOwners(sim: Awaited<ReturnType<typeof startSimulator>>, name: string): void {
  const template = { metadata: { labels: { app: name } }, spec: { containers: [container('app', 'app:1')] } }
  sim.create('deployments', { metadata: { name, namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template } })
  sim.create('jobs', { metadata: { name: `${name}-job`, namespace: 'default' }, spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } } })
}

/** Cleanups go to the test's own context: these tests run concurrently. */
type Finished = TestContext['onTestFinished']

async function setUp(finished: Finished, runtime: string, hostname: string, http1Only: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'kc-deadapi-'))
  finished(() => rmSync(dir, { recursive: true, force: true }))
  const sim = await startSimulator({ nodes: 2, jobRunMs: 600_000, http1Only }) // bookmarks every 60 s, as a real server
  finished(() => sim.close())
  const simPort = Number(new URL(sim.url).port)
  const proxy = await startTcpProxy({ target: { port: simPort } })
  finished(() => proxy.close())
  const kubeconfig = join(dir, 'kubeconfig')
  writeFileSync(kubeconfig, sim.kubeconfig().replace(`127.0.0.1:${simPort}`, `127.0.0.1:${proxy.port}`))
  const tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
  finished(() => tap.close())
  createOwners(sim, 'before')
  const collector = await startCollector(RUNTIMES[runtime]!, {
    kubeconfig,
    intakePort: tap.tcpPort,
    hostname,
    extraArgs: ['--api-silence-limit-secs', String(LIMIT_SECS)],
  })
  finished(() => void (collector.child.exitCode === null && collector.child.kill('SIGKILL')))
  const read = async () => ({ cluster: { pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') }, tap: tap.state() })
  const perStream = async (name: string, label: string) => {
    const text = await collector.metrics()
    return Object.fromEntries(STREAMS.map((s) => [s, metric(text, name, label ? `stream="${s}",${label}` : `stream="${s}"`) ?? 0]))
  }
  const count = (cause: string) => perStream('k8s_collector_watch_disconnects_total', `cause="${cause}"`)
  return { sim, proxy, tap, collector, read, count, perStream }
}

describe.concurrent.each(['node', 'deno'])('collector on %s against an API server that goes silent', (runtime) => {
  describe.each([
    ['over HTTP/2', false],
    ['over HTTP/1.1', true],
  ])('%s', (_protocol, http1Only) => describe.each([
    ['quiet (only bookmarks)', false],
    ['busy (pods churning)', true],
  ])('%s', (_, busy) => {
    it('every stream is found dead (peer_silent), logged once, and working again through a new connection within 60 s', async ({ expect, onTestFinished }) => {
      const hostname = `deadapi-${runtime}-${http1Only ? 'h1' : 'h2'}-${busy ? 'busy' : 'quiet'}`
      const { sim, proxy, tap, collector, read, count, perStream } = await setUp(onTestFinished, runtime, hostname, http1Only)
      const stderr = () => collector.stderr()
      await converged(read, hostname, 60_000).catch((err: Error) => {
        throw new Error(`${err.message}\ncollector stderr (tail):\n${stderr().slice(-3000)}`)
      })
      let churned = 0
      if (busy) {
        const churn = setInterval(() => {
          sim.create('pods', { metadata: { name: `churn-${churned}`, namespace: 'default' }, spec: { containers: [container('c', 'c:1')] } })
          if (churned >= 10) sim.delete('pods', 'default', `churn-${churned - 10}`)
          churned++
        }, 200)
        onTestFinished(() => clearInterval(churn))
      }
      // The protocol, said once: one shared HTTP/2 connection, or HTTP/1.1 and why.
      const protocolLines = () => stderr().split('\n').filter((l) => l.includes('HTTP/2, one connection checked by PING') || l.includes('HTTP/1.1 (the server chose'))
      expect(protocolLines()).toHaveLength(1)
      expect(protocolLines()[0]).toContain(http1Only ? 'HTTP/1.1 (the server chose http/1.1 by ALPN, not h2); watches stay short' : `HTTP/2, one connection checked by PING after ${LIMIT_SECS} s`)
      expect(metric(await collector.metrics(), 'k8s_collector_api_http2')).toBe(http1Only ? 0 : 1)
      if (http1Only) {
        // Healthy watches at this limit (timeoutSeconds 5) cycle: each stream saw the server end one, and none was torn down.
        await waitFor('every stream to see a watch ended by the server', async () => {
          const closed = await count('peer_closed')
          return STREAMS.every((s) => closed[s]! >= 1) ? closed : undefined
        }, { timeoutMs: 30_000 })
      } else {
        // Watches of 5 to 10 minutes on one connection (after the streaming lists), checked by a PING after 10 s without a frame.
        await waitFor('every stream to watch', async () => {
          const n = await perStream('k8s_collector_watch_requests_total', '')
          return STREAMS.every((s) => n[s]! >= 2) ? n : undefined
        }, { timeoutMs: 30_000 })
        if (!busy) await waitFor('a PING answered', async () => ((metric(await collector.metrics(), 'k8s_collector_api_pings_total', 'outcome="answered"') ?? 0) >= 1 ? true : undefined), { timeoutMs: 30_000 })
        expect(await count('peer_closed')).toEqual({ pods: 0, replicasets: 0, jobs: 0 })
      }
      expect(await count('peer_silent')).toEqual({ pods: 0, replicasets: 0, jobs: 0 })

      // Freeze while the three watches are open (over HTTP/1.1 each is re-opened within milliseconds every 5 s).
      await waitFor('three open watches', () => (sim.stats.watchesOpen === 3 ? true : undefined), { intervalMs: 1 })
      await proxy.setMode('freeze')
      const frozenAt = Date.now()
      const frozen = proxy.connections().filter((c) => c.state === 'frozen').map((c) => c.id)
      const left = () => 60_000 - (Date.now() - frozenAt)
      // A connection per watch over HTTP/1.1; one for all over HTTP/2.
      if (http1Only) expect(frozen.length).toBeGreaterThanOrEqual(3)
      else expect(frozen.length).toBe(1)

      const silent = await waitFor('a peer_silent teardown on every stream', async () => {
        const n = await count('peer_silent')
        return STREAMS.every((s) => n[s]! >= 1) ? n : undefined
      }, { timeoutMs: left(), describe: () => ({ connections: proxy.connections().slice(-8), stderr: stderr().slice(-1500) }) })
      expect(silent).toEqual({ pods: 1, replicasets: 1, jobs: 1 })
      const foundAfterMs = Date.now() - frozenAt
      expect(await perStream('k8s_collector_watch_api_errors_total', `status="${http1Only ? 'peer_silent' : 'ping_timeout'}"`)).toEqual({ pods: 1, replicasets: 1, jobs: 1 })
      // Working again: a Deployment's and a Job's pods created now reach the tap with their owners,
      // which needs the ReplicaSet, Job and pod streams, through connections opened after the freeze.
      createOwners(sim, 'after')
      await waitFor('the new owners\' pods at the tap', () => {
        const pods = openConnection(tap.state(), hostname)?.pods ?? []
        const deployment = pods.find((p) => p.podName.startsWith('after-') && !p.podName.startsWith('after-job-'))
        const job = pods.find((p) => p.podName.startsWith('after-job-'))
        return deployment?.ownerKind === 1 && deployment.ownerName === 'after' && job?.ownerKind === 2 && job.ownerName === 'after-job' ? true : undefined
      }, {
        timeoutMs: left(),
        describe: () => ({ pods: (openConnection(tap.state(), hostname)?.pods ?? []).map((p) => `${p.podName} ${p.ownerKind}/${p.ownerName}`), connections: proxy.connections().slice(-4), stderr: stderr().slice(-1500) }),
      })
      if (busy) {
        const name = `churn-${churned - 1}`
        await waitFor(`${name} at the tap`, () => (openConnection(tap.state(), hostname)?.pods.some((p) => p.podName === name) ? true : undefined), { timeoutMs: left() })
      }
      const workingAfterMs = Date.now() - frozenAt
      console.log(`dead API server, ${runtime} ${http1Only ? 'HTTP/1.1' : 'HTTP/2'} ${busy ? 'busy' : 'quiet'}: found after ${foundAfterMs} ms, working again after ${workingAfterMs} ms`)
      expect(workingAfterMs).toBeLessThan(60_000)
      const fresh = proxy.connections().filter((c) => c.openedAt >= frozenAt && c.bytesDown > 0)
      expect(fresh.length).toBeGreaterThanOrEqual(http1Only ? 3 : 1)
      expect(proxy.connections().filter((c) => frozen.includes(c.id)).every((c) => c.state === 'frozen' || c.state === 'closed')).toBe(true)

      // Logged once per stream, with the evidence: which watch, its resourceVersion, how long silent.
      const lines = stderr().split('\n').filter((l) => l.includes(http1Only ? 'torn down (peer_silent)' : 'did not answer an HTTP/2 PING'))
      expect(lines).toHaveLength(3)
      for (const s of STREAMS) {
        const line = lines.find((l) => l.includes(`"component":"kube:${s}"`))
        if (http1Only) {
          expect(line).toMatch(new RegExp(`"msg":"${s} watch from resourceVersion \\d+ \\(timeoutSeconds 5\\) torn down \\(peer_silent\\): the API server sent nothing for 1\\d\\.\\d s; resuming from resourceVersion \\d+ in \\d+ ms"`))
        } else {
          expect(line).toMatch(new RegExp(
            `"msg":"${s} watch from resourceVersion \\d+ \\(timeoutSeconds [3-5]\\d\\d\\) failed: 127\\.0\\.0\\.1:${proxy.port}: the API server did not answer an HTTP/2 PING ` +
              `\\(no answer within 5 s, nothing received for 1\\d\\.\\d s\\); resuming from resourceVersion \\d+ in \\d+ ms"`,
          ))
        }
      }
      expect(protocolLines()).toHaveLength(1)
      // The reducer link was never touched: one connection, epoch 1.
      expect(openConnection(tap.state(), hostname)?.epochs).toEqual([1])
    }, 180_000)
  }))
})
