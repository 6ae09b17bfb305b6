// Log lines for Lease request failures.
import { describe, expect, it } from 'vitest'
import { KubeApiError, KubeTransportError } from '../kube/errors.ts'
import { isForbidden, leaseErrorMessage } from './messages.ts'

const REF = { namespace: 'monitoring', name: 'k8s-collector' }

describe('leaseErrorMessage', () => {
  it('names the missing RBAC rule on a 403', () => {
    const err = new KubeApiError({ status: 403, reason: 'Forbidden', message: 'leases.coordination.k8s.io "k8s-collector" is forbidden' })
    expect(isForbidden(err)).toBe(true)
    expect(leaseErrorMessage(REF, 'get', err)).toBe(
      'forbidden to get lease monitoring/k8s-collector: the service account needs a Role allowing verbs get, create, update on resource "leases" ' +
        'in API group "coordination.k8s.io" in namespace "monitoring" (and a RoleBinding); until then this replica cannot lead',
    )
  })

  it('gives the error otherwise', () => {
    const err = new KubeTransportError('10.0.0.1:6443: connect ECONNREFUSED')
    expect(isForbidden(err)).toBe(false)
    expect(leaseErrorMessage(REF, 'update', err)).toBe('update lease monitoring/k8s-collector failed: 10.0.0.1:6443: connect ECONNREFUSED')
  })
})
