import { describe, expect, it } from 'vitest'
import { expandMessages, type PodOutput } from '../ingest/messages.ts'
import { createModelContext, type OwnerKind, type OwnerMeta, type PodMeta, type StreamEvent } from '../model/index.ts'
import { createCollectorCore, type CollectorCore, type CoreConfig } from './index.ts'
import { ctr, job, ownedBy, pod, rs, show } from '../../e2e/harness/match-fixtures.ts'

const config: CoreConfig = { deleteTtlMs: 60_000, deleteCapacity: 10_000, waitingLimit: 10_000 }

/** A core whose three streams have delivered their first (empty) list, connected at epoch 1. */
function primedCore(over: Partial<CoreConfig> = {}, connect = true, model = createModelContext()): CollectorCore {
  const core = createCollectorCore({ ...config, ...over }, model)
  for (const kind of ['ReplicaSet', 'Job'] as const) {
    core.owners(kind, { type: 'init' }, 0)
    core.owners(kind, { type: 'initDone' }, 0)
  }
  core.pods({ type: 'init' }, 0)
  core.pods({ type: 'initDone' }, 0)
  if (connect) expect(show(core.connect())).toEqual(['resync 1'])
  return core
}

/**
 * A core that listed the ReplicaSet r1 (of Deployment d1), no Jobs, then `listed` pods; not
 * connected. Returns it and the messages of the pods' initApply events.
 */
function listedCore(listed: PodMeta[]): { core: CollectorCore; sent: PodOutput[] } {
  const core = createCollectorCore(config)
  core.owners('ReplicaSet', { type: 'init' }, 0)
  core.owners('ReplicaSet', { type: 'initApply', object: rs('r1', 'd1') }, 0)
  core.owners('ReplicaSet', { type: 'initDone' }, 0)
  core.owners('Job', { type: 'init' }, 0)
  core.owners('Job', { type: 'initDone' }, 0)
  core.pods({ type: 'init' }, 0)
  const sent = listed.flatMap((p) => core.pods({ type: 'initApply', object: p }, 0))
  core.pods({ type: 'initDone' }, 0)
  return { core, sent }
}

const apply = <T>(object: T): StreamEvent<T> => ({ type: 'apply', object })
const del = <T>(object: T): StreamEvent<T> => ({ type: 'delete', object })
const DEP = 'new p1 owner=1/d1/dep-d1 ip=a000001 v=\'img:1\''

