// The end-to-end scenarios (issue 6), written once against E2eCluster. Each asserts what the tap
// holds; every one ends with the quiescence check (scenario 8).
import assert from 'node:assert/strict'
import { OwnerKindCode } from '../../src/model/owner-kinds.ts'
import type { MessageRecord, TapRecord } from '../../src/tap/index.ts'
import { converged, expectedPods, openConnection, type ClusterObjects } from '../harness/expect.ts'
import { waitFor } from '../harness/wait.ts'
import type { E2eCluster } from './cluster.ts'
import { cronJob, deployment, NS } from './workloads.ts'

export interface Scenario {
  readonly name: string
  run(cluster: E2eCluster): Promise<void>
}

/** Scenario 8: the tap's pod set equals the cluster's running pods exactly. */
export async function quiescent(cluster: E2eCluster, timeoutMs = cluster.settleMs, notId?: number) {
  return converged(async () => ({ cluster: await cluster.objects(), tap: await cluster.tapState() }), cluster.collectorHostname, timeoutMs, notId)
}

/** Every record of connection `conn` so far. */
async function recordsOf(cluster: E2eCluster, conn: number): Promise<TapRecord[]> {
  const out: TapRecord[] = []
  for (let since = 0; ; ) {
    const page = await cluster.tapEvents(since)
    out.push(...page.events.filter((r) => r.conn === conn))
    if (page.events.length === 0 || page.next === since) return out
    since = page.next
  }
}

/**
 * No duplicates on a connection: a pod is announced again only with a changed announcement, and a
 * container tuple is sent once per pod (docs/behaviour.md §5).
 */
export async function assertNoDuplicates(cluster: E2eCluster, conn: number): Promise<void> {
  const last = new Map<string, string>()
  const containers = new Set<string>()
  for (const r of await recordsOf(cluster, conn)) {
    if (r.type === 'pod_resync') {
      last.clear()
      containers.clear()
    } else if (r.type === 'pod_new_with_name') {
      const f = (r as MessageRecord).fields
      const tuple = JSON.stringify(f)
      assert.notEqual(last.get(String(f.uid)), tuple, `pod ${f.podName} announced twice with the same details on connection ${conn}`)
      last.set(String(f.uid), tuple)
    } else if (r.type === 'pod_container') {
      const f = (r as MessageRecord).fields
      const key = `${f.uid}|${f.containerId}|${f.containerName}|${f.containerImage}`
      assert.ok(!containers.has(key), `container ${f.containerName} of ${f.uid} sent twice on connection ${conn}`)
      containers.add(key)
    } else if (r.type === 'pod_delete') {
      last.delete(String((r as MessageRecord).fields.uid))
    }
  }
}

const podsNamed = (objects: ClusterObjects, prefix: string) => expectedPods(objects).filter((p) => p.podName.startsWith(prefix))

