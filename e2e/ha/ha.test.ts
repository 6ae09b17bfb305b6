// Issue 17's scenarios and issue 23's leader-election Events: collectors with --leader-elect as real
// processes (dist/cli.mjs on Node with its V8 flags) against the API simulator, each through its own
// TCP proxy, and the tap as reducer.
// Timing 3/2/0.4 s (lease duration / renew deadline / retry period) unless a scenario says otherwise.
// The scenarios run in order on one cluster; each leaves a leader and a primed standby behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEveryOwnerShape } from '../collector/workload.ts'
import { waitFor } from '../harness/wait.ts'
import { startChurn } from './churn.ts'
import { expectLeaderEvents, type Handover } from './leader-events.ts'
import { at, LEASE_NAME, leaseHolder, startHaCluster, type HaCluster, type Replica, type Timing } from './replicas.ts'

const FAST: Timing = { duration: 3, renewDeadline: 2, retry: 0.4 }
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

let ha: HaCluster
let names = 0
/** The handovers so far, for their Events. */
const handovers: Handover[] = []
/** A new replica with a name of its own (the tap tells connections apart by it). */
const replica = (timing = FAST): Promise<Replica> => ha.start(`ha-${++names}`, timing)

beforeAll(async () => {
  ha = await startHaCluster((sim) => createEveryOwnerShape(sim))
}, 60_000)
afterAll(async () => {
  await ha?.close()
})

/** Fails with the replicas' logs attached. */
async function withLogs<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${ha.logs()}`)
  }
}

const standbyReady = (r: Replica): Promise<true> =>
  waitFor(`${r.name} ready as a primed standby`, async () => ((await r.readyz()).body === 'ok: standby\n' ? true : undefined), { describe: () => r.stderr().slice(-1500) })

/** The leader and the other live replica. */
async function pair(): Promise<{ leader: Replica; standby: Replica }> {
  const leader = await ha.leader()
  const standby = ha.replicas.find((r) => r !== leader && r.process.child.exitCode === null && r.process.child.signalCode === null)!
  await standbyReady(standby)
  return { leader, standby }
}

/** The open connection of `r` at the tap (waits for it). */
const connectionOf = (r: Replica, timeoutMs = 20_000) =>
  withLogs(waitFor(`${r.name}'s reducer connection`, () => ha.connections([r.name]).find((c) => c.open), { timeoutMs }))

/** SIGTERM to every replica still running; each exits 0. */
async function stopAll(): Promise<void> {
  for (const r of ha.replicas) if (r.process.child.exitCode === null && r.process.child.signalCode === null) expect((await r.process.stop()).code).toBe(0)
}

/**
 * A handover under churn: `act` on the leader, then the standby's connection; returns both
 * connections as the tap saw them, when `act` started, and the standby's converged connection.
 */
async function handover(label: string, lost: Handover['lost'], act: (leader: Replica) => Promise<void>) {
  const { leader, standby } = await pair()
  handovers.push({ leader: leader.name, standby: standby.name, ...(lost ? { lost } : {}) })
  const churn = startChurn(ha.sim, { prefix: `churn-${label}`, deployment: 'web' })
  await sleep(500)
  const before = ha.connections([leader.name]).find((c) => c.open)!
  const actedAt = Date.now()
  await act(leader)
  const next = await connectionOf(standby)
  const old = ha.connections([leader.name]).find((c) => c.id === before.id)!
  await sleep(1_000)
  await churn.stop()
  expect(churn.changes).toBeGreaterThan(5)
  return { leader, standby, old, next, actedAt, converged: await withLogs(ha.converged(standby.name)) }
}