describe('§3 effective owner', () => {
  it.each<[string, OwnerMeta[], PodMeta, string]>([
    ['no owner → NoOwner (254, "", pod name)', [], pod('p1'), 'new p1 owner=254//pod-p1'],
    ['DaemonSet → as-is, 255', [], pod('p1', ownedBy('DaemonSet', 'ds1')), 'new p1 owner=255/ds1/daemonset-ds1'],
    ['StatefulSet → as-is, 255', [], pod('p1', ownedBy('StatefulSet', 'ss1')), 'new p1 owner=255/ss1/statefulset-ss1'],
    ['Node (static pod) → as-is, 255', [], pod('p1', ownedBy('Node', 'n1')), 'new p1 owner=255/n1/node-n1'],
    ['Deployment directly → 1', [], pod('p1', ownedBy('Deployment', 'd9')), 'new p1 owner=1/d9/deployment-d9'],
    ['ReplicaSet with a Deployment → Deployment', [rs('r1', 'd1')], pod('p1', ownedBy('ReplicaSet', 'r1')), 'new p1 owner=1/d1/dep-d1'],
    ['bare ReplicaSet → ReplicaSet (0)', [rs('r1')], pod('p1', ownedBy('ReplicaSet', 'r1')), 'new p1 owner=0/r1/replicaset-r1'],
    ['ReplicaSet with a non-Deployment controller → ReplicaSet', [rs('r1', undefined, { controller: { kind: 'Rollout', uid: 'x', name: 'x' } })], pod('p1', ownedBy('ReplicaSet', 'r1')), 'new p1 owner=0/r1/replicaset-r1'],
    ['Job with a CronJob → CronJob (3)', [job('j1', 'c1')], pod('p1', ownedBy('Job', 'j1')), 'new p1 owner=3/c1/cron-c1'],
    ['standalone Job → Job (2)', [job('j1')], pod('p1', ownedBy('Job', 'j1')), 'new p1 owner=2/j1/job-j1'],
  ])('%s', (_name, owners, p, expected) => {
    const core = primedCore()
    for (const o of owners) core.owners(o.kind as OwnerKind, apply(o), 0)
    expect(show(core.pods(apply(p), 0))[0]!.replace(/ ip=.*/, '')).toBe(expected.replace(/ ip=.*/, ''))
  })

  it('a pod whose ReplicaSet is unknown waits, and is announced when it arrives', () => {
    const core = primedCore()
    expect(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)).toEqual([])
    expect(core.stats().podsWaiting).toBe(1)
    expect(show(core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0))).toEqual([DEP, 'ctr p1 containerd://p1-0'])
    expect(core.stats().podsWaiting).toBe(0)
  })

  it('the waiting index de-duplicates repeated updates of a waiting pod', () => {
    const core = primedCore()
    for (let i = 0; i < 5; i++) core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)
    expect(core.stats().podsWaiting).toBe(1)
    expect(show(core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0))).toHaveLength(2)
  })

  it('an unavailable owner stream resolves pods to their direct owner, escalated on recovery (rule 5.3)', () => {
    const core = createCollectorCore(config)
    core.owners('ReplicaSet', { type: 'unavailable', reason: '403' }, 0)
    core.owners('Job', { type: 'init' }, 0)
    core.owners('Job', { type: 'initDone' }, 0)
    core.pods({ type: 'init' }, 0)
    core.pods({ type: 'initApply', object: pod('p1', ownedBy('ReplicaSet', 'r1')) }, 0)
    core.pods({ type: 'initDone' }, 0)
    expect(core.primed).toBe(true)
    expect(show(core.connect())).toEqual(['resync 1', "new p1 owner=0/r1/replicaset-r1 ip=a000001 v='img:1'", 'ctr p1 containerd://p1-0'])
    core.owners('ReplicaSet', { type: 'init' }, 0)
    // The owner's arrival re-resolves its pods at once; containers were already sent.
    expect(show(core.owners('ReplicaSet', { type: 'initApply', object: rs('r1', 'd1') }, 0))).toEqual([DEP])
    expect(core.owners('ReplicaSet', { type: 'initDone' }, 0)).toEqual([])
    expect(core.stats().available.replicasets).toBe(true)
  })

  it('pods already waiting resolve to the direct owner when the stream turns unavailable', () => {
    const core = primedCore()
    core.pods(apply(pod('p1', ownedBy('Job', 'j1'))), 0)
    expect(show(core.owners('Job', { type: 'unavailable', reason: '404' }, 0))).toEqual([
      "new p1 owner=2/j1/job-j1 ip=a000001 v='img:1'",
      'ctr p1 containerd://p1-0',
    ])
  })

  it('a resolved owner is remembered after the owner vanishes in a relist', () => {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)
    core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)
    core.owners('ReplicaSet', { type: 'init' }, 0)
    core.owners('ReplicaSet', { type: 'initDone' }, 0)
    expect(core.stats().replicaSetsStored).toBe(0)
    expect(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)).toEqual([])
    core.disconnect()
    expect(show(core.connect())).toEqual(['resync 2', DEP, 'ctr p1 containerd://p1-0'])
  })

  it('a changed owner reference forgets the remembered owner', () => {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)
    core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)
    core.owners('ReplicaSet', del(rs('r1', 'd1')), 0)
    core.tick(61_000)
    expect(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r2'))), 61_000)).toEqual([])
    expect(core.stats().podsWaiting).toBe(1)
    expect(show(core.owners('ReplicaSet', apply(rs('r2', 'd2')), 61_000))).toEqual(["new p1 owner=1/d2/dep-d2 ip=a000001 v='img:1'"])
  })
})

