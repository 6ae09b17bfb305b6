// The owner kinds in one table: names and `owner_kind` wire codes (docs/protocol.md §3), and for the
// two kinds the collector watches, their stream and the controller kind their pods escalate to
// (docs/behaviour.md §1, §3). Every mapping between kind names, codes and streams reads it.
import type { OwnerKind } from './types.ts'

/** `owner_kind` wire codes by name; NoOwner and Other are the protocol's, not Kubernetes kinds. */
export const OwnerKindCode = {
  ReplicaSet: 0,
  Deployment: 1,
  Job: 2,
  CronJob: 3,
  NoOwner: 254,
  Other: 255,
} as const

/** The watched owner kinds: the stream that carries each, and the controller kind a pod's owner of that kind resolves to. */
export const WATCHED_OWNER_KINDS = {
  ReplicaSet: { stream: 'replicasets', controller: 'Deployment' },
  Job: { stream: 'jobs', controller: 'CronJob' },
} as const satisfies Record<OwnerKind, { readonly stream: string; readonly controller: keyof typeof OwnerKindCode }>

/** True for the kinds resolved through their stores (ReplicaSet, Job); every other owner is used as-is. */
export function isWatchedOwnerKind(kind: string): kind is OwnerKind {
  return Object.hasOwn(WATCHED_OWNER_KINDS, kind)
}

/** The code of an owner reference's Kubernetes kind used as-is: its own for ReplicaSet, Deployment, Job and CronJob, else Other. */
export function ownerKindCode(kind: string): number {
  if (kind === 'NoOwner' || kind === 'Other' || !Object.hasOwn(OwnerKindCode, kind)) return OwnerKindCode.Other
  return OwnerKindCode[kind as keyof typeof OwnerKindCode]
}

/** The name of an `owner_kind` code; undefined for a code the protocol does not define. */
export function ownerKindName(code: number): string | undefined {
  for (const [name, c] of Object.entries(OwnerKindCode)) if (c === code) return name
  return undefined
}
