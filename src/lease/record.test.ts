// The Lease record codec: what client-go's LeaseLock reads (absent → zero values) and writes back.
import { describe, expect, it } from 'vitest'
import { KubeDecodeError } from '../kube/errors.ts'
import { decodeLease, leaseCreateBody, leaseUpdateBody, sameRecord, type LeaseRecord } from './record.ts'

const REF = { namespace: 'ns', name: 'collector' }
const lease = (spec: unknown, extra: object = {}) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'collector', namespace: 'ns', resourceVersion: '42', labels: { app: 'x' }, ...extra },
  ...(spec === undefined ? {} : { spec }),
})

describe('decodeLease', () => {
  it.each([
    ['a full record', { holderIdentity: 'h', leaseDurationSeconds: 15, acquireTime: '2024-01-02T03:04:05.123456Z', renewTime: '2024-01-02T03:04:07.5Z', leaseTransitions: 3 },
      { holderIdentity: 'h', leaseDurationSeconds: 15, acquireTime: '2024-01-02T03:04:05.123456Z', renewTime: '2024-01-02T03:04:07.500000Z', leaseTransitions: 3 }],
    ['no spec', undefined, { holderIdentity: '', leaseDurationSeconds: 0, acquireTime: '', renewTime: '', leaseTransitions: 0 }],
    ['nulls', { holderIdentity: null, leaseDurationSeconds: null, renewTime: null }, { holderIdentity: '', leaseDurationSeconds: 0, acquireTime: '', renewTime: '', leaseTransitions: 0 }],
    ['an unparsable time, kept as written', { renewTime: 'soon' }, { holderIdentity: '', leaseDurationSeconds: 0, acquireTime: '', renewTime: 'soon', leaseTransitions: 0 }],
  ])('%s', (_label, spec, record) => {
    const got = decodeLease(lease(spec), REF)
    expect(got.record).toEqual(record)
    expect(got.resourceVersion).toBe('42')
  })

  it.each([
    ['not an object', 'lease'],
    ['no resourceVersion', { metadata: { name: 'collector' } }],
    ['a spec that is not an object', lease([1])],
    ['a duration that is not an integer', lease({ leaseDurationSeconds: 1.5 })],
    ['a holder that is not a string', lease({ holderIdentity: 7 })],
  ])('rejects %s', (_label, obj) => {
    expect(() => decodeLease(obj, REF)).toThrow(KubeDecodeError)
  })
})

const record: LeaseRecord = { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2024-01-02T03:04:05.000000Z', renewTime: '2024-01-02T03:04:06.000000Z', leaseTransitions: 1 }

describe('leaseCreateBody / leaseUpdateBody', () => {
  it('creates a Lease in the ref namespace with every record field', () => {
    expect(leaseCreateBody(REF, record)).toEqual({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'collector', namespace: 'ns' }, spec: record })
  })

  it('updates on the object read: resourceVersion, labels and other spec fields kept, holderIdentity "" written', () => {
    const base = decodeLease(lease({ holderIdentity: 'me', preferredHolder: 'p', strategy: 'OldestEmulationVersion' }), REF)
    const released = { ...record, holderIdentity: '' }
    const body = leaseUpdateBody(base, released) as { metadata: object; spec: object }
    expect(body.metadata).toEqual(lease(undefined).metadata)
    expect(body.spec).toEqual({ ...released, preferredHolder: 'p', strategy: 'OldestEmulationVersion' })
  })
})

describe('sameRecord', () => {
  it('compares every field', () => {
    expect(sameRecord(record, { ...record })).toBe(true)
    for (const [k, v] of Object.entries({ holderIdentity: 'x', leaseDurationSeconds: 1, acquireTime: 'x', renewTime: 'x', leaseTransitions: 2 })) {
      expect(sameRecord(record, { ...record, [k]: v })).toBe(false)
    }
  })
})