describe('two collectors with --leader-elect', () => {
  it('1. exactly one connects; the other is primed, ready and not connected', async () => {
    const [a, b] = await Promise.all([replica(), replica()])
    const leader = await ha.leader()
    const standby = leader === a ? b! : a!
    await withLogs(ha.converged(leader.name))
    await standbyReady(standby)
    expect(await leader.readyz()).toEqual({ status: 200, body: 'ok: leader\n' })
    expect(await standby.metric('k8s_collector_leader')).toBe(0)
    expect(await leader.metric('k8s_collector_leader')).toBe(1)
    expect(await standby.metric('k8s_collector_pods_stored')).toBe(await leader.metric('k8s_collector_pods_stored'))
    // Several lease durations later: still the one connection, and the Lease names its replica.
    await sleep(2 * FAST.duration * 1000)
    expect(ha.connections().map((c) => [c.hostname, c.open])).toEqual([[leader.name, true]])
    expect(leaseHolder(ha.sim)).toBe(leader.name)
    expect(await standby.metric('k8s_collector_leader_transitions_total')).toBe(0)
    expect(standby.stderr()).toContain(`lease default/${LEASE_NAME} held by ${leader.name}`)
  }, 60_000)

  it('2. SIGKILL of the leader: the standby connects within lease duration + 3 s and the tap converges, churn meanwhile', async () => {
    const h = await handover('kill', undefined, async (leader) => void leader.process.child.kill('SIGKILL'))
    expect(at(h.next.openedAt) - h.actedAt).toBeLessThanOrEqual((FAST.duration + 3) * 1000)
    expect(h.converged.epochs).toEqual([1])
    await standbyReady(await replica())
  }, 60_000)

  it('3. SIGTERM of the leader: it closes, releases, exits 0, and the standby connects within 3 s', async () => {
    let exitCode: number | null = null
    const h = await handover('term', 'shutting down', async (leader) => void (exitCode = (await leader.process.stop()).code))
    expect(exitCode).toBe(0)
    expect(at(h.next.openedAt) - h.actedAt).toBeLessThanOrEqual(3_000)
    expect(at(h.old.closedAt)).toBeLessThanOrEqual(at(h.next.openedAt))
    expect(h.leader.stderr()).toContain(`stopping: reducer connection closed, releasing lease default/${LEASE_NAME}`)
    await standbyReady(await replica())
  }, 60_000)

  it('4. a leader cut off from the API closes its connection before the standby opens one; healed, it stays standby', async () => {
    const { leader, standby, old, next } = await handover('cut', 'renew deadline', (l) => l.proxy.setMode('blackhole'))
    expect(old.open).toBe(false)
    // Fencing by time: closed before the standby could take the Lease, by the tap's clock.
    expect(at(old.closedAt)).toBeLessThan(at(next.openedAt))
    expect(leader.stderr()).toContain('not renewed within the renew deadline: reducer connection closed, standing by')
    // Healed: the old leader reads the Lease again, sees the new holder renewing, and stays standby.
    const seenBefore = leader.stderr().split(`held by ${standby.name}`).length
    await leader.proxy.setMode('pass')
    await withLogs(waitFor(`${leader.name} to see ${standby.name} holding the Lease`, () => (leader.stderr().split(`held by ${standby.name}`).length > seenBefore ? true : undefined)))
    await standbyReady(leader)
    await sleep(2 * FAST.duration * 1000)
    expect(await leader.metric('k8s_collector_leader')).toBe(0)
    expect(ha.connections([leader.name]).filter((c) => c.open)).toEqual([])
    expect(ha.connections([standby.name]).filter((c) => c.open).map((c) => c.id)).toEqual([next.id])
    await withLogs(ha.converged(standby.name))
  }, 90_000)

  it('events: kubectl shows every handover (LeaderElected, LeadershipLost on the pods; LeaderElection on the Lease)', async () => {
    expect(handovers.map((h) => h.lost)).toEqual([undefined, 'shutting down', 'renew deadline'])
    // The SIGTERMed leader exited in 3.: what it reported was written before it exited. The cut-off
    // one writes its LeadershipLost once its path to the API server is healed (retried up to 60 s).
    await withLogs(expectLeaderEvents(ha, handovers))
  }, 90_000)

  it('5a. a Lease held by a foreign identity keeps both replicas standby until it expires', async () => {
    await stopAll()
    const FOREIGN_SECONDS = 3
    const renew = (): void => {
      const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')
      ha.sim.patch('leases', 'default', LEASE_NAME, { spec: { holderIdentity: 'foreign-controller', leaseDurationSeconds: FOREIGN_SECONDS, renewTime: now } })
    }
    renew()
    let lastRenewAt = Date.now()
    const renewer = setInterval(() => {
      renew()
      lastRenewAt = Date.now()
    }, 1_000)
    const pairStarted = [await replica(), await replica()]
    try {
      await Promise.all(pairStarted.map(standbyReady))
      await sleep(2 * FOREIGN_SECONDS * 1000)
      expect(ha.connections(pairStarted.map((r) => r.name))).toEqual([])
      for (const r of pairStarted) expect(r.stderr()).toContain(`lease default/${LEASE_NAME} held by foreign-controller`)
    } finally {
      clearInterval(renewer)
    }
    const leader = await ha.leader(FOREIGN_SECONDS * 1000 + 5_000)
    const conn = ha.connections([leader.name]).find((c) => c.open)!
    // Respected for its duration from the last change each replica saw (which came after the write).
    expect(at(conn.openedAt) - lastRenewAt).toBeGreaterThanOrEqual(FOREIGN_SECONDS * 1000 - 20)
    await withLogs(ha.converged(leader.name))
  }, 60_000)

  it('5b. without permission on leases a replica stays standby with one clear log line, and leads once allowed', async () => {
    await stopAll()
    ha.sim.faults.failRequests({ resource: 'leases', status: 403 })
    const r = await replica()
    const line = `forbidden to get lease default/${LEASE_NAME}: the service account needs a Role allowing verbs get, create, update on resource "leases" in API group "coordination.k8s.io" in namespace "default" (and a RoleBinding); until then this replica cannot lead`
    try {
      await withLogs(waitFor('three refused Lease reads', async () => ((await r.metric('k8s_collector_lease_api_errors_total', 'op="get",status="403"')) ?? 0) >= 3 ? true : undefined, { timeoutMs: 30_000 }))
      // Logged once (as JSON: quotes escaped), though refused at every attempt.
      expect(r.stderr().split(JSON.stringify(line).slice(1, -1)).length - 1, r.stderr()).toBe(1)
      expect(await r.readyz()).toEqual({ status: 200, body: 'ok: standby\n' })
      expect(ha.connections([r.name])).toEqual([])
    } finally {
      ha.sim.faults.clearFailures()
    }
    await connectionOf(r, 40_000)
    await withLogs(ha.converged(r.name))
  }, 90_000)
})
