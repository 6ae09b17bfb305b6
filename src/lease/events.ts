// What leader election reports to its owner, in order, as typed events (docs/high-availability.md "Events").
import type { KubeError } from '../kube/errors.ts'

/** A Lease request. */
export type LeaseOp = 'get' | 'create' | 'update'

/** Why this replica stopped leading. */
export type LostReason =
  /** No successful renewal within the renew deadline (API down, slow, cut off, or refusing). */
  | 'renewDeadline'
  /** The Lease names another holder (or none): someone else wrote it. */
  | 'taken'
  /** The election was cancelled; the Lease is being released. */
  | 'stopped'

/** One event of an election. */
export type ElectionEvent =
  /** This replica holds the Lease: it may act as leader until `lost`. `leaseUid`: the Lease's metadata.uid, when the server gave one. */
  | { readonly type: 'elected'; readonly leaseUid?: string }
  /** This replica is no longer leader: stop acting as one at once (the next replica may take over after the lease duration). */
  | { readonly type: 'lost'; readonly reason: LostReason }
  /** The Lease's holder as seen now differs from the one seen before (the first observation included); '' = nobody. */
  | { readonly type: 'holder'; readonly identity: string; readonly transitions: number }
  /** Another replica wrote the Lease first (409 Conflict or AlreadyExists): a normal race, retried; count it, do not warn. */
  | { readonly type: 'conflict'; readonly op: LeaseOp }
  /** A Lease request failed; retried by the elector. `consecutive` counts failed attempts in a row, this one included. */
  | { readonly type: 'error'; readonly op: LeaseOp; readonly error: KubeError; readonly consecutive: number }