describe('§5 emission rules', () => {
  it('5.1: a resolvable pod → pod_new_with_name then one pod_container per container with an id', () => {
    const core = primedCore()
    const p = pod('p1', undefined, { containers: [ctr('a', 'app'), ctr('b', 'side')] })
    expect(show(core.pods(apply(p), 0))).toEqual(["new p1 owner=254//pod-p1 ip=a000001 v='img:1'", 'ctr p1 containerd://a', 'ctr p1 containerd://b'])
  })

  it('a pod without an IP is held back until it has one', () => {
    const core = primedCore()
    expect(core.pods(apply(pod('p1', undefined, { hasIp: false, ip: 0, containers: [] })), 0)).toEqual([])
    expect(show(core.pods(apply(pod('p1')), 0))).toHaveLength(2)
  })

  it('a dual-stack or IPv6-only pod is announced (ip 0 when no IPv4)', () => {
    const core = primedCore()
    expect(show(core.pods(apply(pod('p1', undefined, { ip: 0, hasIp: true })), 0))[0]).toContain('ip=0 ')
  })

  it('5.2: an unchanged update sends only container tuples not sent before', () => {
    const core = primedCore()
    core.pods(apply(pod('p1', undefined, { containers: [ctr('a')] })), 0)
    expect(core.pods(apply(pod('p1', undefined, { containers: [ctr('a')] })), 0)).toEqual([])
    expect(show(core.pods(apply(pod('p1', undefined, { containers: [ctr('a'), ctr('b')] })), 0))).toEqual(['ctr p1 containerd://b'])
    expect(core.pods(apply(pod('p1', undefined, { containers: [ctr('b'), ctr('a')] })), 0)).toEqual([])
  })

  it('5.3: a changed announcement → pod_new_with_name again, then unsent tuples', () => {
    const core = primedCore()
    core.pods(apply(pod('p1', undefined, { containers: [ctr('a')] })), 0)
    expect(show(core.pods(apply(pod('p1', undefined, { version: "'img:2'", containers: [ctr('a2', 'c', 'img:2')] })), 0))).toEqual([
      "new p1 owner=254//pod-p1 ip=a000001 v='img:2'",
      'ctr p1 containerd://a2',
    ])
    expect(show(core.pods(apply(pod('p1', undefined, { ip: 0x0a000002, version: "'img:2'", containers: [ctr('a2', 'c', 'img:2')] })), 0))).toEqual([
      "new p1 owner=254//pod-p1 ip=a000002 v='img:2'",
    ])
  })

  it('5.3: adoption by a new controller and an owner gaining a Deployment re-announce', () => {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1')), 0)
    core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)
    expect(show(core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0))).toEqual([DEP])
    expect(core.owners('ReplicaSet', apply(rs('r1', 'd1', { resourceVersion: '7' })), 0)).toEqual([]) // rule 5.6
  })

  it('5.5: deleting an announced pod sends exactly one pod_delete; unannounced pods send nothing', () => {
    const core = primedCore()
    core.pods(apply(pod('p1')), 0)
    expect(show(core.pods(del(pod('p1')), 0))).toEqual(['del p1'])
    expect(core.pods(del(pod('p1')), 0)).toEqual([])
    core.pods(apply(pod('p2', ownedBy('ReplicaSet', 'r9'))), 0)
    expect(core.pods(del(pod('p2', ownedBy('ReplicaSet', 'r9'))), 0)).toEqual([])
    expect(core.stats()).toMatchObject({ podsStored: 0, podsWaiting: 0, podsAnnounced: 0 })
  })

  it('5.6: owner deletes and updates alone send nothing', () => {
    const core = primedCore()
    core.owners('Job', apply(job('j1', 'c1')), 0)
    core.pods(apply(pod('p1', ownedBy('Job', 'j1'))), 0)
    expect(core.owners('Job', apply(job('j1', 'c1')), 0)).toEqual([])
    expect(core.owners('Job', del(job('j1', 'c1')), 0)).toEqual([])
  })

  it('nothing is emitted while disconnected; the next connection announces everything', () => {
    const core = primedCore()
    core.disconnect()
    expect(core.pods(apply(pod('p1')), 0)).toEqual([])
    expect(core.pods(del(pod('p1')), 0)).toEqual([])
    core.pods(apply(pod('p2')), 0)
    expect(show(core.connect())).toEqual(['resync 2', "new p2 owner=254//pod-p2 ip=a000001 v='img:1'", 'ctr p2 containerd://p2-0'])
  })
})

