// Leader election on a coordination.k8s.io/v1 Lease, compatible with client-go's leaderelection
// (docs/high-availability.md):
//
//   const api = createLeaseApi(client, { namespace, name })      // client: createKubeClient(…)
//   for await (const ev of runElection(api, { identity: defaultIdentity(hostname()), signal })) {
//     // elected → connect to the reducer; lost → close it at once; holder → log; error/conflict → count
//   }
export { runElection, type ElectionOptions } from './elector.ts'
export type { ElectionEvent, LeaseOp, LostReason } from './events.ts'
export { createLeaseApi, type LeaseApi, type LeaseApiOptions } from './lease-api.ts'
export { defaultElectionTiming, defaultIdentity, LeaseConfigError, validateElectionTiming, validateLeaseRef, type ElectionTiming } from './config.ts'
export { monotonicClock } from './clock.ts'
export { isForbidden, LEASE_VERBS, leaseErrorMessage } from './messages.ts'
export { describeLease, type LeaseObject, type LeaseRecord, type LeaseRef } from './record.ts'
export { formatMicroTime, parseMicroTime } from './micro-time.ts'
