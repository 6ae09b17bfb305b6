// The kind suite's high-availability scenario (issue 17): kind/collector.yaml's two replicas have
// one leader connected to the tap and one ready standby; deleting the leader pod hands over to the
// standby, whose connection converges to the cluster; both pods and the Lease show it as Events.
import assert from 'node:assert/strict'
import { waitFor } from '../harness/wait.ts'
import { assertNoDuplicates, quiescent } from '../scenarios/scenarios.ts'
import { isReady, type KindCluster } from './backend.ts'
import { checkLeaderEvents } from './events.ts'
import type { Kubectl } from './setup.ts'

/** How long two replicas may take to roll out and elect (image start, priming, a lease duration). */
const ROLL_OUT_MS = 120_000

export const haScenario = {
  name: 'HA. two replicas: one leader, a ready standby; the leader pod deleted, the standby takes over',
  async run(cluster: KindCluster, kubectl: Kubectl): Promise<void> {
    const pods = await waitFor('two ready collector pods', async () => {
      const ready = (await cluster.collectorPods()).filter((p) => isReady(p) && !p.metadata.deletionTimestamp)
      return ready.length === 2 ? ready : undefined
    }, { timeoutMs: ROLL_OUT_MS })
    const leader = await cluster.findCollector()
    const standby = pods.find((p) => p.metadata.name !== leader)!.metadata.name
    assert.equal((await cluster.collectorReadyz(leader)).trim(), 'ok: leader')
    assert.equal((await cluster.collectorReadyz(standby)).trim(), 'ok: standby')
    // One connection from the collectors is open at the tap: the leader's.
    const openIds = async (): Promise<number[]> => {
      const nodes = new Set((await cluster.collectorPods()).map((p) => p.spec?.nodeName).filter(Boolean))
      return (await cluster.tapState()).connections.filter((c) => c.open && nodes.has(c.hostname ?? '')).map((c) => c.id)
    }
    const before = await quiescent(cluster)
    assert.deepEqual(await openIds(), [before.id], 'exactly one collector connection open')

    await cluster.restartCollector()
    const next = await cluster.findCollector()
    // The standby leads unless the replacement pod primed and won first (it starts cold: unlikely).
    assert.notEqual(next, leader)
    const conn = await quiescent(cluster, cluster.settleMs, before.id)
    assert.notEqual(conn.id, before.id)
    assert.deepEqual(conn.epochs.map(Number), [1], 'the new leader\'s first term')
    assert.deepEqual(await openIds(), [conn.id], 'exactly one collector connection open')
    await assertNoDuplicates(cluster, conn.id)
    // Issue 23: the handover as Kubernetes Events, about both pods and the Lease.
    await checkLeaderEvents(kubectl, leader, next)
  },
}
