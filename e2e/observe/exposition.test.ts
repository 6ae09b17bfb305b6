// Issue 20: the collector's whole /metrics, scraped from the built bundle at work (simulator, tap,
// Kubernetes Events on), read by a real Prometheus text parser (Debian's python3-prometheus-client)
// and held to the naming conventions (check-exposition.py beside this file).
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VERSION } from '../../src/cli/version.ts'
import { startTap, type Tap } from '../../src/tap/index.ts'
import { createEveryOwnerShape } from '../collector/workload.ts'
import { converged, type ClusterObjects } from '../harness/expect.ts'
import { metric, RUNTIMES, startCollector, type CollectorProcess } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { startSimulator, type Simulator } from '../sim/index.ts'

const PYTHON = '/usr/bin/python3'
const CHECK = join(dirname(fileURLToPath(import.meta.url)), 'check-exposition.py')
/** The first job list requests fail: the relist counter must count them (issue 20: it stayed 0). */
const FAILED_JOB_LISTS = 3

type Sample = [name: string, labels: Record<string, string>, value: number | string]
interface Checked {
  readonly code: number | null
  readonly stderr: string
  readonly parsed?: { families: Record<string, string>; samples: Sample[] }
}

/** Runs the checker over `text`. */
async function check(text: string): Promise<Checked> {
  const child = spawn(PYTHON, [CHECK], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  child.stdin.end(text)
  const exit = await code
  return { code: exit, stderr, parsed: exit === 0 ? JSON.parse(stdout) : undefined }
}

describe('the /metrics exposition', () => {
  let sim: Simulator
  let tap: Tap
  let collector: CollectorProcess
  let dir: string
  let scrape: string

  beforeAll(async () => {
    // Not a skip: without the package the suite fails and says what to install.
    try {
      await promisify(execFile)(PYTHON, ['-c', 'import prometheus_client.parser'])
    } catch (err) {
      throw new Error(`the Prometheus Python client is missing: apt-get install python3-prometheus-client (.ci/run installs it); ${(err as Error).message}`)
    }
    dir = mkdtempSync(join(tmpdir(), 'kc-exposition-'))
    const kubeconfig = join(dir, 'kubeconfig')
    sim = await startSimulator({ nodes: 2, jobRunMs: 600_000 })
    await sim.writeKubeconfig(kubeconfig)
    createEveryOwnerShape(sim)
    const self = sim.create('pods', { metadata: { name: 'k8s-collector-metrics', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'k8s-collector' }] } })
    sim.faults.failRequests({ resource: 'jobs', status: 500, count: FAILED_JOB_LISTS })
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    collector = await startCollector(RUNTIMES.node!, {
      kubeconfig,
      intakePort: tap.tcpPort,
      hostname: 'e2e-metrics',
      env: { POD_NAME: self.metadata.name, POD_NAMESPACE: 'default', POD_UID: self.metadata.uid },
    })
    const cluster = (): ClusterObjects => ({ pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') })
    await converged(async () => ({ cluster: cluster(), tap: tap.state() }), 'e2e-metrics', 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\ncollector stderr (tail):\n${collector.stderr().slice(-3000)}`)
    })
    // The ReducerConnected Event written: the events counters carry a sample.
    scrape = await waitFor('an Event written', async () => {
      const text = await collector.metrics()
      return (metric(text, 'k8s_collector_events_emitted_total', 'reason="ReducerConnected"') ?? 0) > 0 ? text : undefined
    }, { timeoutMs: 30_000 })
  }, 120_000)

  afterAll(async () => {
    if (collector?.child.exitCode === null) collector.child.kill('SIGKILL')
    await tap?.close()
    await sim?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('parses whole and follows the naming conventions', async () => {
    const got = await check(scrape)
    expect(got.stderr, scrape).toBe('')
    expect(got.code).toBe(0)
    const { families, samples } = got.parsed!
    const values = (name: string) => samples.filter(([n]) => n === name)
    const value = (name: string, labels: Record<string, string> = {}) =>
      values(name).find(([, l]) => Object.entries(labels).every(([k, v]) => l[k] === v))?.[2]

    expect(values('k8s_collector_build_info')).toEqual([['k8s_collector_build_info', { version: VERSION, runtime: 'node', runtime_version: process.versions.node }, 1]])
    // The parser names a counter's family without _total; its samples keep it.
    expect(families.k8s_collector_forced_resyncs).toBe('counter')
    expect(value('k8s_collector_forced_resyncs_total')).toBe(0)
    expect(families.k8s_collector_watch_relists).toBe('counter')
    expect(value('k8s_collector_watch_relists_total', { stream: 'jobs', cause: 'initial' })).toBe(FAILED_JOB_LISTS + 1)
    expect(value('k8s_collector_watch_api_errors_total', { stream: 'jobs', status: '500' })).toBe(FAILED_JOB_LISTS)
    expect(value('k8s_collector_watch_relists_total', { stream: 'pods', cause: 'initial' })).toBe(1)
    const types = new Set(values('k8s_collector_watch_events_total').map(([, l]) => l.type))
    expect([...types].filter((t) => !['init', 'init_apply', 'init_done', 'apply', 'delete', 'unavailable'].includes(t!))).toEqual([])
    expect(types).toContain('init_done')
    expect(value('k8s_collector_epoch')).toBe(1)
    expect(value('k8s_collector_link_up')).toBe(1)
    expect(families.k8s_collector_link_event_to_wire_seconds).toBe('histogram')
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(1_000_000)
  })

  // The checker can fail: each breach, put into the real scrape, is reported.
  it.each([
    ['a malformed line', (t: string) => `${t}k8s_collector_epoch{stream="pods" 1\n`, /the Prometheus parser rejected the exposition/],
    ['a counter without _total', (t: string) => t.replaceAll('k8s_collector_link_connects_total', 'k8s_collector_link_connects'), /counter k8s_collector_link_connects does not end in _total/],
    ['a camelCase label value', (t: string) => t.replaceAll('type="init_done"', 'type="initDone"'), /type="initDone"}: label value in camelCase/],
    ['a sample without HELP', (t: string) => t.replace(/^# HELP k8s_collector_epoch .*\n/m, ''), /sample k8s_collector_epoch without a HELP line/],
    ['a unit that is not a base unit', (t: string) => t.replaceAll('k8s_collector_link_connection_age_seconds', 'k8s_collector_link_connection_age_ms'), /connection_age_ms: unit not in base units/],
  ])('fails on %s', async (_what, breach, message) => {
    const bad = breach(scrape)
    expect(bad).not.toBe(scrape)
    const got = await check(bad)
    expect(got.code).toBe(1)
    expect(got.stderr).toMatch(message)
  })
})