describe('§5 on settled pods (resolved and announced as kept: the unchanged-pod and changed-pod fast paths)', () => {
  /** p1 of r1 (Deployment d1), announced with the tuple a on the current connection. */
  function settledCore(): CollectorCore {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)
    expect(show(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0))).toEqual([DEP, 'ctr p1 containerd://p1-0'])
    return core
  }
  const p1 = (over: Partial<PodMeta>) => pod('p1', ownedBy('ReplicaSet', 'r1'), over)

  it('5.2 and 5.3: unchanged → nothing; a new tuple → only it; reordered → nothing; a changed announcement → pod_new_with_name', () => {
    const core = settledCore()
    const a = ctr('p1-0')
    const b = ctr('b')
    expect(core.pods(apply(p1({ resourceVersion: '2' })), 0)).toEqual([])
    expect(show(core.pods(apply(p1({ containers: [a, b] })), 0))).toEqual(['ctr p1 containerd://b'])
    expect(core.pods(apply(p1({ containers: [b, a] })), 0)).toEqual([])
    expect(show(core.pods(apply(p1({ containers: [b, a], version: "'img:1','img:2'" })), 0))).toEqual([DEP.replace("'img:1'", "'img:1','img:2'")])
    expect(show(core.pods(apply(p1({ containers: [b, a], version: "'img:1','img:2'", hostNetwork: true })), 0))).toEqual([
      `${DEP.replace("'img:1'", "'img:1','img:2'")} host`,
    ])
  })

  it('5.2: a tuple sent for an earlier state of the pod is not sent again on this connection; a new connection sends the current ones', () => {
    const core = settledCore()
    const a = ctr('p1-0')
    const b = ctr('b')
    expect(show(core.pods(apply(p1({ containers: [b] })), 0))).toEqual(['ctr p1 containerd://b']) // a restart: a new id
    expect(show(core.pods(apply(p1({ containers: [b], ip: 0x0a000002 })), 0))).toEqual([DEP.replace('a000001', 'a000002')])
    expect(core.pods(apply(p1({ containers: [a], ip: 0x0a000002 })), 0)).toEqual([]) // back to a: sent before
    expect(show(core.pods(apply(p1({ containers: [ctr('p1-0', 'c', 'img:2')], ip: 0x0a000002 })), 0))).toEqual(['ctr p1 containerd://p1-0']) // same id, new image: a new tuple
    core.disconnect()
    expect(show(core.connect())).toEqual(['resync 2', DEP.replace('a000001', 'a000002'), 'ctr p1 containerd://p1-0'])
  })

  it.each([
    ['a few containers (compared one by one)', 3],
    ['thousands of containers (compared as sets of tuples, docs/behaviour.md §14)', 2_000],
  ])('5.2 for %s: each new tuple once, nothing for a reorder or a tuple sent before', (_name, n) => {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)
    const ids = (cs: readonly { id: string }[]) => cs.map((c) => `ctr p1 ${c.id}`)
    const first = Array.from({ length: n }, (_, i) => ctr(`p1-${i}`))
    const at = (cs: PodMeta['containers']) => pod('p1', ownedBy('ReplicaSet', 'r1'), { containers: cs })
    expect(show(core.pods(apply(at(first)), 0))).toEqual([DEP, ...ids(first)])
    const added = ctr('added')
    expect(show(core.pods(apply(at([...first].reverse().concat(added))), 0))).toEqual(ids([added]))
    const restarted = first.map((c, i) => (i % 2 === 0 ? ctr(`p1-${i}-restart`) : c))
    expect(show(core.pods(apply(at(restarted)), 0))).toEqual(ids(restarted.filter((_, i) => i % 2 === 0)))
    expect(core.pods(apply(at(first)), 0)).toEqual([]) // every one sent before on this connection
    const reimaged = first.map((c, i) => (i === n - 1 ? ctr(`p1-${i}`, 'c', 'img:2') : c))
    expect(show(core.pods(apply(at(reimaged)), 0))).toEqual(ids([reimaged[n - 1]!]))
    expect(core.pods(apply(at([...reimaged].reverse())), 0)).toEqual([])
    core.disconnect()
    expect(show(core.connect())).toEqual(['resync 2', DEP, ...ids([...reimaged].reverse())])
  })

  it('a pod still waiting when a connection starts is not settled by it: its change is held until its owner arrives', () => {
    const core = primedCore()
    core.pods(apply(pod('p1', ownedBy('Job', 'j2'))), 0)
    core.disconnect()
    expect(show(core.connect())).toEqual(['resync 2'])
    expect(core.pods(apply(pod('p1', ownedBy('Job', 'j2'), { ip: 0x0a000002 })), 0)).toEqual([])
    expect(core.stats().podsWaiting).toBe(1)
    expect(show(core.owners('Job', apply(job('j2')), 0))).toEqual(['new p1 owner=2/j2/job-j2 ip=a000002 v=\'img:1\'', 'ctr p1 containerd://p1-0'])
  })

  it('a listed pod is kept as listed; its first watch event describes it, sending what changed and nothing else', () => {
    const { core } = listedCore(['p1', 'p2', 'p3'].map((uid) => pod(uid, ownedBy('ReplicaSet', 'r1'))))
    expect(show(core.connect())).toEqual(['resync 1', ...['p1', 'p2', 'p3'].flatMap((u) => [DEP.replace('p1', u), `ctr ${u} containerd://${u}-0`])])
    const p = (uid: string, over: Partial<PodMeta>) => pod(uid, ownedBy('ReplicaSet', 'r1'), over)
    expect(core.pods(apply(p('p1', { resourceVersion: '2' })), 0)).toEqual([]) // unchanged: described, nothing sent
    expect(core.pods(apply(p('p1', { resourceVersion: '3' })), 0)).toEqual([])
    expect(show(core.pods(apply(p('p2', { ip: 0x0a000002 })), 0))).toEqual([DEP.replace('p1', 'p2').replace('a000001', 'a000002')])
    expect(show(core.pods(apply(p('p3', { containers: [ctr('p3-0'), ctr('b')] })), 0))).toEqual(['ctr p3 containerd://b'])
    expect(core.pods(apply(p('p3', { containers: [ctr('b'), ctr('p3-0')] })), 0)).toEqual([])
    expect(show(core.pods(apply(p('p3', { ownerReferences: undefined, owner: ownedBy('ReplicaSet', 'r2') } as Partial<PodMeta>)), 0))).toEqual([]) // waits for r2
    expect(show(core.pods(del(p('p1', {})), 0))).toEqual(['del p1'])
  })

  it('a pod with a value too long for its signature (over 65,535 code units) goes through the full path, exactly', () => {
    const core = settledCore()
    const image = `registry/${'x'.repeat(70_000)}`
    const big = (over: Partial<PodMeta>) => pod('p2', ownedBy('ReplicaSet', 'r1'), { version: `'${image}'`, containers: [ctr('p2-0', 'c', image)], ...over })
    const msgs = core.pods(apply(big({})), 0)
    expect(msgs.map((m) => m.type)).toEqual(['pod_new_with_name', 'pod_container'])
    expect(msgs[0]).toMatchObject({ uid: 'p2', version: `'${image}'` })
    expect(msgs[1]).toMatchObject({ uid: 'p2', containerId: 'containerd://p2-0', containerImage: image })
    expect(core.pods(apply(big({ resourceVersion: '2' })), 0)).toEqual([])
    expect(core.pods(apply(big({ ip: 0x0a000009 })), 0).map((m) => m.type)).toEqual(['pod_new_with_name'])
    core.disconnect()
    expect(expandMessages(core.connect()).map((m) => m.type)).toEqual(['pod_resync', 'pod_new_with_name', 'pod_container', 'pod_new_with_name', 'pod_container'])
    expect(show(core.pods(del(big({})), 0))).toEqual(['del p2'])
    expect(core.stats()).toMatchObject({ podsStored: 1, podsAnnounced: 1 })
  })
})

