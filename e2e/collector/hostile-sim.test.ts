// Issue 22 end to end: hostile but valid pods (thousands of containers, long and escape-heavy
// images, thousands of owner references) created beside ordinary ones, against the simulator and
// the tap. The built collector (dist/cli.mjs on Node and on Deno) stays ready, the ordinary pods created after
// the hostile ones are announced, and each hostile pod is announced with the right bytes: its
// version shortened as docs/protocol.md §1.3 says, a pod_container for each started container
// (docs/behaviour.md §14), and their watch lines were held apart for their size. Each failure
// names the shape (the pod is named after it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fitMessage } from '../../src/ingest/index.ts'
import { startTap } from '../../src/tap/index.ts'
import { diffPods, expectedPods, heldPods, openConnection, type ClusterObjects, type ExpectedPod } from '../harness/expect.ts'
import { metric, RUNTIMES, startCollector } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { startSimulator } from '../sim/index.ts'

const container = (name: string, image: string) => ({ name, image })
const containers = (n: number, image: (i: number) => string) => Array.from({ length: n }, (_, i) => container(`c${i}`, image(i)))

/** The hostile shapes, by pod name: the name is what a failure message shows. */
const SHAPES: Record<string, { spec: object; metadata?: object }> = {
  'hostile-many-distinct-images': { spec: { containers: containers(3_000, (i) => `registry.example/team/app-${i}:v${i % 7}`) } },
  'hostile-many-containers-one-image': { spec: { containers: containers(3_000, () => 'busybox:1.36') } },
  'hostile-long-image': { spec: { containers: [container('big', `registry.example/${'i'.repeat(300_000)}:v1`), container('small', 'busybox:1.36')] } },
  'hostile-escape-heavy-image': { spec: { containers: [container('esc', `é\n"\\\t中${'é"\\'.repeat(20_000)}`)] } },
  'hostile-many-owner-references': {
    spec: { containers: [container('app', 'app:1')] },
    metadata: { ownerReferences: Array.from({ length: 5_000 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${i}`, uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, controller: false })) },
  },
}

/** The pods the tap should hold: expectedPods, with each version shortened as the encoder must (the rest of the message as sent). */
function wanted(cluster: ClusterObjects): ExpectedPod[] {
  return expectedPods(cluster).map((p) => {
    const message = { type: 'pod_new_with_name' as const, uid: p.uid, ip: 0, ownerName: p.ownerName, podName: p.podName, ownerKind: p.ownerKind, ownerUid: p.ownerUid, isHostNetwork: p.isHostNetwork, ns: p.ns, version: p.version }
    return { ...p, version: fitMessage(message).message.version }
  })
}

// Both runtimes: Deno is what the executable ships, and a held line is served when its event loop is idle.
// Both encodings: pods as protobuf (the default; the simulator answers it) and JSON (the byte scanner).
describe.each([
  ['node', 'protobuf'],
  ['node', 'json'],
  ['deno', 'protobuf'],
  ['deno', 'json'],
])('collector on %s, pods as %s, with hostile pods beside ordinary ones', (runtime, encoding) => {
  it('stays ready, announces the ordinary pods, and every hostile pod with the right bytes', async ({ onTestFinished }) => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-hostile-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const sim = await startSimulator({ nodes: 2 })
    onTestFinished(() => sim.close())
    const kubeconfig = join(dir, 'kubeconfig')
    writeFileSync(kubeconfig, sim.kubeconfig())
    const tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    onTestFinished(() => tap.close())
    const hostname = 'hostile-node'
    const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [container('app', 'nginx:1.25')] } })
    sim.create('deployments', { metadata: { name: 'before', namespace: 'default' }, spec: { replicas: 2, selector: { matchLabels: { app: 'before' } }, template: template('before') } })
    const collector = await startCollector(RUNTIMES[runtime]!, { kubeconfig, intakePort: tap.tcpPort, hostname, extraArgs: ['--api-encoding', encoding!] })
    onTestFinished(() => void (collector.child.exitCode === null && collector.child.kill('SIGKILL')))
    const ready = async () => (await fetch(`http://127.0.0.1:${collector.httpPort}/readyz`)).status === 200
    const read = () => ({ cluster: { pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') } as ClusterObjects, tap: tap.state() })

    let last = ''
    /** Waits until the tap holds exactly what the cluster implies, once the pods named by `running` run (have an IP). */
    const settled = (what: string, running: (names: string[]) => boolean) =>
      waitFor(
        what,
        async () => {
          const { cluster, tap: state } = read()
          const conn = openConnection(state, hostname)
          const want = wanted(cluster)
          if (!running(want.map((p) => p.podName))) return (last = 'pods not running yet'), undefined
          last = conn ? diffPods(want, heldPods(conn)) : 'no open connection'
          return conn && last === '' ? conn : undefined
        },
        { timeoutMs: 90_000, describe: () => `${last}\ncollector stderr (tail):\n${collector.stderr().slice(-3000)}` },
      )
    await settled('the ordinary pods announced', (names) => names.filter((n) => n.startsWith('before-')).length === 2)

    for (const [name, shape] of Object.entries(SHAPES)) sim.create('pods', { metadata: { name, namespace: 'default', ...shape.metadata }, spec: shape.spec })
    sim.create('deployments', { metadata: { name: 'after', namespace: 'default' }, spec: { replicas: 2, selector: { matchLabels: { app: 'after' } }, template: template('after') } })
    const conn = await settled(
      'the hostile pods and the ordinary ones created after them announced',
      (names) => Object.keys(SHAPES).every((n) => names.includes(n)) && names.filter((n) => n.startsWith('after-')).length === 2,
    )

    expect(await ready(), 'the collector is ready').toBe(true)
    // Every hostile pod's watch lines are 64 KiB or more: held apart, not converted ahead of the ordinary ones behind them (§14).
    const metrics = await (await fetch(`http://127.0.0.1:${collector.httpPort}/metrics`)).text()
    const heldLines = metric(metrics, 'k8s_collector_watch_lines_held_total', 'stream="pods"')
    expect(heldLines, 'pod watch lines held for their size').toBeGreaterThanOrEqual(Object.keys(SHAPES).length)
    const held = new Map(conn.pods.map((p) => [p.podName, p]))
    for (const name of Object.keys(SHAPES)) {
      const pod = held.get(name)
      expect(pod, name).toBeDefined()
      const encoded = new TextEncoder().encode(pod!.version).length + pod!.ns.length + pod!.podName.length + pod!.ownerName.length + pod!.ownerUid.length + pod!.uid.length
      expect(encoded, `${name}: pod_new_with_name within 64 KiB`).toBeLessThanOrEqual(65_536)
    }
    expect(held.get('hostile-many-distinct-images')!.containers, 'hostile-many-distinct-images: a pod_container per started container').toHaveLength(3_000)
    expect(held.get('hostile-many-containers-one-image')!.containers, 'hostile-many-containers-one-image: a pod_container per started container').toHaveLength(3_000)
  }, 180_000)
})
