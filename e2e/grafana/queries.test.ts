// Every query of the Grafana dashboard (issue 32 item 3) evaluated by a real Prometheus (Debian's
// `prometheus`) scraping a real collector: the built bundle on Node, as e2e/prometheus runs it,
// with leader election and Kubernetes Events on, synced with the API simulator and connected to the
// tap (the reducer stand-in). Each query, its variables replaced as Grafana would, must return a
// series with a value, and name only metrics the collector's /metrics exposes; each template
// variable must offer the collector's job, namespace and pod.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTap, type Tap } from '../../src/tap/index.ts'
import { createEveryOwnerShape } from '../collector/workload.ts'
import { converged, type ClusterObjects } from '../harness/expect.ts'
import { metric, RUNTIMES, startCollector, type CollectorProcess } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { startPrometheus, type PrometheusServer } from '../prometheus/server.ts'
import { startSimulator, type Simulator } from '../sim/index.ts'
import { interpolate, labelValuesQuery, loadDashboard, panelTargets, type PanelTarget } from './dashboard.ts'
import { metricNames } from './promql-names.ts'

/** The scrape job, and the labels Kubernetes service discovery gives the collector's pod (as the alert rules expect). */
const JOB = 'k8s-collector'
const NAMESPACE = 'default'
const POD = 'k8s-collector-grafana'
/**
 * What `$__rate_interval` becomes. Grafana computes max($__interval + scrape interval, 4 × scrape
 * interval); the test scrapes every second, and a minute holds every change the test makes.
 */
const RATE_INTERVAL = '1m'

const dashboard = loadDashboard()
const targets = panelTargets(dashboard)
const variables = dashboard.templating.list.filter((v) => v.type === 'query')
/** The values the test picks for the variables: one job, namespace and pod, as an operator would. */
const values: Record<string, string> = { job: JOB, namespace: NAMESPACE, pod: POD }

