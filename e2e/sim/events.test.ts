// Events (issue 23): events.k8s.io/v1 and core/v1 events are the same stored objects, converted both
// ways; the events.k8s.io rules of the API server (422 and decoding 400s); field selectors; injected
// write failures; kubectl get events and kubectl describe pod.
import { beforeAll, describe, expect, it } from 'vitest'
import type { Simulator } from './index.ts'
import { kubectl, rawJson, until, useSimulator, watchLines } from './test-client.ts'

const t = useSimulator({ nodes: 1, podStartDelayMs: 10 }, 'sim-events-')
let sim: Simulator
let pod: any

beforeAll(() => {
  sim = t.sim
  pod = sim.create('pods', { metadata: { name: 'web-1', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } })
})

const V1 = '/apis/events.k8s.io/v1/namespaces/default/events'
const CORE = '/api/v1/namespaces/default/events'
/** Microseconds: what Date.toISOString() cannot print. */
const micro = (ms = Date.now()) => new Date(ms).toISOString().replace('Z', '123Z')
const regarding = () => ({ apiVersion: 'v1', kind: 'Pod', name: 'web-1', namespace: 'default', uid: pod.metadata.uid })
const newEvent = (name: string, extra: object = {}) => ({
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name, namespace: 'default' },
  eventTime: micro(), reportingController: 'k8s-collector.io/collector', reportingInstance: 'collector-7f9c', action: 'Announce',
  reason: 'PodAnnounced', note: 'pod announced to the reducer', type: 'Normal', regarding: regarding(), ...extra,
})
const post = (path: string, body: object) => rawJson(sim, path, { method: 'POST', body })
const patch = (path: string, body: object, type = 'application/merge-patch+json') => rawJson(sim, path, { method: 'PATCH', body, headers: { 'Content-Type': type } })

describe('one event, two API groups', () => {
  it('an events.k8s.io/v1 event reads through core/v1 with the API server field mapping', async () => {
    const created = await post(V1, newEvent('announce.1'))
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ kind: 'Event', apiVersion: 'events.k8s.io/v1', note: 'pod announced to the reducer', regarding: regarding() })
    const core = (await rawJson(sim, `${CORE}/announce.1`)).body
    expect(core).toMatchObject({
      kind: 'Event', apiVersion: 'v1', involvedObject: regarding(), message: 'pod announced to the reducer', reason: 'PodAnnounced',
      type: 'Normal', action: 'Announce', reportingComponent: 'k8s-collector.io/collector', reportingInstance: 'collector-7f9c',
      eventTime: created.body.eventTime, source: {}, firstTimestamp: null, lastTimestamp: null,
    })
    expect(core.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
    expect(core.metadata.uid).toBe(created.body.metadata.uid)
    expect(core.count).toBeUndefined()
  })

  it('a core/v1 event (kubelet style) reads through events.k8s.io/v1 with deprecated* fields', async () => {
    const created = await post(CORE, {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'pulled.1', namespace: 'default' }, involvedObject: regarding(),
      reason: 'Pulled', message: 'Image pulled', source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:05.5Z', count: 3, type: 'Normal',
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ lastTimestamp: '2026-01-01T00:00:05Z', eventTime: null, reportingComponent: '', reportingInstance: '' })
    const v1 = (await rawJson(sim, `${V1}/pulled.1`)).body
    expect(v1).toEqual({
      kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: expect.objectContaining({ name: 'pulled.1' }), eventTime: null,
      reason: 'Pulled', regarding: regarding(), note: 'Image pulled', type: 'Normal', deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: '2026-01-01T00:00:05Z', deprecatedCount: 3,
    })
  })

  it('watches of either group see events written through the other, in their own shape', async () => {
    const rv = sim.resourceVersion
    const v1Watch = watchLines(sim, `${V1}?watch=1&resourceVersion=${rv}`, (l) => l.length >= 1)
    const coreWatch = watchLines(sim, `${CORE}?watch=1&resourceVersion=${rv}`, (l) => l.length >= 1)
    await until('both watches open', () => sim.stats.watchesOpen >= 2)
    await post(CORE, { metadata: { name: 'core-written' }, involvedObject: regarding(), reason: 'Started', message: 'Started container', type: 'Normal' })
    const [a, b] = await Promise.all([v1Watch, coreWatch])
    expect(a.lines[0]).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', note: 'Started container', regarding: { name: 'web-1' } } })
    expect(b.lines[0]).toMatchObject({ type: 'ADDED', object: { apiVersion: 'v1', message: 'Started container', involvedObject: { name: 'web-1' } } })
  })
})

