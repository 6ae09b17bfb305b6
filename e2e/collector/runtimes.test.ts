// Issue 5's end-to-end test: the built collector — bundle on Node, bundle on Deno, and the offline
// single executable — against the API simulator and the tap, over real sockets.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ownerKindName } from '../../src/model/owner-kinds.ts'
import { startTap, type Tap } from '../../src/tap/index.ts'
import { startSimulator, type Simulator } from '../sim/index.ts'
import { converged, expectedPods, openConnection, type ClusterObjects } from '../harness/expect.ts'
import { metric, root, RUNTIMES, startCollector, V8_FLAGS, type CollectorProcess } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { createEveryOwnerShape } from './workload.ts'

describe.each(Object.keys(RUNTIMES))('collector on %s', (runtime) => {
  const hostname = `e2e-${runtime}`
  let sim: Simulator
  let tap: Tap
  let tapPort: number
  let collector: CollectorProcess
  let dir: string
  let kubeconfig: string
  const cluster = (): ClusterObjects => ({ pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') })
  const read = async () => ({ cluster: cluster(), tap: tap.state() })

  beforeAll(async () => {
    const cmd = RUNTIMES[runtime]!
    const artifact = cmd.find((a) => a.includes('/dist/'))!
    if (!existsSync(artifact)) throw new Error(`${artifact} is missing: run \`npm run build\` and \`npm run compile:sea\` first (npm test does)`)
    dir = mkdtempSync(join(tmpdir(), 'kc-e2e-'))
    kubeconfig = join(dir, 'kubeconfig')
    sim = await startSimulator({ nodes: 2, jobRunMs: 600_000 })
    await sim.writeKubeconfig(kubeconfig)
    createEveryOwnerShape(sim)
    await waitFor('the workload to run', () => (expectedPods(cluster()).length >= 12 ? true : undefined), { describe: () => expectedPods(cluster()).length })
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    tapPort = tap.tcpPort
    collector = await startCollector(cmd, { kubeconfig, intakePort: tapPort, hostname })
  }, 60_000)

  afterAll(async () => {
    if (collector?.child.exitCode === null) collector.child.kill('SIGKILL')
    await tap?.close()
    await sim?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('announces every owner shape with the right owner, IP, version and containers at epoch 1', async () => {
    const conn = await converged(read, hostname, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\ncollector stderr (tail):\n${collector.stderr().slice(-3000)}`)
    })
    expect(conn.epochs).toEqual([1])
    expect(conn.version).toBe('0.11.0')
    const kinds = new Set(conn.pods.map((p) => ownerKindName(p.ownerKind)))
    expect([...kinds].sort()).toEqual(['CronJob', 'Deployment', 'Job', 'NoOwner', 'Other', 'ReplicaSet'])
    const byName = (prefix: string) => conn.pods.filter((p) => p.podName.startsWith(prefix))
    expect(byName('web-').every((p) => p.ownerKind === 1 && p.ownerName === 'web')).toBe(true)
    expect(byName('agent-').every((p) => p.ownerKind === 255 && p.ownerName === 'agent')).toBe(true)
    expect(byName('db-').every((p) => p.ownerKind === 255 && p.ownerName === 'db')).toBe(true)
    expect(byName('bare').find((p) => p.podName === 'bare')).toMatchObject({ ownerKind: 254, ownerUid: '', ownerName: 'bare' })
    expect(byName('hostnet-').every((p) => p.isHostNetwork && p.ip.startsWith('172.18.'))).toBe(true)
    expect(byName('web-').every((p) => p.ip.startsWith('10.244.') && p.version === "'busybox:1.36','nginx:1.25'" && p.containers.length === 2)).toBe(true)
    expect(conn.counters.ignored).toBe(0)
  })

  it('logs its runtime and runs with the V8 flags it ships with (scripts/v8-flags.json)', async () => {
    const log = await waitFor('the runtime line in the log', () => (/runtime: /.test(collector.stderr()) ? collector.stderr() : undefined), {
      describe: () => collector.stderr().slice(-2000),
    })
    // The same runtime in k8s_collector_build_info (the single executable is Node).
    expect(await collector.metrics()).toMatch(new RegExp(`^k8s_collector_build_info\\{version="[^"]+",runtime="${runtime === 'deno' ? 'deno' : 'node'}",runtime_version="\\d+\\.\\d+\\.\\d+"\\} 1$`, 'm'))
    if (runtime === 'deno') {
      // Deno applies --v8-flags without showing them to the program: only the runtime is checked here.
      expect(log).toMatch(/runtime: deno \d/)
    } else {
      expect(log).toMatch(/runtime: node v\d/)
      expect(log).toContain(`with ${V8_FLAGS.join(' ')}`)
      // Run as `k8s-collector` (npm's bin), the bundle gets the same flags from its shebang.
      if (runtime === 'node') expect(readFileSync(join(root, 'dist', 'cli.mjs'), 'utf8').split('\n', 1)[0]).toBe(`#!/usr/bin/env -S node ${V8_FLAGS.join(' ')}`)
    }
  })

  it('delivers a pod delete promptly', async () => {
    const victim = expectedPods(cluster()).find((p) => p.podName === 'bare')!
    sim.delete('pods', 'default', 'bare')
    await waitFor('the bare pod to leave the tap', () => {
      const conn = openConnection(tap.state(), hostname)
      return conn && !conn.pods.some((p) => p.uid === victim.uid) ? true : undefined
    }, { timeoutMs: 5_000 })
    await converged(read, hostname)
  })

  it('relists after a watch 410 without a resync and without duplicates', async () => {
    const before = await collector.metrics()
    const gone = (text: string) => metric(text, 'k8s_collector_watch_relists_total', 'cause="gone"') ?? 0
    const goneBefore = gone(before)
    const connBefore = openConnection(tap.state(), hostname)!
    const newBefore = connBefore.counters.byType.pod_new_with_name ?? 0
    // The delete happens while the watches are stalled, then history is compacted past it: the
    // collector's resume RV is too old (in-stream 410) and only a relist can reveal the delete.
    sim.faults.stallWatches(true)
    sim.delete('pods', 'default', 'host-bare')
    sim.faults.compact()
    sim.faults.dropWatches({ abrupt: true })
    sim.faults.stallWatches(false)
    await waitFor('a relist caused by 410', async () => (gone(await collector.metrics()) > goneBefore ? true : undefined), { timeoutMs: 20_000 })
    const conn = await converged(read, hostname)
    expect(conn.id).toBe(connBefore.id)
    expect(conn.epochs).toEqual([1])
    // Unchanged pods are not announced again.
    expect(conn.counters.byType.pod_new_with_name ?? 0).toBe(newBefore)
  })

  it('starts epoch 2 with the complete set on a new connection after the reducer restarts', async () => {
    await tap.close()
    tap = await startTap({ listen: { host: '127.0.0.1', port: tapPort } })
    const conn = await converged(read, hostname, 30_000)
    expect(conn.epochs).toEqual([2])
  })

  it('exits 0 promptly on SIGTERM', async () => {
    const { code, ms } = await collector.stop()
    expect(code).toBe(0)
    expect(ms).toBeLessThan(5_000)
  })
})
