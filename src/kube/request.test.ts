// JSON requests over real HTTPS against the API simulator: reads, writes, Status errors with
// reason and Retry-After, the whole-request timeout, abort, and credentials as for `get`.
import { KubeConfig } from '@kubernetes/client-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSimulator, type Simulator } from '../../e2e/sim/index.ts'
import { createKubeClient, type KubeWriteClient } from './client.ts'
import { KubeAbortedError, KubeApiError, KubeTransportError } from './errors.ts'
import { requestJson } from './request.ts'

let sim: Simulator
let client: KubeWriteClient

beforeAll(async () => {
  sim = await startSimulator({ nodes: 1, controllers: false })
  const kc = new KubeConfig()
  kc.loadFromString(sim.kubeconfig({ auth: 'token' }))
  client = createKubeClient({ kubeConfig: kc })
})
afterAll(async () => {
  await sim?.close()
})

const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases'
const lease = (name: string, holder: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: holder } })
const apiError = async (p: Promise<unknown>): Promise<KubeApiError> => {
  const err = await p.then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(KubeApiError)
  return err as KubeApiError
}

describe('requestJson', () => {
  it('creates, reads, replaces and patches an object', async () => {
    const created = await requestJson(client, { method: 'POST', path: leases, body: lease('r1', 'a') })
    expect(created.status).toBe(201)
    const obj = created.body as { metadata: { resourceVersion: string }; spec: object }
    expect(obj.metadata.resourceVersion).toMatch(/^\d+$/)
    expect(sim.get('leases', 'default', 'r1').spec.holderIdentity).toBe('a')

    const read = await requestJson(client, { method: 'GET', path: `${leases}/r1` })
    expect(read).toEqual({ status: 200, body: expect.objectContaining({ spec: { holderIdentity: 'a' } }) })

    const replaced = await requestJson(client, { method: 'PUT', path: `${leases}/r1`, body: { ...obj, spec: { holderIdentity: 'b' } } })
    expect((replaced.body as { spec: object }).spec).toEqual({ holderIdentity: 'b' })

    const patched = await requestJson(client, { method: 'PATCH', path: `${leases}/r1`, body: { spec: { leaseTransitions: 2 } }, contentType: 'application/merge-patch+json' })
    expect((patched.body as { spec: object }).spec).toEqual({ holderIdentity: 'b', leaseTransitions: 2 })
  })

  it('rejects a non-2xx answer with the Status reason: 404, 409 AlreadyExists, 409 Conflict on a stale resourceVersion', async () => {
    const missing = await apiError(requestJson(client, { method: 'GET', path: `${leases}/nope` }))
    expect([missing.status, missing.reason]).toEqual([404, 'NotFound'])

    await requestJson(client, { method: 'POST', path: leases, body: lease('r2', 'a') })
    const exists = await apiError(requestJson(client, { method: 'POST', path: leases, body: lease('r2', 'b') }))
    expect([exists.status, exists.reason]).toEqual([409, 'AlreadyExists'])

    const stale = { ...lease('r2', 'c'), metadata: { name: 'r2', resourceVersion: '1' } }
    const conflict = await apiError(requestJson(client, { method: 'PUT', path: `${leases}/r2`, body: stale }))
    expect([conflict.status, conflict.reason]).toEqual([409, 'Conflict'])
    expect(conflict.message).toMatch(/the object has been modified/)
  })

  it('carries Retry-After of a 429 and the reason of a 403', async () => {
    sim.faults.failRequests({ resource: 'leases', status: 429, retryAfterSeconds: 3, count: 1 })
    const throttled = await apiError(requestJson(client, { method: 'GET', path: leases }))
    expect([throttled.status, throttled.retryAfterMs]).toEqual([429, 3000])
    sim.faults.failRequests({ resource: 'leases', status: 403, count: 1 })
    const forbidden = await apiError(requestJson(client, { method: 'PUT', path: `${leases}/r1`, body: lease('r1', 'x') }))
    expect([forbidden.status, forbidden.reason]).toEqual([403, 'Forbidden'])
  })

  it('fails with a transport error when the whole response takes longer than the timeout', async () => {
    sim.faults.slowResponses(2_000)
    try {
      const err = await requestJson(client, { method: 'GET', path: leases, timeoutMs: 200 }).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(KubeTransportError)
      expect((err as Error).message).toMatch(/no complete response within 200 ms/)
    } finally {
      sim.faults.slowResponses(0)
    }
  })

  it('fails with KubeAbortedError when the caller aborts', async () => {
    sim.faults.slowResponses(2_000)
    try {
      const controller = new AbortController()
      const pending = requestJson(client, { method: 'GET', path: leases, signal: controller.signal })
      setTimeout(() => controller.abort(), 50)
      await expect(pending).rejects.toBeInstanceOf(KubeAbortedError)
      await expect(requestJson(client, { method: 'GET', path: leases, signal: controller.signal })).rejects.toBeInstanceOf(KubeAbortedError)
    } finally {
      sim.faults.slowResponses(0)
    }
  })
})