describe('events.k8s.io rules', () => {
  it('eventTime is required and a MicroTime: missing 422, Date.toISOString() 400 on create and 422 on patch', async () => {
    const missing = await post(V1, { ...newEvent('no-time'), eventTime: undefined })
    expect(missing).toMatchObject({ status: 422, body: { reason: 'Invalid', message: 'Event.events.k8s.io "no-time" is invalid: eventTime: Required value' } })
    const iso = new Date().toISOString()
    const millis = await post(V1, newEvent('millis', { eventTime: iso }))
    expect(millis.status).toBe(400)
    expect(millis.body.message).toBe(`Event in version "v1" cannot be handled as a Event: parsing time "${iso}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "${iso.slice(19)}" as ".000000"`)
    await post(V1, newEvent('series.1'))
    const patched = await patch(`${V1}/series.1`, { series: { count: 2, lastObservedTime: new Date().toISOString() } })
    expect(patched.status).toBe(422)
    expect(patched.body.details.causes[0]).toMatchObject({ field: 'patch', reason: 'FieldValueInvalid' })
    expect(patched.body.message).toContain('cannot parse')
  })

  it('reportingController, reportingInstance, action and reason are required; note at most 1 KiB; series.count at least 2; no deprecated fields', async () => {
    const bare = await post(V1, { ...newEvent('bare'), reportingController: undefined, reportingInstance: undefined, action: undefined, reason: undefined })
    expect(bare.body.message).toBe('Event.events.k8s.io "bare" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, reportingInstance: Required value, action: Required value, reason: Required value]')
    const long = await post(V1, newEvent('long', { note: 'x'.repeat(1025) }))
    expect(long.body.message).toBe('Event.events.k8s.io "long" is invalid: message: Invalid value: "": can have at most 1024 characters')
    expect((await post(V1, newEvent('exactly-1k', { note: 'x'.repeat(1024) }))).status).toBe(201)
    const single = await post(V1, newEvent('single', { series: { count: 1, lastObservedTime: micro() } }))
    expect(single.body.message).toBe('Event.events.k8s.io "single" is invalid: series.count: Invalid value: "": should be at least 2')
    const deprecated = await post(V1, newEvent('deprecated', { deprecatedCount: 2, deprecatedSource: { component: 'kubelet' } }))
    expect(deprecated.body.message).toBe('Event.events.k8s.io "deprecated" is invalid: [count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]')
    const badType = await post(V1, newEvent('bad-type', { type: 'Info' }))
    expect(badType.body.message).toBe('Event.events.k8s.io "bad-type" is invalid: type: Invalid value: "": has invalid value: Info')
  })

  it('on update only the series may change: merge and strategic patches of the series pass, a new note or deprecatedCount is 422', async () => {
    const created = (await post(V1, newEvent('repeat.1'))).body
    const series = { count: 2, lastObservedTime: micro() }
    const merged = await patch(`${V1}/repeat.1`, { series })
    expect(merged.status).toBe(200)
    expect(merged.body.series).toEqual({ count: 2, lastObservedTime: series.lastObservedTime })
    const strategic = await patch(`${V1}/repeat.1`, { series: { count: 3, lastObservedTime: micro() } }, 'application/strategic-merge-patch+json')
    expect(strategic.body.series.count).toBe(3)
    const note = await patch(`${V1}/repeat.1`, { note: 'changed' })
    expect(note.body.message).toBe('Event.events.k8s.io "repeat.1" is invalid: message: Invalid value: "changed": field is immutable')
    const count = await patch(`${V1}/repeat.1`, { deprecatedCount: 5 })
    expect(count.body.message).toBe('Event.events.k8s.io "repeat.1" is invalid: count: Invalid value: 5: field is immutable')
    const put = await rawJson(sim, `${V1}/repeat.1`, { method: 'PUT', body: { ...created, reason: 'Other', metadata: { ...created.metadata, resourceVersion: undefined } } })
    expect(put.body.message).toBe('Event.events.k8s.io "repeat.1" is invalid: reason: Invalid value: "Other": field is immutable')
    // The legacy API has no such rule: kubelets bump count and lastTimestamp through core/v1.
    expect((await patch(`${CORE}/repeat.1`, { message: 'changed through core' })).status).toBe(200)
  })
})

