// Behaviour side by side (issue 31 item 4): a contender collector (the upstream Rust k8s-collector)
// and ours against the same real control plane, with the same tap as the reducer, step by step:
// snapshot, scale down (deletes), a reducer restart, a 410 after an etcd compaction. After each step
// both connections are compared pod by pod and message by message; each difference found is
// asserted here exactly as docs/behaviour.md §10 records it.
//
// Runs only when K8S_COLLECTOR_CONTENDER_RUST names the contender (a command run under /bin/sh -c,
// e.g. the path of its binary); otherwise the suite is reported as skipped, never as passed.
import assert from 'node:assert/strict'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { converged, expectedPods, heldPods, openConnection, type ExpectedPod } from '../harness/expect.ts'
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.ts'
import { waitFor } from '../harness/wait.ts'
import { deployment, NS, snapshotWorkload } from '../scenarios/workloads.ts'
import { startK8sBackend, type K8sCluster } from './backend.ts'
import { comparePods, recordsOfConnection, reversedIp, startContender, summarizeStream, type ContenderProcess, type PodComparison } from './contender.ts'
import { startControlPlane, type ControlPlane } from './control-plane.ts'

const COMMAND = process.env.K8S_COLLECTOR_CONTENDER_RUST ?? ''
const THEIRS = 'contender-rust'
const PAUSE = 'registry.k8s.io/pause:3.10'
const barePod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { containers: [{ name: 'c', image: PAUSE }], terminationGracePeriodSeconds: 0 } })

/** What each step found, printed at the end (the evidence behind behaviour.md §10). */
const report: Array<{ step: string; [k: string]: unknown }> = []

const title = COMMAND
  ? 'the upstream Rust k8s-collector beside ours on the real control plane'
  : 'NOT RUN: the upstream Rust k8s-collector beside ours (set K8S_COLLECTOR_CONTENDER_RUST=COMMAND)'

