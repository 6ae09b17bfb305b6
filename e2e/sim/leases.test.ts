// coordination.k8s.io/v1 Leases as leader election uses them (issue 17): every verb over raw HTTP,
// resourceVersion conflicts worded as the API server words them, MicroTime parsing, validation, and
// `kubectl get lease` with its HOLDER column.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Simulator } from './index.ts'
import { kubectl, rawJson, useSimulator, watchLines } from './test-client.ts'

const t = useSimulator({ nodes: 1, controllers: false }, 'sim-leases-')
const { dir, kubeconfig } = t
let sim: Simulator

beforeAll(() => {
  sim = t.sim
  sim.create('namespaces', { metadata: { name: 'election' } })
})

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/election/leases'
const lease = (name: string, spec: object) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec })
const call = (method: string, path: string, body?: object, contentType?: string) =>
  rawJson(sim, path, { method, body, headers: contentType ? { 'Content-Type': contentType } : {} })

describe('leases', () => {
  it('discovery lists leases in coordination.k8s.io/v1', async () => {
    const { body } = await rawJson(sim, '/apis/coordination.k8s.io/v1')
    expect(body.resources).toContainEqual(expect.objectContaining({ name: 'leases', kind: 'Lease', namespaced: true, verbs: expect.arrayContaining(['create', 'get', 'list', 'watch', 'update', 'patch', 'delete']) }))
  })

  it('create, get, list, watch, update, patch, delete; MicroTimes normalised to UTC with six digits', async () => {
    const rv0 = sim.resourceVersion
    const watch = watchLines(sim, `${LEASES}?watch=1&resourceVersion=${rv0}`, (l) => l.length >= 4)
    const created = await call('POST', LEASES, lease('leader', {
      holderIdentity: 'collector-a', leaseDurationSeconds: 15, leaseTransitions: 0,
      acquireTime: '2026-11-25T22:01:02.123456+02:00', renewTime: '2026-11-25T20:01:02.123456Z',
    }))
    expect(created.status).toBe(201)
    expect(created.body.spec).toEqual({
      holderIdentity: 'collector-a', leaseDurationSeconds: 15, leaseTransitions: 0,
      acquireTime: '2026-11-25T20:01:02.123456Z', renewTime: '2026-11-25T20:01:02.123456Z',
    })
    const got = await rawJson(sim, `${LEASES}/leader`)
    expect(got.body).toMatchObject({ kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', metadata: { name: 'leader', namespace: 'election' } })
    const list = await rawJson(sim, LEASES)
    expect(list.body).toMatchObject({ kind: 'LeaseList', items: [expect.objectContaining({ metadata: expect.objectContaining({ name: 'leader' }) })] })

    // A renewal (PUT with the current resourceVersion), then a takeover by patch.
    const renewed = await call('PUT', `${LEASES}/leader`, { ...got.body, spec: { ...got.body.spec, renewTime: '2026-11-25T20:01:12.000001Z' } })
    expect(renewed.status).toBe(200)
    expect(renewed.body.spec.renewTime).toBe('2026-11-25T20:01:12.000001Z')
    const taken = await call('PATCH', `${LEASES}/leader`, { spec: { holderIdentity: 'collector-b', leaseTransitions: 1 } }, 'application/merge-patch+json')
    expect(taken.body.spec).toMatchObject({ holderIdentity: 'collector-b', leaseTransitions: 1, leaseDurationSeconds: 15 })
    expect((await call('DELETE', `${LEASES}/leader`)).status).toBe(200)
    const events = (await watch).lines.map((l) => `${l.type} ${l.object.spec?.holderIdentity}`)
    expect(events).toEqual(['ADDED collector-a', 'MODIFIED collector-a', 'MODIFIED collector-b', 'DELETED collector-b'])
  })

  it('an update with a stale resourceVersion is a 409 Conflict worded as the API server words it', async () => {
    const first = (await call('POST', LEASES, lease('contended', { holderIdentity: 'a', leaseDurationSeconds: 10 }))).body
    const winner = await call('PUT', `${LEASES}/contended`, { ...first, spec: { ...first.spec, holderIdentity: 'b' } })
    expect(winner.status).toBe(200)
    const loser = await call('PUT', `${LEASES}/contended`, { ...first, spec: { ...first.spec, holderIdentity: 'c' } })
    expect(loser.status).toBe(409)
    expect(loser.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Operation cannot be fulfilled on leases.coordination.k8s.io "contended": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict', details: { name: 'contended', group: 'coordination.k8s.io', kind: 'leases' }, code: 409,
    })
    const stalePatch = await call('PATCH', `${LEASES}/contended`, { metadata: { resourceVersion: first.metadata.resourceVersion }, spec: { holderIdentity: 'd' } }, 'application/merge-patch+json')
    expect(stalePatch.status).toBe(409)
    expect((await rawJson(sim, `${LEASES}/contended`)).body.spec.holderIdentity).toBe('b')
  })

  it('malformed MicroTimes: 400 on create and update (decoding), 422 on patch; invalid durations 422', async () => {
    const bad = await call('POST', LEASES, lease('bad-time', { holderIdentity: 'a', renewTime: '2026-11-25T20:01:02.123Z' }))
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({
      reason: 'BadRequest',
      message: 'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-11-25T20:01:02.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
    })
    const noFraction = await call('POST', LEASES, lease('bad-time', { acquireTime: '2026-11-25T20:01:02Z' }))
    expect(noFraction.status).toBe(400)
    const ok = (await call('POST', LEASES, lease('patched-time', { holderIdentity: 'a' }))).body
    const put = await call('PUT', `${LEASES}/patched-time`, { ...ok, spec: { renewTime: 'yesterday' } })
    expect(put.status).toBe(400)
    expect(put.body.message).toContain('cannot parse "yesterday" as "2006"')
    const patched = await call('PATCH', `${LEASES}/patched-time`, { spec: { renewTime: new Date().toISOString() } }, 'application/merge-patch+json')
    expect(patched.status).toBe(422)
    expect(patched.body).toMatchObject({ reason: 'Invalid', details: { causes: [expect.objectContaining({ field: 'patch' })] } })
    expect(patched.body.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": parsing time ".*" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".*" as ".000000"$/)
    const zero = await call('POST', LEASES, lease('zero', { leaseDurationSeconds: 0, leaseTransitions: -1 }))
    expect(zero.status).toBe(422)
    expect(zero.body.message).toBe('Lease.coordination.k8s.io "zero" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]')
    const wrongType = await call('POST', LEASES, lease('typed', { leaseDurationSeconds: '15' }))
    expect(wrongType.body.message).toBe('Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32')
  })

  it('kubectl creates leases and shows NAME, HOLDER, AGE', async () => {
    const manifest = join(dir, 'lease.json')
    writeFileSync(manifest, JSON.stringify(lease('kubectl-made', { holderIdentity: 'collector-7f9c', leaseDurationSeconds: 15, renewTime: '2026-11-25T20:01:02.123456Z' })))
    await kubectl(kubeconfig, 'create', '-n', 'election', '-f', manifest)
    sim.create('leases', { metadata: { name: 'unheld', namespace: 'election' }, spec: {} })
    const out = await kubectl(kubeconfig, 'get', 'lease', '-n', 'election')
    const lines = out.trim().split('\n')
    expect(lines[0].split(/\s+/)).toEqual(['NAME', 'HOLDER', 'AGE'])
    expect(lines.find((l) => l.startsWith('kubectl-made'))!.split(/\s+/).slice(0, 2)).toEqual(['kubectl-made', 'collector-7f9c'])
    expect(lines.find((l) => l.startsWith('unheld'))!.split(/\s+/).length).toBe(2) // no holder: an empty cell
    expect(await kubectl(kubeconfig, 'get', 'lease', 'kubectl-made', '-n', 'election', '-o', 'jsonpath={.spec.renewTime}')).toBe('2026-11-25T20:01:02.123456Z')
  })
})