describe('§4 tombstones', () => {
  it('owner deleted, then a straggling pod update within the TTL: still escalated', () => {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)
    core.owners('ReplicaSet', del(rs('r1', 'd1')), 1000)
    expect(show(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 30_000))).toEqual([DEP, 'ctr p1 containerd://p1-0'])
  })

  it('TTL expiry happens on tick with no further events; nextDeadline tells when', () => {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)
    core.owners('ReplicaSet', del(rs('r1', 'd1')), 1000)
    expect(core.nextDeadline()).toBe(61_000)
    core.tick(60_999)
    expect(core.stats().tombstones).toBe(1)
    core.tick(61_000)
    expect(core.stats().tombstones).toBe(0)
    expect(core.nextDeadline()).toBeUndefined()
    expect(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 61_000)).toEqual([])
    expect(core.stats().podsWaiting).toBe(1)
  })

  it('capacity evicts the oldest tombstone first', () => {
    const core = primedCore({ deleteCapacity: 2 })
    for (const id of ['r1', 'r2', 'r3']) {
      core.owners('ReplicaSet', apply(rs(id, `d-${id}`)), 0)
      core.owners('ReplicaSet', del(rs(id, `d-${id}`)), 0)
    }
    expect(core.stats().tombstones).toBe(2)
    expect(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 1)).toEqual([])
    expect(show(core.pods(apply(pod('p3', ownedBy('ReplicaSet', 'r3'))), 1))[0]).toContain('owner=1/d-r3')
  })

  it('pod deletes are never deferred', () => {
    const core = primedCore()
    core.pods(apply(pod('p1')), 0)
    expect(show(core.pods(del(pod('p1')), 0))).toEqual(['del p1'])
    expect(core.stats().podsStored).toBe(0)
  })
})