/** The metric names of a Prometheus text exposition's samples. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>()
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)[{ ]/.exec(line)
    if (m) names.add(m[1]!)
  }
  return names
}

describe('the dashboard\'s queries in a real Prometheus scraping a real collector', () => {
  let dir: string
  let sim: Simulator
  let tap: Tap
  let collector: CollectorProcess
  let prom: PrometheusServer

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kc-grafana-'))
    const kubeconfig = join(dir, 'kubeconfig')
    sim = await startSimulator({ nodes: 2, jobRunMs: 600_000 })
    await sim.writeKubeconfig(kubeconfig)
    createEveryOwnerShape(sim)
    // The collector's own pod, so that it writes Kubernetes Events (the Events panel's counters).
    const self = sim.create('pods', { metadata: { name: POD, namespace: NAMESPACE }, spec: { containers: [{ name: 'collector', image: 'k8s-collector' }] } })
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    collector = await startCollector(RUNTIMES.node!, {
      kubeconfig,
      intakePort: tap.tcpPort,
      hostname: POD,
      env: { POD_NAME: POD, POD_NAMESPACE: NAMESPACE, POD_UID: self.metadata.uid },
      // The Leader panels read k8s_collector_leader, registered only with leader election.
      extraArgs: ['--leader-elect', '--lease-namespace', NAMESPACE, '--identity', POD],
    })
    const cluster = (): ClusterObjects => ({ pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') })
    await converged(async () => ({ cluster: cluster(), tap: tap.state() }), POD, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\ncollector stderr (tail):\n${collector.stderr().slice(-3000)}`)
    })
    await waitFor('the collector to lead', async () => (metric(await collector.metrics(), 'k8s_collector_leader') === 1 ? true : undefined))
    prom = await startPrometheus(undefined, [{ address: `127.0.0.1:${collector.httpPort}`, labels: { namespace: NAMESPACE, pod: POD } }])
    await waitFor('prometheus to scrape the collector', async () => {
      const up = await prom.query(`up{job="${JOB}"}`)
      return up.length === 1 && up[0]!.value === '1' ? true : undefined
    }, { timeoutMs: 30_000, describe: () => prom.log().slice(-1500) })
  }, 120_000)

  afterAll(async () => {
    await prom?.stop()
    if (collector?.child.exitCode === null) await collector.stop().catch(() => collector.child.kill('SIGKILL'))
    await tap?.close()
    await sim?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  let stirred = 0
  /**
   * A new pod, and Prometheus has scraped the event-to-wire latency of its announcement: for the
   * next minute (RATE_INTERVAL) the latency quantiles have an observation to work on. A quiet
   * cluster has none, and Grafana would draw nothing there either.
   */
  async function freshEvents(): Promise<void> {
    const count = `k8s_collector_link_event_to_wire_seconds_count{job="${JOB}"}`
    const before = Number((await prom.query(count))[0]?.value ?? 0)
    sim.create('pods', { metadata: { name: `grafana-stir-${++stirred}`, namespace: NAMESPACE }, spec: { containers: [{ name: 'c', image: 'stir:1' }] } })
    await waitFor('Prometheus to scrape a new event-to-wire observation', async () =>
      Number((await prom.query(count))[0]?.value ?? 0) > before ? true : undefined, { timeoutMs: 30_000 })
  }

  /** What is wrong with one query's answer, or undefined: an error, no series, or only NaN (a panel with nothing to draw). */
  async function verdict(expr: string): Promise<string | undefined> {
    let samples
    try {
      samples = await prom.query(expr)
    } catch (err) {
      return `refused: ${(err as Error).message}`
    }
    if (samples.length === 0) return 'no series'
    if (samples.every((s) => s.value === 'NaN')) return `only NaN (${samples.length} series)`
    return undefined
  }

  /** The metric names `expr` uses that the collector does not expose. */
  const unknownNames = (expr: string, exposed: ReadonlySet<string>): string[] => metricNames(expr).filter((n) => !exposed.has(n))

  const render = (t: PanelTarget): string => interpolate(t.expr, values, RATE_INTERVAL)

  it('has each query variable offer the collector\'s job, namespace and pod', async () => {
    expect(variables.map((v) => v.name)).toEqual(['job', 'namespace', 'pod'])
    for (const v of variables) {
      const { selector, label } = labelValuesQuery(v.query!)
      expect(await prom.labelValues(label, interpolate(selector, values, RATE_INTERVAL)), v.name).toEqual([values[v.name]])
    }
  })

  it('answers every panel query with a series, and each names only metrics the collector exposes', async () => {
    const exposed = exposedNames(await collector.metrics())
    const unknown = targets.flatMap((t) => unknownNames(t.expr, exposed).map((n) => `${t.panel} / ${t.refId}: ${n} is not in the collector's /metrics`))
    // Soft: a misspelled name is reported together with the queries that found nothing.
    expect.soft(unknown).toEqual([])
    expect(targets.length).toBeGreaterThanOrEqual(30)

    await freshEvents()
    let failures: string[] = []
    await waitFor('every panel query to return a series with a value', async () => {
      const results = await Promise.all(targets.map(async (t) => [t, await verdict(render(t))] as const))
      failures = results.filter(([, v]) => v !== undefined).map(([t, v]) => `${t.panel} / ${t.refId}: ${v}\n  ${render(t)}`)
      return failures.length === 0 ? true : undefined
    }, { timeoutMs: 30_000, intervalMs: 1_000, describe: () => failures })
    console.log(`${targets.length} queries of ${dashboard.panels.length} panels answered; $__rate_interval = ${RATE_INTERVAL}`)
  }, 90_000)

  // The checks can fail: a query broken in each of these ways is caught.
  it.each([
    ['a misspelled metric', (e: string) => e.replace('k8s_collector_pods_announced', 'k8s_collector_pods_anounced'), 'no series', ['k8s_collector_pods_anounced']],
    ['a histogram read without _bucket', (e: string) => e.replace('k8s_collector_link_event_to_wire_seconds_bucket', 'k8s_collector_link_event_to_wire_seconds'), 'no series', ['k8s_collector_link_event_to_wire_seconds']],
    ['a label value no target has', (e: string) => e.replace(`pod=~"${POD}"`, 'pod=~"k8s-collector-0"'), 'no series', []],
    ['a syntax error', (e: string) => e.replace('sum by (le, pod)', 'sum by (le, pod'), /^refused: .*parse error/, undefined],
  ])('catches %s', async (_what, breach, problem, unknown) => {
    const exposed = exposedNames(await collector.metrics())
    await freshEvents()
    const original = targets.map(render).find((e) => breach(e) !== e)
    assert.ok(original, 'a dashboard query this breach applies to')
    const broken = breach(original)
    expect(await verdict(original)).toBeUndefined()
    expect(await verdict(broken)).toMatch(problem)
    if (unknown) expect(unknownNames(broken, exposed)).toEqual(unknown)
  }, 30_000)
})
