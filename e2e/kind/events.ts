// The kind suite's check of issue 23 (docs/events.md): what the collector reported shows with plain
// kubectl — `kubectl get events` in its namespace and `kubectl describe pod`.
import assert from 'node:assert/strict'
import { waitFor } from '../harness/wait.ts'
import { COLLECTOR_NAMESPACE, type Kubectl } from './setup.ts'

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

/**
 * After scenario 5 (reducer restart) and 6 (collector restart): a ReducerUnreachable Warning about
 * a collector pod, and ReducerConnected about the current one, also in its `kubectl describe`.
 */
export async function checkCollectorEvents(kubectl: Kubectl, currentPod: string): Promise<void> {
  const found = await waitFor('ReducerUnreachable and ReducerConnected events in the collector namespace', async () => {
    const list = JSON.parse(await kubectl(['get', 'events', '-n', COLLECTOR_NAMESPACE, '-o', 'json', '--request-timeout=10s'])) as { items: CoreEvent[] }
    const ours = list.items.filter((e) => e.reportingComponent === 'k8s-collector' && e.involvedObject.kind === 'Pod')
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
