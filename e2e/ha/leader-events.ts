// The leader-election Events (issue 23, docs/events.md) of the HA scenarios as an operator reads
// them: `kubectl get events` and `kubectl describe` against the simulator.
import { expect } from 'vitest'
import { waitFor } from '../harness/wait.ts'
import { kubectl } from '../sim/test-client.ts'
import { LEASE_NAME, type HaCluster } from './replicas.ts'

/** A core/v1 Event as `kubectl get events -o json` prints it (the fields read here). */
interface CoreEvent {
  readonly reason: string
  readonly type: string
  readonly message: string
  readonly reportingComponent?: string
  readonly involvedObject: { readonly kind: string; readonly name: string; readonly uid?: string }
}

/** One handover of the scenarios: who led, who took over, and whether the old leader lived to say so. */
export interface Handover {
  readonly leader: string
  readonly standby: string
  /** Why the old leader stopped, as its LeadershipLost note says; undefined when it was killed (no Event). */
  readonly lost?: 'shutting down' | 'renew deadline'
}

const LOST_NOTES = {
  'shutting down': 'the collector is shutting down',
  'renew deadline': 'no renewal succeeded within the renew deadline',
} as const

/**
 * Waits until `kubectl get events` shows, for every handover, `LeaderElected` (Normal) about the
 * new leader's pod and `<identity> became leader` (reason LeaderElection, Normal) about the Lease;
 * for an old leader that stopped alive, `LeadershipLost` (Warning) with its cause and `<identity>
 * stopped leading`; for a killed one, no LeadershipLost. Then checks `kubectl describe` of a pod and
 * of the Lease lists them.
 */
export async function expectLeaderEvents(ha: HaCluster, handovers: readonly Handover[], timeoutMs = 60_000): Promise<void> {
  const lease = ha.sim.get('leases', 'default', LEASE_NAME)
  const uid = (pod: string): string => ha.sim.get('pods', 'default', pod).metadata.uid
  const wanted = handovers.flatMap((h) => [
    { reason: 'LeaderElected', type: 'Normal', kind: 'Pod', name: h.standby, uid: uid(h.standby), message: `Leader on Lease default/${LEASE_NAME} as ${h.standby}` },
    { reason: 'LeaderElection', type: 'Normal', kind: 'Lease', name: LEASE_NAME, uid: lease.metadata.uid, message: `${h.standby} became leader` },
    ...(h.lost
      ? [
          { reason: 'LeadershipLost', type: 'Warning', kind: 'Pod', name: h.leader, uid: uid(h.leader), message: LOST_NOTES[h.lost] },
          { reason: 'LeaderElection', type: 'Normal', kind: 'Lease', name: LEASE_NAME, uid: lease.metadata.uid, message: `${h.leader} stopped leading` },
        ]
      : []),
  ])
  const matches = (e: CoreEvent, w: (typeof wanted)[number]): boolean =>
    e.reason === w.reason && e.involvedObject.kind === w.kind && e.involvedObject.name === w.name && e.message.includes(w.message)
  let events: CoreEvent[] = []
  await waitFor('the leader-election Events of every handover', async () => {
    const list = JSON.parse(await kubectl(ha.kubeconfig, 'get', 'events', '-n', 'default', '-o', 'json')) as { items: CoreEvent[] }
    events = list.items.filter((e) => e.reportingComponent === 'k8s-collector')
    return wanted.every((w) => events.some((e) => matches(e, w))) ? true : undefined
  }, { timeoutMs, intervalMs: 1_000, describe: () => ({ missing: wanted.filter((w) => !events.some((e) => matches(e, w))), seen: events.map((e) => [e.reason, e.involvedObject.name, e.message]) }) })

  for (const w of wanted) expect(events.find((e) => matches(e, w)), `${w.reason} about ${w.name}`).toMatchObject({ type: w.type, involvedObject: { uid: w.uid } })
  for (const h of handovers.filter((x) => !x.lost)) {
    expect(events.filter((e) => e.reason === 'LeadershipLost' && e.involvedObject.name === h.leader), `no LeadershipLost from the killed ${h.leader}`).toEqual([])
  }

  const first = handovers[0]!
  const pod = await kubectl(ha.kubeconfig, 'describe', 'pod', first.standby, '-n', 'default')
  expect(pod.slice(pod.indexOf('Events:'))).toMatch(new RegExp(`Normal\\s+LeaderElected\\s+.*k8s-collector\\s+Leader on Lease default/${LEASE_NAME} as ${first.standby}`))
  const described = await kubectl(ha.kubeconfig, 'describe', 'lease', LEASE_NAME, '-n', 'default')
  const section = described.slice(described.indexOf('Events:'))
  for (const h of handovers) expect(section, described).toMatch(new RegExp(`Normal\\s+LeaderElection\\s+.*k8s-collector\\s+${h.standby} became leader`))
}
