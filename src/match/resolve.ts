// Effective owner resolution (docs/behaviour.md §3).
import { OwnerKindCode } from '../ingest/messages.ts'
import type { OwnerKind, OwnerMeta, PodMeta } from '../model/index.ts'
import type { Resolution } from './types.ts'

/** `owner_kind` code of a kind that is used as-is (docs/protocol.md §3). */
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
 * The resolution made last, handed out again for an equal one: pods of one owner come one after
 * another in a LIST (it is ordered by namespace and name), so they share one object instead of one
 * each (48 bytes a pod; bench/README.md, issue 34). One per core: resolutions are never changed.
 */
export interface RecentResolution {
  last: Resolution | undefined
}

/**
 * Resolves a pod's effective owner. `remembered` is the pod's earlier resolution for the same owner
 * reference, used when the owner is no longer in its store. `undefined` = the pod must wait.
 * `current` (the pod's resolution so far) is returned itself when the result equals it, so that
 * the common case — nothing changed — allocates nothing; else `recent`'s when equal.
 */
export function resolveOwner(
  pod: PodMeta,
  owners: OwnerLookup,
  remembered: Resolution | undefined,
  current?: Resolution,
  recent?: RecentResolution,
): Resolution | undefined {
  const o = pod.owner
  if (!o) return resolution(OwnerKindCode.NoOwner, '', pod.name, current, recent)
  if (!isWatchedOwnerKind(o.kind)) return resolution(kindCode(o.kind), o.uid, o.name, current, recent)
  const owner = owners.get(o.kind, o.uid)
  if (owner) {
    const c = owner.controller
    if (o.kind === 'ReplicaSet' && c?.kind === 'Deployment') return resolution(OwnerKindCode.Deployment, c.uid, c.name, current, recent)
    if (o.kind === 'Job' && c?.kind === 'CronJob') return resolution(OwnerKindCode.CronJob, c.uid, c.name, current, recent)
    return resolution(kindCode(o.kind), o.uid, o.name, current, recent)
  }
  if (remembered) return remembered
  // An owner stream the API server refuses (403/404): the direct owner stands in (§3 exception).
  if (owners.unavailable(o.kind)) return resolution(kindCode(o.kind), o.uid, o.name, current, recent)
  return undefined
}

const isResolution = (r: Resolution | undefined, code: number, uid: string, name: string): r is Resolution =>
  r !== undefined && r.code === code && r.uid === uid && r.name === name

function resolution(code: number, uid: string, name: string, current: Resolution | undefined, recent: RecentResolution | undefined): Resolution {
  if (isResolution(current, code, uid, name)) return current
  if (recent === undefined) return { code, uid, name }
  if (isResolution(recent.last, code, uid, name)) return recent.last
  return (recent.last = { code, uid, name })
}

export const sameResolution = (a: Resolution | undefined, b: Resolution | undefined): boolean =>
  a === b || (!!a && !!b && a.code === b.code && a.uid === b.uid && a.name === b.name)
