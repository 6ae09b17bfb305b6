// The kind suite's check of issue 23 (docs/events.md): what the collector reported shows with plain
// kubectl — `kubectl get events` in its namespace and `kubectl describe pod`.
import assert from 'node:assert/strict'
import { waitFor } from '../harness/wait.ts'
import { COLLECTOR_LEASE, COLLECTOR_NAMESPACE, type Kubectl } from './setup.ts'

/** A core/v1 Event as `kubectl get events -o json` prints it (the fields read here). */
interface CoreEvent {
  readonly reason: string
  readonly type: string
  readonly message: string
  readonly reportingComponent?: string
  readonly eventTime?: string | null
  readonly series?: { readonly count: number }
  readonly involvedObject: { readonly kind: string; readonly name: string; readonly uid?: string }
}

const ourEvents = async (kubectl: Kubectl): Promise<CoreEvent[]> => {
  const list = JSON.parse(await kubectl(['get', 'events', '-n', COLLECTOR_NAMESPACE, '-o', 'json', '--request-timeout=10s'])) as { items: CoreEvent[] }
  return list.items.filter((e) => e.reportingComponent === 'k8s-collector')
}

/**
 * After scenario 5 (reducer restart) and 6 (collector restart): a ReducerUnreachable Warning about
 * a collector pod, and ReducerConnected about the current one, also in its `kubectl describe`.
 */
export async function checkCollectorEvents(kubectl: Kubectl, currentPod: string): Promise<void> {
  const found = await waitFor('ReducerUnreachable and ReducerConnected events in the collector namespace', async () => {
    const ours = (await ourEvents(kubectl)).filter((e) => e.involvedObject.kind === 'Pod')
    const unreachable = ours.find((e) => e.reason === 'ReducerUnreachable')
    const connected = ours.find((e) => e.reason === 'ReducerConnected' && e.involvedObject.name === currentPod)
    return unreachable && connected ? { unreachable, connected } : undefined
  }, { timeoutMs: 60_000 })
  assert.equal(found.unreachable.type, 'Warning')
  assert.match(found.unreachable.message, /reducer at \S+:8000/)
  assert.equal(found.connected.type, 'Normal')
  assert.ok(found.connected.involvedObject.uid, 'the event names the pod uid (POD_UID from the downward API)')
  assert.match(found.connected.eventTime ?? '', /\.\d{6}Z$/, 'eventTime is a MicroTime')
  const described = await kubectl(['describe', 'pod', currentPod, '-n', COLLECTOR_NAMESPACE, '--request-timeout=10s'])
  const events = described.slice(described.indexOf('Events:'))
  assert.match(events, /Normal\s+ReducerConnected\s+.*k8s-collector\s+Connected to the reducer at /, `kubectl describe pod ${currentPod}:\n${events}`)
}

/**
 * After the HA scenario deleted the leader pod `old` and `next` took over (issue 23): LeaderElected
 * about `next`, LeadershipLost (shutting down) about `old`, and on the Lease what client-go's leader
 * election records there: `<identity> became leader` / `<identity> stopped leading` (identities are
 * `<pod name>_<uuid>`).
 */
export async function checkLeaderEvents(kubectl: Kubectl, old: string, next: string): Promise<void> {
  const about = (events: CoreEvent[], kind: string, name: string, reason: string, message: RegExp): CoreEvent | undefined =>
    events.find((e) => e.involvedObject.kind === kind && e.involvedObject.name === name && e.reason === reason && message.test(e.message))
  const found = await waitFor('LeaderElected, LeadershipLost and the Lease\'s LeaderElection events', async () => {
    const events = await ourEvents(kubectl)
    const got = {
      elected: about(events, 'Pod', next, 'LeaderElected', new RegExp(`^Leader on Lease ${COLLECTOR_NAMESPACE}/${COLLECTOR_LEASE} as ${next}_`)),
      lost: about(events, 'Pod', old, 'LeadershipLost', /the collector is shutting down/),
      became: about(events, 'Lease', COLLECTOR_LEASE, 'LeaderElection', new RegExp(`^${next}_\\S+ became leader$`)),
      stopped: about(events, 'Lease', COLLECTOR_LEASE, 'LeaderElection', new RegExp(`^${old}_\\S+ stopped leading$`)),
    }
    return Object.values(got).every(Boolean) ? (got as Record<keyof typeof got, CoreEvent>) : undefined
  }, { timeoutMs: 60_000 })
  assert.equal(found.elected.type, 'Normal')
  assert.equal(found.lost.type, 'Warning')
  assert.equal(found.became.type, 'Normal')
  assert.equal(found.stopped.type, 'Normal')
  assert.ok(found.became.involvedObject.uid, 'the Lease event names the Lease uid')
  const described = await kubectl(['describe', 'lease', COLLECTOR_LEASE, '-n', COLLECTOR_NAMESPACE, '--request-timeout=10s'])
  assert.match(described.slice(described.indexOf('Events:')), new RegExp(`Normal\\s+LeaderElection\\s+.*${next}_\\S+ became leader`), described)
}
