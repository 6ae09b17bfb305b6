// Effective owner resolution (behaviour.md §3).
import { OwnerKindCode } from '../ingest/messages.ts'
import type { OwnerKind, OwnerMeta, PodMeta } from '../model/index.ts'
import type { Resolution } from './types.ts'

/** `owner_kind` code of a kind that is used as-is (protocol.md §3). */
export function kindCode(kind: string): number {
  switch (kind) {
    case 'ReplicaSet':
      return OwnerKindCode.ReplicaSet
    case 'Deployment':
      return OwnerKindCode.Deployment
    case 'Job':
      return OwnerKindCode.Job
    case 'CronJob':
      return OwnerKindCode.CronJob
    default:
      return OwnerKindCode.Other
  }
}

/** The owner kinds resolved through their stores; everything else is used as-is. */
export const isWatchedOwnerKind = (kind: string): kind is OwnerKind => kind === 'ReplicaSet' || kind === 'Job'

/** What the resolver needs to know about the owner stores. */
export interface OwnerLookup {
  get(kind: OwnerKind, uid: string): OwnerMeta | undefined
  unavailable(kind: OwnerKind): boolean
}

/**
 * Resolves a pod's effective owner. `remembered` is the pod's earlier resolution for the same owner
 * reference, used when the owner is no longer in its store. `undefined` = the pod must wait.
 */
export function resolveOwner(pod: PodMeta, owners: OwnerLookup, remembered: Resolution | undefined): Resolution | undefined {
  const o = pod.owner
  if (!o) return { code: OwnerKindCode.NoOwner, uid: '', name: pod.name }
  if (!isWatchedOwnerKind(o.kind)) return { code: kindCode(o.kind), uid: o.uid, name: o.name }
  const owner = owners.get(o.kind, o.uid)
  if (owner) {
    const c = owner.controller
    if (o.kind === 'ReplicaSet' && c?.kind === 'Deployment') return { code: OwnerKindCode.Deployment, uid: c.uid, name: c.name }
    if (o.kind === 'Job' && c?.kind === 'CronJob') return { code: OwnerKindCode.CronJob, uid: c.uid, name: c.name }
    return { code: kindCode(o.kind), uid: o.uid, name: o.name }
  }
  if (remembered) return remembered
  // An owner stream the API server refuses (403/404): the direct owner stands in (§3 exception).
  if (owners.unavailable(o.kind)) return { code: kindCode(o.kind), uid: o.uid, name: o.name }
  return undefined
}

export const sameResolution = (a: Resolution | undefined, b: Resolution | undefined): boolean =>
  a === b || (!!a && !!b && a.code === b.code && a.uid === b.uid && a.name === b.name)