describe('selectors and failures', () => {
  it('field selectors: involvedObject.* on core/v1, regarding.* on events.k8s.io/v1, 400 for others', async () => {
    const other = sim.create('pods', { metadata: { name: 'other', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
    await post(V1, newEvent('about-other', { regarding: { kind: 'Pod', name: 'other', namespace: 'default', uid: other.metadata.uid } }))
    const names = (b: any) => b.items.map((i: any) => i.metadata.name).sort()
    const core = await rawJson(sim, `${CORE}?fieldSelector=${encodeURIComponent(`involvedObject.name=other,involvedObject.uid=${other.metadata.uid}`)}`)
    expect(names(core.body)).toEqual(['about-other'])
    const v1 = await rawJson(sim, `${V1}?fieldSelector=${encodeURIComponent('regarding.name=other,reportingController=k8s-collector.io/collector')}`)
    expect(names(v1.body)).toEqual(['about-other'])
    expect((await rawJson(sim, `${V1}?fieldSelector=involvedObject.name%3Dother`)).body).toMatchObject({ code: 400, message: 'field label not supported: involvedObject.name' })
    expect((await rawJson(sim, `${CORE}?fieldSelector=note%3Dx`)).body).toMatchObject({ code: 400, message: 'field label not supported: note' })
  })

  it('failRequests by resource makes event writes fail (403 or 500) in both groups, or in one by its qualified name', async () => {
    sim.faults.failRequests({ resource: 'events', verbs: ['create', 'patch', 'update'], status: 403 })
    const denied = await post(V1, newEvent('denied'))
    expect(denied.status).toBe(403)
    expect(denied.body.message).toBe('events.events.k8s.io is forbidden: User "system:serviceaccount:default:k8s-collector" cannot create resource "events" in API group "events.k8s.io" in the namespace "default"')
    expect((await post(CORE, { metadata: { name: 'denied-core' }, involvedObject: regarding(), reason: 'R', type: 'Normal' })).status).toBe(403)
    expect((await rawJson(sim, V1)).status).toBe(200) // reads go on
    sim.faults.clearFailures()
    sim.faults.failRequests({ resource: 'events.events.k8s.io', status: 500, count: 1 })
    expect((await post(CORE, { metadata: { name: 'core-ok' }, involvedObject: regarding(), reason: 'R', type: 'Normal' })).status).toBe(201)
    expect((await post(V1, newEvent('broken'))).status).toBe(500)
    expect((await post(V1, newEvent('works-again'))).status).toBe(201)
  })
})

describe('kubectl', () => {
  it('kubectl get events -A lists events of both groups; kubectl describe pod shows the pod\'s events', async () => {
    await post(V1, newEvent('for-describe', { reason: 'DescribeMe', note: 'visible in describe' }))
    const all = await kubectl(t.kubeconfig, 'get', 'events', '-A')
    const header = all.split('\n')[0].split(/\s{2,}/)
    expect(header).toEqual(['NAMESPACE', 'LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'])
    expect(all).toMatch(/default\s+\S+\s+Normal\s+DescribeMe\s+pod\/web-1\s+visible in describe/)
    expect(all).toMatch(/Normal\s+Pulled\s+pod\/web-1\s+Image pulled/)
    const described = await kubectl(t.kubeconfig, 'describe', 'pod', 'web-1')
    const events = described.slice(described.indexOf('Events:'))
    expect(events).toMatch(/Normal\s+DescribeMe\s+\S+\s+k8s-collector\.io\/collector\s+visible in describe/)
    expect(events).toMatch(/Normal\s+Pulled\s+\S+ \(x3 over \S+\)\s+kubelet\s+Image pulled/)
    expect(events).not.toContain('about-other')
  })
})
