// Every reason: its type, action and regarding object, a note under 1 KiB that names what the
// issue asks for and carries nothing that changes between repeats.
import { describe, expect, it } from 'vitest'
import { KubeApiError } from '../kube/errors.ts'
import { eventsOf, httpStatusOf, podRef, type Occurrence } from './reasons.ts'

const self = podRef({ name: 'collector-7f9c', namespace: 'obs', uid: 'u-1' })
const lease = { namespace: 'obs', name: 'k8s-collector', uid: 'l-1' }
const id = 'node-1_0b9e6f1c-5a7d-4a55-9a4e-2f0f2f0f2f0f'

const cases: Array<[Occurrence, 'Normal' | 'Warning', string, RegExp[]]> = [
  [{ reason: 'ReducerUnreachable', failure: { kind: 'connect', target: 'reducer.obs:7000', cause: 'refused' } }, 'Warning', 'Connect', [/reducer\.obs:7000/, /connection refused/]],
  [{ reason: 'ReducerUnreachable', failure: { kind: 'connect', target: 'reducer.obs:7000', cause: 'dns' } }, 'Warning', 'Connect', [/does not resolve/]],
  [{ reason: 'ReducerUnreachable', failure: { kind: 'lost', address: '10.0.0.5:7000', cause: 'peer_closed' } }, 'Warning', 'Connect', [/10\.0\.0\.5:7000/, /closed the connection/]],
  [{ reason: 'ReducerUnreachable', failure: { kind: 'lost', address: '10.0.0.5:7000', cause: 'buffer_overflow' } }, 'Warning', 'Connect', [/keeps up with the load/]],
  [{ reason: 'ReducerConnected', address: '10.0.0.5:7000' }, 'Normal', 'Connect', [/10\.0\.0\.5:7000/]],
  [{ reason: 'ResourceUnavailable', resource: 'replicasets', status: 403 }, 'Warning', 'ListWatch', [/replicasets \(apps\/v1\)/, /HTTP 403/, /apiGroups \["apps"\], resources \["replicasets"\], verbs \["list", "watch"\]/, /Deployment/]],
  [{ reason: 'ResourceUnavailable', resource: 'pods', status: 403 }, 'Warning', 'ListWatch', [/pods \(v1\)/, /apiGroups \[""\], resources \["pods"\]/]],
  [{ reason: 'ResourceUnavailable', resource: 'jobs', status: 404 }, 'Warning', 'ListWatch', [/jobs \(batch\/v1\)/, /HTTP 404/, /apiGroups \["batch"\]/, /CronJob/]],
  [{ reason: 'ResourceAvailable', resource: 'jobs' }, 'Normal', 'ListWatch', [/jobs \(batch\/v1\)/]],
  [{ reason: 'Resync', cause: { kind: 'reconnect' } }, 'Normal', 'Resync', [/new reducer connection/]],
  [{ reason: 'Resync', cause: { kind: 'waitingLimit', limit: 10_000 } }, 'Normal', 'Resync', [/waiting limit/, /10000/, /relisted/]],
  [{ reason: 'LeaderElected', identity: id, lease }, 'Normal', 'LeaderElection', [/obs\/k8s-collector/, new RegExp(id)]],
  [{ reason: 'LeadershipLost', identity: id, lease, cause: 'renewDeadline' }, 'Warning', 'LeaderElection', [/renew deadline/]],
]

describe('reasons (docs/events.md)', () => {
  it.each(cases)('%o', (o, type, action, says) => {
    const [pod] = eventsOf(o, self)
    expect(pod).toMatchObject({ regarding: self, type, reason: o.reason, action })
    for (const re of says) expect(pod!.note).toMatch(re)
    expect(Buffer.byteLength(pod!.note)).toBeLessThan(1024)
    expect(pod!.note).not.toMatch(/\d{4}-\d\d-\d\dT/) // no times: nothing that changes between repeats
    expect(eventsOf(o, self)).toEqual(eventsOf(o, self))
  })

  it('leader election also writes what client-go writes on the Lease, in the pod namespace only', () => {
    const elected = eventsOf({ reason: 'LeaderElected', identity: id, lease }, self)
    expect(elected[1]).toEqual({
      regarding: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'obs', name: 'k8s-collector', uid: 'l-1' },
      type: 'Normal',
      reason: 'LeaderElection',
      action: 'LeaderElection',
      note: `${id} became leader`,
    })
    const lost = eventsOf({ reason: 'LeadershipLost', identity: id, lease: { namespace: 'obs', name: 'k8s-collector' }, cause: 'stopped' }, self)
    expect(lost.map((e) => [e.reason, e.type, e.note.startsWith(id) ? e.note : '…'])).toEqual([
      ['LeadershipLost', 'Warning', '…'],
      ['LeaderElection', 'Normal', `${id} stopped leading`],
    ])
    expect(lost[1]!.regarding).not.toHaveProperty('uid')
    // The Role allows events in the pod's namespace only.
    expect(eventsOf({ reason: 'LeaderElected', identity: id, lease: { namespace: 'kube-system', name: 'x' } }, self)).toHaveLength(1)
  })

  it('reads the HTTP status from a stream unavailable reason (a KubeApiError message)', () => {
    expect(httpStatusOf(new KubeApiError({ status: 403, reason: 'Forbidden', message: 'pods is forbidden: User "x" cannot list resource "pods"' }).message)).toBe(403)
    expect(httpStatusOf(new KubeApiError({ status: 404 }).message)).toBe(404)
    expect(httpStatusOf('priming timeout')).toBe(0)
  })
})