describe.skipIf(!COMMAND)(title, () => {
  let plane: ControlPlane
  let proxy: TcpProxy
  let cluster: K8sCluster
  let contender: ContenderProcess

  /** Our connection once it holds exactly the cluster. */
  const oursSettled = (timeoutMs = 60_000) => converged(async () => ({ cluster: await cluster.objects(), tap: await cluster.tapState() }), cluster.collectorHostname, timeoutMs)

  /** The contender's open connection once it holds the uids `want` (whatever their details). */
  const theirsHolding = (want: readonly string[], timeoutMs = 60_000) => {
    let seen: unknown
    return waitFor(`${THEIRS} to hold ${want.length} pods`, async () => {
      const conn = openConnection(await cluster.tapState(), THEIRS)
      const held = heldPods(conn).map((p) => p.uid).sort()
      seen = { open: !!conn, held: held.length, epochs: conn?.epochs }
      return conn && held.join() === [...want].sort().join() ? conn : undefined
    }, { timeoutMs, intervalMs: 250, describe: () => seen })
  }

  const both = async () => {
    const tap = await cluster.tapState()
    const ours = openConnection(tap, cluster.collectorHostname)
    const theirs = openConnection(tap, THEIRS)
    return { ours, theirs, cmp: comparePods(heldPods(ours), heldPods(theirs)) }
  }

  const streams = async () => {
    const tap = await cluster.tapState()
    const ev = (s: number) => cluster.tapEvents(s)
    const ours = openConnection(tap, cluster.collectorHostname)
    const theirs = openConnection(tap, THEIRS)
    return {
      ours: ours && summarizeStream(await recordsOfConnection(ev, ours.id)),
      theirs: theirs && summarizeStream(await recordsOfConnection(ev, theirs.id)),
    }
  }

  /** The only field-level difference of a settled state: IPs byte-reversed (behaviour.md §10). */
  const assertOnlyIpsReversed = (cmp: PodComparison, ours: readonly ExpectedPod[]) => {
    const ip = new Map(ours.map((p) => [`${p.ns}/${p.podName}`, p.ip]))
    const other = cmp.differences.filter((d) => !(d.field === 'ip' && d.theirs === reversedIp(String(ip.get(d.pod)))))
    assert.deepEqual(other, [], 'no difference but the IP byte order')
    assert.ok(cmp.differences.some((d) => d.field === 'ip'), 'the IP byte order differs')
  }

  beforeAll(async () => {
    // No watch cache: a watch resumes from etcd, whose compacted history answers 410 (step 4).
    plane = await startControlPlane({ nodes: 3, apiserverArgs: ['--watch-cache=false'] })
    proxy = await startTcpProxy({ target: { port: Number(new URL(plane.url).port) } })
    cluster = await startK8sBackend(plane, snapshotWorkload(), { server: `https://127.0.0.1:${proxy.port}`, hostname: 'ours' })
    contender = startContender('rust', COMMAND, { kubeconfig: cluster.kubeconfig, intakePort: cluster.tapProcess.ingestPort, hostname: THEIRS, env: { RUST_LOG: 'info' } })
  }, 300_000)

  afterAll(async () => {
    console.log(`contender report:\n${JSON.stringify(report, null, 1)}`)
    await contender?.kill()
    await cluster?.close()
    await proxy?.close()
    await plane?.stop()
  }, 60_000)

  const withLog = (fn: () => Promise<void>) => async () => {
    try {
      await fn()
    } catch (err) {
      ;(err as Error).message += `\ncontender output (tail):\n${contender?.stderr().slice(-3000)}`
      throw err
    }
  }

  it('1. snapshot: the same pods, owners, containers and epochs; IPs byte-reversed', withLog(async () => {
    const ours = await oursSettled()
    const theirs = await theirsHolding(ours.pods.map((p) => p.uid))
    const { cmp } = await both()
    const s = await streams()
    report.push({ step: 'snapshot', pods: ours.pods.length, oursEpochs: ours.epochs, theirsEpochs: theirs.epochs, cmp, streams: s, theirsAgent: theirs.agent, theirsVersion: theirs.version })
    assert.deepEqual(cmp.onlyOurs, [])
    assert.deepEqual(cmp.onlyTheirs, [])
    assertOnlyIpsReversed(cmp, heldPods(ours))
    assert.deepEqual(ours.epochs.map(Number), [1])
    // Theirs connects before its lists are in: an empty epoch 1, then epoch 2 with every pod.
    assert.deepEqual(theirs.epochs.map(Number), [1, 2], 'theirs: an empty first epoch, then the snapshot')
    // Theirs sends version_info and connect only, heartbeats every 5 s, no collector_health.
    for (const t of ['report_cpu_cores', 'cloud_platform', 'set_node_info', 'metadata_complete', 'collector_health']) {
      assert.equal(s.theirs?.byType[t], undefined, `theirs sends no ${t}`)
      if (t !== 'collector_health') assert.equal(s.ours?.byType[t], 1, `ours sends ${t}`)
    }
  }), 180_000)

  it('2. deletes: ours at once; theirs held for the 60 s TTL, then sent only with a later pod event', withLog(async () => {
    await cluster.apply([deployment('late', 3), barePod('victim'), barePod('doomed')])
    const before = await oursSettled()
    await theirsHolding(before.pods.map((p) => p.uid))
    await cluster.patch('deployments', NS, 'late', { spec: { replicas: 1 } })
    await cluster.delete('pods', NS, 'doomed')
    const deletedAt = Date.now()
    const after = await oursSettled()
    const oursMs = Date.now() - deletedAt
    const gone = before.pods.filter((p) => !after.pods.some((q) => q.uid === p.uid)).map((p) => `${p.ns}/${p.podName}`)
    assert.equal(gone.length, 3, 'two late pods and doomed deleted')
    // Quiet for 20 s: the contender still holds every deleted pod.
    await new Promise((r) => setTimeout(r, 20_000))
    const held = await both()
    assert.deepEqual([...held.cmp.onlyTheirs].sort(), [...gone].sort(), 'the contender still holds the deleted pods 20 s later')
    // Past the TTL, with no pod event: still held (the adapter only drains on a later event).
    await new Promise((r) => setTimeout(r, Math.max(0, deletedAt + 65_000 - Date.now())))
    const quiet = await both()
    // A later pod event (a new pod) lets it send the expired deletes.
    await cluster.apply([barePod('poke')])
    const pokedAt = Date.now()
    const settled = await oursSettled()
    await theirsHolding(settled.pods.map((p) => p.uid), 30_000)
    const final = await both()
    report.push({ step: 'deletes', gone, oursMs, heldAfter20s: held.cmp.onlyTheirs, heldAfter65sQuiet: quiet.cmp.onlyTheirs, theirsAfterPokeMs: Date.now() - pokedAt, cmp: final.cmp, streams: await streams() })
    assert.ok(oursMs < 15_000, `ours delivered the deletes within ${oursMs} ms`)
    assert.deepEqual([...quiet.cmp.onlyTheirs].sort(), [...gone].sort(), 'past the TTL, a quiet cluster: theirs still holds them')
    const s = report.at(-1)!.streams as Awaited<ReturnType<typeof streams>>
    assert.equal(s.ours?.repeatedContainers, 0, 'ours sends a container tuple once')
    assert.ok((s.theirs?.repeatedContainers ?? 0) > 0, 'theirs sends every container again on each update of an announced pod')
    assert.deepEqual(final.cmp.onlyOurs, [])
    assert.deepEqual(final.cmp.onlyTheirs, [])
    assertOnlyIpsReversed(final.cmp, heldPods(final.ours))
  }), 240_000)

  it('3. reducer restart: both reconnect with a new epoch and the complete set', withLog(async () => {
    const before = await both()
    await cluster.restartReducer()
    const ours = await oursSettled(60_000)
    const theirs = await theirsHolding(ours.pods.map((p) => p.uid))
    const { cmp } = await both()
    report.push({ step: 'reducer restart', oursEpochs: [before.ours?.epochs, ours.epochs], theirsEpochs: [before.theirs?.epochs, theirs.epochs], cmp, streams: await streams() })
    assert.deepEqual(cmp.onlyOurs, [])
    assert.deepEqual(cmp.onlyTheirs, [])
    assertOnlyIpsReversed(cmp, heldPods(ours))
    assert.deepEqual(ours.epochs.map(Number), [Number(before.ours?.epochs.at(-1)) + 1])
    assert.deepEqual(theirs.epochs.map(Number), [Number(before.theirs?.epochs.at(-1)) + 1])
  }), 180_000)

  it("4. a 410 after an etcd compaction: ours relists by difference; theirs resyncs the connection", withLog(async () => {
    const before = await both()
    await proxy.setMode('refuse')
    await cluster.delete('pods', NS, 'victim')
    await cluster.apply([barePod('newcomer')])
    await waitFor('newcomer to run', async () => ((await cluster.objects()).pods.some((p) => p.metadata.name === 'newcomer' && p.status?.phase === 'Running') ? true : undefined), { timeoutMs: 30_000 })
    await plane.compactEtcd()
    await proxy.setMode('pass')
    const passAt = Date.now()
    const ours = await oursSettled(90_000)
    const oursMs = Date.now() - passAt
    const theirs = await theirsHolding(ours.pods.map((p) => p.uid), 120_000)
    const theirsMs = Date.now() - passAt
    const { cmp } = await both()
    const gone = (contender.stderr().match(/410|[Gg]one|too old/g) ?? []).length
    report.push({ step: '410', theirsLogLinesNaming410: gone, oursMs, theirsMs, ours: { sameConnection: ours.id === before.ours?.id, epochs: ours.epochs }, theirs: { sameConnection: theirs.id === before.theirs?.id, epochs: theirs.epochs }, cmp, streams: await streams() })
    assert.equal(ours.id, before.ours?.id)
    assert.deepEqual(ours.epochs, before.ours?.epochs, 'ours: no new epoch')
    assert.deepEqual(cmp.onlyOurs, [])
    assert.deepEqual(cmp.onlyTheirs, [])
    assertOnlyIpsReversed(cmp, heldPods(ours))
    // Theirs relists into a new epoch on the same connection: pod_resync and every pod again.
    assert.equal(theirs.id, before.theirs?.id)
    assert.deepEqual(theirs.epochs.map(Number), [...(before.theirs?.epochs ?? []).map(Number), Number(before.theirs?.epochs.at(-1)) + 1])
  }), 240_000)
})
