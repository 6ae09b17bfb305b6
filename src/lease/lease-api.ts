// The three Lease requests leader election makes — get, create, conditional update — over HTTP.
import type { KubeWriteClient } from '../kube/client.ts'
import type { Clock } from '../util/clock.ts'
import { KubeApiError } from '../kube/errors.ts'
import { requestJson } from '../kube/request.ts'
import { decodeLease, leaseCreateBody, leasesPath, leaseUpdateBody, type LeaseObject, type LeaseRecord, type LeaseRef } from './record.ts'

/** One Lease's reads and writes. Failures reject with a `KubeError`. */
export interface LeaseApi {
  readonly ref: LeaseRef
  /** The Lease, or null when it does not exist (404). */
  get(signal: AbortSignal): Promise<LeaseObject | null>
  /** Creates the Lease holding `record`; 409 AlreadyExists when someone created it first. */
  create(record: LeaseRecord, signal: AbortSignal): Promise<LeaseObject>
  /** Replaces `base`'s record, on condition that the Lease is still at `base.resourceVersion` (else 409 Conflict). */
  update(base: LeaseObject, record: LeaseRecord, signal: AbortSignal): Promise<LeaseObject>
}

/** Tuning of {@link createLeaseApi}. */
export interface LeaseApiOptions {
  /** Whole-request timeout, ms. Default 5,000: a leader with a 10 s renew deadline can retry once after a hung request. */
  readonly timeoutMs?: number
  /** The timeout's clock (the election's). Default the system's. */
  readonly clock?: Clock
}

/** Lease requests through `client` (its TLS and credentials). */
export function createLeaseApi(client: Pick<KubeWriteClient, 'send'>, ref: LeaseRef, opts: LeaseApiOptions = {}): LeaseApi {
  const { timeoutMs = 5_000, clock } = opts
  const collection = leasesPath(ref)
  const item = `${collection}/${encodeURIComponent(ref.name)}`
  return {
    ref,
    async get(signal) {
      try {
        const res = await requestJson(client, { method: 'GET', path: item, timeoutMs, clock, signal })
        return decodeLease(res.body, ref)
      } catch (err) {
        if (err instanceof KubeApiError && err.status === 404) return null
        throw err
      }
    },
    async create(record, signal) {
      const res = await requestJson(client, { method: 'POST', path: collection, body: leaseCreateBody(ref, record), timeoutMs, clock, signal })
      return decodeLease(res.body, ref)
    },
    async update(base, record, signal) {
      const res = await requestJson(client, { method: 'PUT', path: item, body: leaseUpdateBody(base, record), timeoutMs, clock, signal })
      return decodeLease(res.body, ref)
    },
  }
}
