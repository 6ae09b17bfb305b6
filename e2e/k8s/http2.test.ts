// Issue 34 item 3 on the real kube-apiserver: the built collector negotiates h2 with it, a
// SIGSTOPped server (a hung process whose kernel still accepts and holds connections) is found
// dead within 60 s at the default 30 s limit, and the collector's idle request rate is measured:
// over HTTP/2, and over HTTP/1.1 (the same kubeconfig through a CONNECT proxy, `proxy-url`, which
// keeps the HTTP/1.1 path). kube-apiserver's apiserver_request_total has no user-agent label, so
// the collector's own requests are counted in the server's audit log (its `userAgent`), beside
// apiserver_request_total's WATCH totals (every client's) (docs/dead-links.md §2, bench/README.md).
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { converged } from '../harness/expect.ts'
import { metric } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { startConnectProxy, type ConnectProxy } from '../tls/connect-proxy.ts'
import { startK8sBackend, type K8sCluster } from './backend.ts'
import { startControlPlane, type ControlPlane } from './control-plane.ts'

const STREAMS = ['pods', 'replicasets', 'jobs'] as const
/**
 * How long the collector is left idle while its requests are counted: long enough for two or more
 * short watches per stream over HTTP/1.1, short for `npm test` (bench/README.md has a 3-minute and a
 * 10-minute run of this test, and the bench's real section 5 and 10 minutes of churn).
 */
const IDLE_MS = 45_000
const PAUSE = 'registry.k8s.io/pause:3.10'
const workload = [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'idle', namespace: 'default' }, spec: { containers: [{ name: 'c', image: PAUSE }] } }]

/** One request of the audit log (RequestReceived stage only: one line per request). */
interface AuditEvent {
  readonly verb: string
  readonly userAgent?: string
  readonly objectRef?: { readonly resource?: string }
  readonly requestReceivedTimestamp: string
}

const settled = (cluster: K8sCluster, timeoutMs = 60_000) =>
  converged(async () => ({ cluster: await cluster.objects(), tap: await cluster.tapState() }), cluster.collectorHostname, timeoutMs)