describe('§6 epochs, priming and relists', () => {
  it('primed only after the first initDone (or unavailable) of all three streams', () => {
    const core = createCollectorCore(config)
    expect(core.primed).toBe(false)
    core.pods({ type: 'init' }, 0)
    core.pods({ type: 'initDone' }, 0)
    core.owners('ReplicaSet', { type: 'init' }, 0)
    core.owners('ReplicaSet', { type: 'initDone' }, 0)
    expect(core.primed).toBe(false)
    core.markUnavailable('jobs')
    expect(core.primed).toBe(true)
    expect(core.stats().available.jobs).toBe(false)
  })

  it('relist of owners then pods: the first epoch announces the pod with its Deployment', () => {
    const { core, sent } = listedCore([pod('p1', ownedBy('ReplicaSet', 'r1'))])
    expect(sent).toEqual([])
    expect(show(core.connect())).toEqual(['resync 1', DEP, 'ctr p1 containerd://p1-0'])
  })

  it('pods listed before their owners are announced at the first connection', () => {
    const core = createCollectorCore(config)
    core.pods({ type: 'init' }, 0)
    core.pods({ type: 'initApply', object: pod('p1', ownedBy('Job', 'j1')) }, 0)
    core.pods({ type: 'initDone' }, 0)
    core.owners('Job', { type: 'init' }, 0)
    core.owners('Job', { type: 'initApply', object: job('j1', 'c1') }, 0)
    core.owners('Job', { type: 'initDone' }, 0)
    core.owners('ReplicaSet', { type: 'init' }, 0)
    core.owners('ReplicaSet', { type: 'initDone' }, 0)
    expect(show(core.connect())[1]).toContain('owner=3/c1/cron-c1')
  })

  it('each new connection: epoch + 1, pod_resync, full announcement', () => {
    const core = primedCore()
    core.pods(apply(pod('p1')), 0)
    core.disconnect()
    expect(show(core.connect()).slice(0, 2)).toEqual(['resync 2', "new p1 owner=254//pod-p1 ip=a000001 v='img:1'"])
    core.disconnect()
    expect(show(core.connect())[0]).toBe('resync 3')
  })

  it('a pod relist while connected sends the difference: deletes for vanished pods, new/changed pods, no resync', () => {
    const core = primedCore()
    core.pods(apply(pod('p1')), 0)
    core.pods(apply(pod('p2')), 0)
    core.pods({ type: 'init' }, 0)
    expect(core.pods({ type: 'initApply', object: pod('p1') }, 0)).toEqual([])
    expect(show(core.pods({ type: 'initApply', object: pod('p3') }, 0))).toHaveLength(2)
    expect(show(core.pods({ type: 'initApply', object: pod('p1', undefined, { version: "'v2'" }) }, 0))).toEqual([
      "new p1 owner=254//pod-p1 ip=a000001 v='v2'",
    ])
    expect(show(core.pods({ type: 'initDone' }, 0))).toEqual(['del p2'])
    expect(core.stats().epoch).toBe(1)
  })

  it('an owner relist releases waiting pods; owners not relisted vanish without messages', () => {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)
    core.pods(apply(pod('p2', ownedBy('ReplicaSet', 'r2'))), 0)
    core.owners('ReplicaSet', { type: 'init' }, 0)
    expect(show(core.owners('ReplicaSet', { type: 'initApply', object: rs('r2') }, 0))).toHaveLength(2)
    expect(core.owners('ReplicaSet', { type: 'initDone' }, 0)).toEqual([])
    expect(core.stats().replicaSetsStored).toBe(1)
  })

  it('the first owner list into an empty store keeps what it listed; the next relist sweeps what it did not', () => {
    const core = primedCore()
    core.owners('ReplicaSet', { type: 'init' }, 0)
    for (const r of ['r1', 'r2']) core.owners('ReplicaSet', { type: 'initApply', object: rs(r) }, 0)
    core.owners('ReplicaSet', { type: 'initDone' }, 0)
    expect(core.stats().replicaSetsStored).toBe(2)
    core.owners('ReplicaSet', { type: 'init' }, 0)
    core.owners('ReplicaSet', { type: 'initApply', object: rs('r2') }, 0)
    core.owners('ReplicaSet', { type: 'initDone' }, 0)
    expect(core.stats().replicaSetsStored).toBe(1)
  })

  it('waiting limit: asks for an owner relist, then a new epoch on the same connection, with backoff', () => {
    const core = primedCore({ waitingLimit: 2, forcedResyncMinIntervalMs: 60_000, forcedResyncMaxIntervalMs: 240_000 })
    core.pods(apply(pod('ok')), 0)
    core.pods(apply(pod('w1', ownedBy('ReplicaSet', 'x1'))), 0)
    expect(core.takeRelistRequest()).toBe(false)
    core.pods(apply(pod('w2', ownedBy('ReplicaSet', 'x2'))), 0)
    expect(core.takeRelistRequest()).toBe(true)
    expect(core.takeRelistRequest()).toBe(false)
    for (const kind of ['ReplicaSet', 'Job'] as const) core.owners(kind, { type: 'init' }, 1)
    expect(core.owners('ReplicaSet', { type: 'initDone' }, 1)).toEqual([])
    expect(show(core.owners('Job', { type: 'initDone' }, 1))).toEqual(['resync 2', "new ok owner=254//pod-ok ip=a000001 v='img:1'", 'ctr ok containerd://ok-0'])
    expect(core.stats().forcedResyncs).toBe(1)
    // still over the limit: next attempt not before 60 s, then 120 s, capped at 240 s
    expect(core.nextDeadline()).toBe(60_000)
    core.tick(59_999)
    expect(core.takeRelistRequest()).toBe(false)
    core.tick(60_000)
    expect(core.takeRelistRequest()).toBe(true)
    for (const kind of ['ReplicaSet', 'Job'] as const) core.owners(kind, { type: 'initDone' }, 60_001)
    core.tick(60_000 + 119_999)
    expect(core.takeRelistRequest()).toBe(false)
    core.tick(180_000)
    expect(core.takeRelistRequest()).toBe(true)
  })
})

