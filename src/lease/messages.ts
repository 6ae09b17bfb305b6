// One-line explanations of Lease request failures for the log; a 403 names the RBAC rule to grant.
import { KubeApiError, type KubeError } from '../kube/errors.ts'
import type { LeaseOp } from './events.ts'
import { describeLease, type LeaseRef } from './record.ts'

/** The verbs leader election needs on `leases` (the Role of the shipped manifests). */
export const LEASE_VERBS = ['get', 'create', 'update'] as const

/** True for a 403: RBAC does not allow this replica the Lease request. */
export function isForbidden(err: KubeError): boolean {
  return err instanceof KubeApiError && err.status === 403
}

/**
 * A log line for a failed Lease request. A 403 names the missing rule: verbs get, create, update on
 * `leases` in API group `coordination.k8s.io`, in the Lease's namespace.
 */
export function leaseErrorMessage(ref: LeaseRef, op: LeaseOp, err: KubeError): string {
  const lease = `lease ${describeLease(ref)}`
  if (isForbidden(err)) {
    return (
      `forbidden to ${op} ${lease}: the service account needs a Role allowing verbs ${LEASE_VERBS.join(', ')} on resource "leases" ` +
      `in API group "coordination.k8s.io" in namespace "${ref.namespace}" (and a RoleBinding); until then this replica cannot lead`
    )
  }
  return `${op} ${lease} failed: ${err.message}`
}