describe('the real kube-apiserver over HTTP/2 and HTTP/1.1: a hung server found, the idle request rate', () => {
  let dir: string
  let plane: ControlPlane
  let connectProxy: ConnectProxy
  let cluster: K8sCluster
  const audit = (): AuditEvent[] =>
    readFileSync(join(dir, 'audit.log'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as AuditEvent)

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kc-h2-audit-'))
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [ResponseStarted, ResponseComplete, Panic]\nrules:\n- level: Metadata\n')
    plane = await startControlPlane({ nodes: 1, apiserverArgs: [`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${join(dir, 'audit.log')}`, '--audit-log-format=json'] })
    connectProxy = await startConnectProxy()
    cluster = await startK8sBackend(plane, workload, { hostname: 'k8s-http2' })
  }, 300_000)

  afterAll(async () => {
    plane?.pauseApiServer(false)
    await cluster?.close()
    await connectProxy?.close()
    await plane?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  describe.each([
    ['HTTP/2', false],
    ['HTTP/1.1 (proxy-url)', true],
  ])('%s', (protocol, viaProxy) => {
    // The same collector's kubeconfig, through the CONNECT proxy for the HTTP/1.1 run (a new process).
    beforeAll(async () => {
      if (!viaProxy) return
      const kc = JSON.parse(readFileSync(cluster.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: Record<string, string> }> }
      kc.clusters[0]!.cluster['proxy-url'] = connectProxy.url
      writeFileSync(cluster.kubeconfig, JSON.stringify(kc, null, 2))
      await cluster.restartCollector()
    }, 60_000)

    const metrics = () => cluster.collectorProcess()!.metrics()

    it(`negotiates ${protocol} and counts its idle requests for ${IDLE_MS / 1000} s`, async () => {
      await settled(cluster)
      const log = cluster.collectorLog()
      if (viaProxy) assert.match(log, /HTTP\/1\.1 \(the kubeconfig has a proxy-url/)
      else assert.match(log, /HTTP\/2, one connection checked by PING after 30 s/)
      assert.equal(metric(await metrics(), 'k8s_collector_api_http2'), viaProxy ? 0 : 1)
      const requestTotal = async () => {
        const text = (await plane.admin.request('GET', '/metrics')).body
        const watches: Record<string, number> = {}
        for (const line of text.split('\n')) {
          if (!line.startsWith('apiserver_request_total{') || !line.includes('verb="WATCH"')) continue
          const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? ''
          if ((STREAMS as readonly string[]).includes(resource)) watches[resource] = (watches[resource] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1))
        }
        return watches
      }
      const collectorRequests = async () => {
        const text = await metrics()
        return Object.fromEntries(STREAMS.map((s) => [s, metric(text, 'k8s_collector_watch_requests_total', `stream="${s}"`) ?? 0]))
      }
      assert.ok(audit().some((e) => (e.userAgent ?? '').startsWith('k8s-collector') && e.verb === 'watch'), "the audit log holds the collector's first watches")
      const t0 = Date.now()
      const [server0, own0] = [await requestTotal(), await collectorRequests()]
      await new Promise((r) => setTimeout(r, IDLE_MS)) // the measurement itself: a window of idle time
      const [server1, own1] = [await requestTotal(), await collectorRequests()]
      const t1 = Date.now()
      const mine = audit().filter((e) => (e.userAgent ?? '').startsWith('k8s-collector') && Date.parse(e.requestReceivedTimestamp) >= t0 && Date.parse(e.requestReceivedTimestamp) <= t1)
      const byVerb: Record<string, number> = {}
      for (const e of mine) byVerb[`${e.verb} ${e.objectRef?.resource ?? ''}`] = (byVerb[`${e.verb} ${e.objectRef?.resource ?? ''}`] ?? 0) + 1
      const serverWatches = Object.fromEntries(STREAMS.map((s) => [s, (server1[s] ?? 0) - (server0[s] ?? 0)]))
      const ownWatches = Object.fromEntries(STREAMS.map((s) => [s, own1[s]! - own0[s]!]))
      console.log(`${protocol}: ${((t1 - t0) / 60_000).toFixed(1)} min idle: the collector's requests in the audit log (user agent k8s-collector): ${JSON.stringify(byVerb)}; ` +
        `its k8s_collector_watch_requests_total: ${JSON.stringify(ownWatches)}; apiserver_request_total WATCH, every client: ${JSON.stringify(serverWatches)}`)
      for (const s of STREAMS) {
        const audited = byVerb[`watch ${s}`] ?? 0
        assert.equal(audited, ownWatches[s], `${s}: the server saw the watches the collector counted`)
        // Over HTTP/2 at most one per stream per 5 minutes; over HTTP/1.1 one every 15 to 20 s.
        if (viaProxy) assert.ok(audited >= Math.floor(IDLE_MS / 20_000) - 1, `${s}: ${audited} watches`)
        else assert.ok(audited <= Math.ceil(IDLE_MS / 300_000), `${s}: ${audited} watches`)
      }
    }, IDLE_MS + 120_000)

    it('finds a SIGSTOPped kube-apiserver within 60 s, and works again after SIGCONT', async () => {
      const silent = async () => {
        const text = await metrics()
        return Object.fromEntries(STREAMS.map((s) => [s, metric(text, 'k8s_collector_watch_disconnects_total', `stream="${s}",cause="peer_silent"`) ?? 0]))
      }
      const before = await silent()
      plane.pauseApiServer(true)
      const stoppedAt = Date.now()
      const found = await waitFor('every stream to find the server dead', async () => {
        const n = await silent()
        return STREAMS.every((s) => n[s]! > before[s]!) ? Date.now() - stoppedAt : undefined
      }, { timeoutMs: 70_000 })
      const errors = await metrics()
      const reason = viaProxy ? 'peer_silent' : 'ping_timeout'
      console.log(`${protocol}: kube-apiserver SIGSTOPped, every stream found it dead after ${found} ms (${reason})`)
      for (const s of STREAMS) assert.ok((metric(errors, 'k8s_collector_watch_api_errors_total', `stream="${s}",status="${reason}"`) ?? 0) >= 1, `${s}: ${reason}`)
      assert.ok(found < 60_000, `found after ${found} ms`)
      plane.pauseApiServer(false)
      await plane.admin.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `after-${viaProxy ? 'h1' : 'h2'}` }, spec: { containers: [{ name: 'c', image: PAUSE }] } })
      await settled(cluster, 120_000)
    }, 240_000)
  })
})