describe('scenario catalogue (legacy collectors, adapted)', () => {
  it('pod first, then its ReplicaSet: emitted on the owner\'s arrival with the Deployment', () => {
    const core = primedCore()
    expect(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)).toEqual([])
    expect(show(core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0))[0]).toBe(DEP)
  })

  it('owner first, then pod: emitted at once', () => {
    const core = primedCore()
    core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)
    expect(show(core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0))[0]).toBe(DEP)
  })

  it('pod deleted, then its owner arrives: nothing emitted', () => {
    const core = primedCore()
    core.pods(apply(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)
    core.pods(del(pod('p1', ownedBy('ReplicaSet', 'r1'))), 0)
    expect(core.owners('ReplicaSet', apply(rs('r1', 'd1')), 0)).toEqual([])
  })

  it('hostNetwork pods carry is_host_network', () => {
    const core = primedCore()
    expect(show(core.pods(apply(pod('p1', ownedBy('DaemonSet', 'ds'), { hostNetwork: true })), 0))[0]).toContain(' host')
  })
})

describe('two cores in one process', () => {
  it('share no caches: each with its own model context holds only its own owner references, and sends what it sends alone', () => {
    const feed = (core: CollectorCore, uid: string, owner: string) => [
      ...core.pods(apply(pod(uid, ownedBy('DaemonSet', owner))), 0),
      ...core.pods(apply(pod(uid, ownedBy('DaemonSet', owner), { containers: [ctr(`${uid}-1`, 'c', `img-${owner}`)], version: `'img-${owner}'` })), 0),
    ]
    const alone = (uid: string, owner: string) => {
      const core = primedCore()
      return expandMessages([...feed(core, uid, owner), ...(core.disconnect(), core.connect())]).map((m) => ({ ...m }))
    }
    const ctxA = createModelContext()
    const ctxB = createModelContext()
    const a = primedCore({}, true, ctxA)
    const b = primedCore({}, true, ctxB)
    const gotA = feed(a, 'p1', 'ds1')
    const gotB = feed(b, 'p1', 'ds2')
    feed(b, 'p2', 'ds3')
    a.disconnect()
    b.disconnect()
    gotA.push(...expandMessages(a.connect())) // decodes its pods while b holds others
    expect(gotA.map((m) => ({ ...m }))).toEqual(alone('p1', 'ds1'))
    expect(gotB.map((m) => ({ ...m }))).toEqual(alone('p1', 'ds2').slice(0, gotB.length))
    expect([ctxA.stats().ownerRefs, ctxB.stats().ownerRefs]).toEqual([1, 2])
  })
})
