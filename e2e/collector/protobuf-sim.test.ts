// The collector (dist/cli.mjs, Node and Deno) against the simulator answering pods as protobuf,
// as a real kube-apiserver does (e2e/sim/protobuf-responses.test.ts): it syncs by a protobuf
// streaming list, follows the churn through protobuf watch frames, reads fewer bytes than a
// collector asking for JSON, and a frame that cannot be read costs one watch, not an event.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'vitest'
import { startTap } from '../../src/tap/index.ts'
import { converged, openConnection } from '../harness/expect.ts'
import { metric, RUNTIMES, startCollector } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { startSimulator } from '../sim/index.ts'

const container = (name: string, image: string) => ({ name, image })

describe.concurrent.each(['node', 'deno'])('collector on %s, pods as protobuf from the simulator', (runtime) => {
  it('syncs, follows the churn, reads fewer bytes than as JSON, and survives a frame it cannot read', async ({ expect, onTestFinished }) => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-pb-sim-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const sim = await startSimulator({ nodes: 2 }) // pods as protobuf: the simulator's default
    onTestFinished(() => sim.close())
    const kubeconfig = join(dir, 'kubeconfig')
    writeFileSync(kubeconfig, sim.kubeconfig())
    const tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    onTestFinished(() => tap.close())
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [container('app', 'app:1'), container('side', 'side:1')] } }
    sim.create('deployments', { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template } })
    sim.create('pods', { metadata: { name: 'solo', namespace: 'default' }, spec: { containers: [container('c', 'c:1')] } })
    const start = (hostname: string, extraArgs: string[]) => startCollector(RUNTIMES[runtime]!, { kubeconfig, intakePort: tap.tcpPort, hostname, extraArgs })
    const pb = await start(`pb-${runtime}`, [])
    const json = await start(`json-${runtime}`, ['--api-encoding', 'json'])
    onTestFinished(() => void [pb, json].forEach((c) => c.child.exitCode === null && c.child.kill('SIGKILL')))
    const read = async () => ({ cluster: { pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') }, tap: tap.state() })
    const both = async () => {
      await converged(read, `pb-${runtime}`, 60_000)
      await converged(read, `json-${runtime}`, 60_000)
    }
    await both()
    const text = await pb.metrics()
    expect(metric(text, 'k8s_collector_watch_streaming_list', 'stream="pods"')).toBe(1)
    const decoded = async (c: typeof pb) => metric(await c.metrics(), 'k8s_collector_api_response_decoded_bytes_total') ?? NaN
    const [p, j] = [await decoded(pb), await decoded(json)]
    // Only the pods' share differs (ReplicaSets and Jobs are JSON metadata for both).
    expect(p).toBeGreaterThan(0)
    expect(p).toBeLessThan(j)

    // Churn through protobuf watch frames: a pod deleted, one created, the deployment scaled.
    sim.delete('pods', 'default', 'solo')
    sim.create('pods', { metadata: { name: 'solo-2', namespace: 'default' }, spec: { containers: [container('c', 'c:2')] } })
    await both()

    // One frame of garbage, to the protobuf collector alone: its pods watch ends (malformed),
    // resumes from its revision and loses nothing.
    await json.stop()
    await waitFor('the JSON collector\'s watches closed', () => (sim.stats.watchesOpen === 3 ? true : undefined), { timeoutMs: 30_000 })
    sim.faults.malformedLine('pods')
    sim.create('pods', { metadata: { name: 'after-garbage', namespace: 'default' }, spec: { containers: [container('c', 'c:3')] } })
    await waitFor('the garbage frame counted', async () => ((metric(await pb.metrics(), 'k8s_collector_watch_malformed_lines_total', 'stream="pods"') ?? 0) >= 1 ? true : undefined), { timeoutMs: 30_000 })
    expect(pb.stderr()).toMatch(/pods watch: protobuf frame of \d+ bytes cannot be read/)
    // Announced once it runs with an IP (a pod without one is not announced).
    await waitFor('after-garbage at the tap', () => (openConnection(tap.state(), `pb-${runtime}`)?.pods.some((x) => x.podName === 'after-garbage') ? true : undefined), { timeoutMs: 30_000 })
    await converged(read, `pb-${runtime}`, 60_000)
    // Never a new epoch: the watch resumed.
    expect(openConnection(tap.state(), `pb-${runtime}`)?.epochs).toEqual([1])
  }, 120_000)
})