export const scenarios: readonly Scenario[] = [
  {
    name: '1. snapshot: every owner shape announced once, epoch 1',
    async run(cluster) {
      const conn = await quiescent(cluster)
      assert.deepEqual(conn.epochs, [1])
      const kinds = new Set(conn.pods.map((p) => p.ownerKind))
      for (const k of [OwnerKindCode.Deployment, OwnerKindCode.ReplicaSet, OwnerKindCode.Job, OwnerKindCode.CronJob, OwnerKindCode.NoOwner, OwnerKindCode.Other]) {
        assert.ok(kinds.has(k), `an owner kind ${k} pod is announced`)
      }
      const find = (prefix: string) => conn.pods.filter((p) => p.podName.startsWith(prefix))
      assert.ok(find('web-').length === 2 && find('web-').every((p) => p.ownerKind === 1 && p.ownerName === 'web' && p.containers.length === 2))
      assert.ok(find('bare-rs-').every((p) => p.ownerKind === 0 && p.ownerName === 'bare-rs'))
      assert.ok(find('standalone-').every((p) => p.ownerKind === 2 && p.ownerName === 'standalone'))
      assert.ok(find('nightly-').every((p) => p.ownerKind === 3 && p.ownerName === 'nightly'))
      assert.ok(find('agent-').length >= 1 && find('agent-').every((p) => p.ownerKind === 255 && p.ownerName === 'agent'))
      assert.ok(find('db-').length === 2 && find('db-').every((p) => p.ownerKind === 255 && p.ownerName === 'db'))
      assert.deepEqual(
        conn.pods.filter((p) => p.podName === 'bare').map((p) => [p.ownerKind, p.ownerUid, p.ownerName]),
        [[254, '', 'bare']],
      )
      assert.ok(conn.pods.find((p) => p.podName === 'host-net')?.isHostNetwork)
      await assertNoDuplicates(cluster, conn.id)
    },
  },
  {
    name: '2. new workloads are announced; scale up and down',
    async run(cluster) {
      await cluster.apply([deployment('late', 1)])
      await quiescent(cluster)
      await cluster.patch('deployments', NS, 'late', { spec: { replicas: 3 } })
      await waitFor('3 late pods', async () => (podsNamed(await cluster.objects(), 'late-').length === 3 ? true : undefined), { timeoutMs: cluster.settleMs })
      await quiescent(cluster)
      await cluster.patch('deployments', NS, 'late', { spec: { replicas: 1 } })
      await waitFor('1 late pod', async () => (podsNamed(await cluster.objects(), 'late-').length === 1 ? true : undefined), { timeoutMs: cluster.settleMs })
      const conn = await quiescent(cluster)
      assert.equal(conn.pods.filter((p) => p.podName.startsWith('late-')).length, 1)
      await assertNoDuplicates(cluster, conn.id)
    },
  },
  {
    name: '3. rollout: new pods owned by the Deployment, old pods deleted',
    async run(cluster) {
      const before = podsNamed(await cluster.objects(), 'web-').map((p) => p.uid)
      await cluster.patch('deployments', NS, 'web', {
        spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }, { name: 'sidecar', image: 'busybox:1.37', command: ['sleep', '3600'] }] } } },
      })
      await waitFor('the rollout to finish', async () => {
        const web = podsNamed(await cluster.objects(), 'web-')
        return web.length === 2 && web.every((p) => !before.includes(p.uid) && p.version.includes('busybox:1.37')) ? true : undefined
      }, { timeoutMs: cluster.settleMs * 2 })
      const conn = await quiescent(cluster)
      const web = conn.pods.filter((p) => p.podName.startsWith('web-'))
      assert.ok(web.every((p) => p.ownerKind === 1 && p.ownerName === 'web' && !before.includes(p.uid)), 'only new pods, owned by the Deployment')
      await assertNoDuplicates(cluster, conn.id)
    },
  },
  {
    name: '4. CronJob runs: Job pods announced as CronJob-owned, deleted when the Job is cleaned up',
    async run(cluster) {
      await cluster.apply([cronJob('ticker', { runSeconds: 3 })])
      const since = (await cluster.tapEvents(0)).last
      await cluster.runCronJob(NS, 'ticker')
      const state = () => cluster.tapEvents(since).then((p) => p.events as MessageRecord[])
      const announced = await waitFor('a ticker pod announced as CronJob-owned', async () => {
        const r = (await state()).find((e) => e.type === 'pod_new_with_name' && e.fields.ownerName === 'ticker')
        return r ? r : undefined
      }, { timeoutMs: cluster.settleMs + (cluster.name === 'sim' ? 0 : 90_000) })
      assert.equal(announced.fields.ownerKind, OwnerKindCode.CronJob)
      await waitFor('the ticker pod deleted after its Job is cleaned up', async () =>
        (await state()).some((e) => e.type === 'pod_delete' && e.fields.uid === announced.fields.uid) ? true : undefined,
      { timeoutMs: cluster.settleMs + 30_000 })
      await cluster.delete('cronjobs', NS, 'ticker')
      await quiescent(cluster)
    },
  },
  {
    name: '5. reducer restart: new connection, epoch + 1, complete set',
    async run(cluster) {
      const before = openConnection(await cluster.tapState(), cluster.collectorHostname)
      assert.ok(before, 'a connection before the restart')
      const epoch = Number(before.epochs.at(-1))
      await cluster.restartReducer()
      const conn = await quiescent(cluster, cluster.settleMs + 35_000)
      assert.deepEqual(conn.epochs.map(Number), [epoch + 1])
    },
  },
  {
    name: '6. collector restart: a new process, epoch 1, complete set',
    async run(cluster) {
      const before = openConnection(await cluster.tapState(), cluster.collectorHostname)
      assert.ok(before, 'a connection before the restart')
      await cluster.restartCollector()
      // The old process is gone, but the tap may not have seen its connection close yet.
      const conn = await quiescent(cluster, cluster.settleMs + 60_000, before.id)
      assert.notEqual(conn.id, before.id)
      assert.deepEqual(conn.epochs.map(Number), [1])
      await assertNoDuplicates(cluster, conn.id)
    },
  },
  {
    name: '7. API disruption: no duplicates, no losses, deletes delivered',
    async run(cluster) {
      const conn = openConnection(await cluster.tapState(), cluster.collectorHostname)!
      const victims = ['bare', 'host-net']
      const done = await cluster.disruptApi('drop-watches', () => cluster.delete('pods', NS, victims[0]!))
      await quiescent(cluster)
      if (cluster.name === 'sim') {
        await cluster.disruptApi('gone', () => cluster.delete('pods', NS, victims[1]!))
        await cluster.disruptApi('stall', () => cluster.patch('deployments', NS, 'late', { spec: { replicas: 2 } }))
      }
      const after = await quiescent(cluster)
      assert.equal(after.id, conn.id, `the reducer connection survived (${done.join(', ')})`)
      assert.deepEqual(after.epochs.map(Number), conn.epochs.map(Number), 'no resync')
      for (const v of victims.slice(0, cluster.name === 'sim' ? 2 : 1)) assert.ok(!after.pods.some((p) => p.podName === v), `${v} deleted`)
      await assertNoDuplicates(cluster, after.id)
    },
  },
]
