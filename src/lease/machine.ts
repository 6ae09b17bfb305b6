// The elector state machine: client-go leaderelection's tryAcquireOrRenew and tryRelease as one
// exhaustive step over a tagged-union state; timing (retry period, renew deadline) is the driver's
// (elector.ts). Rules: docs/high-availability.md "The rules".
import { KubeApiError, toKubeError, type KubeError } from '../kube/errors.ts'
import type { ElectionEvent, LeaseOp, LostReason } from './events.ts'
import type { LeaseApi } from './lease-api.ts'
import { formatMicroTime } from './micro-time.ts'
import { sameRecord, type LeaseObject, type LeaseRecord } from './record.ts'

/** A record as this replica saw it, and when (local clock, ms) it first saw it so: client-go's observedRecord/observedTime. */
export interface Observation {
  readonly record: LeaseRecord
  readonly at: number
}

/** Where the elector is. Each variant carries only its own data. */
export type ElectorState =
  /** Not leading; tries to acquire every retry period. `seen`: the last record observed (none yet: undefined). */
  | { readonly type: 'standby'; readonly seen: Observation | undefined }
  /** Leading. `lease`: what the last successful write returned; `renewedAt`: when that write was sent. */
  | { readonly type: 'leader'; readonly seen: Observation; readonly lease: LeaseObject; readonly renewedAt: number }
  /** Cancelled while the Lease names this replica: writing holderIdentity "" (`lease`: the base to write on, undefined → read it first). */
  | { readonly type: 'releasing'; readonly lease: LeaseObject | undefined }
  /** Done. */
  | { readonly type: 'stopped' }

/** Everything a step needs besides the state. */
export interface StepContext {
  readonly api: LeaseApi
  readonly identity: string
  /** Written to the Lease as this replica's lease duration. */
  readonly leaseDurationSeconds: number
  /** Local clock, ms (the driver's Clock). */
  readonly now: () => number
  /** Aborts this step's requests (the driver aborts a leader's step at its renew deadline). */
  readonly signal: AbortSignal
}

/** One step's outcome: events in order, the next state, and the failed request if any. */
export interface StepResult {
  readonly events: readonly ElectionEvent[]
  readonly next: ElectorState
  readonly failure?: { readonly op: LeaseOp; readonly error: KubeError }
}

/** One attempt: acquire (standby), renew (leader) or release (releasing). Never throws: failures are values. */
export function step(state: ElectorState, ctx: StepContext): Promise<StepResult> {
  switch (state.type) {
    case 'standby':
      return tryAcquire(state, ctx)
    case 'leader':
      return tryRenew(state, ctx)
    case 'releasing':
      return tryRelease(state, ctx)
    case 'stopped':
      return Promise.resolve({ events: [], next: state })
    default:
      return assertNever(state)
  }
}

/** The renew deadline passed without a successful renewal: leadership ends at once. */
export function expire(state: ElectorState & { type: 'leader' }): StepResult {
  return lose(state.seen, [], 'renewDeadline')
}

/**
 * The election is cancelled: a leader stops leading and releases; a standby releases only when the
 * last record it saw names it (a write it gave up on may have landed); otherwise it is done.
 */
export function stop(state: ElectorState, identity: string): StepResult {
  switch (state.type) {
    case 'leader':
      return { events: [{ type: 'lost', reason: 'stopped' }], next: { type: 'releasing', lease: state.lease } }
    case 'standby':
      return { events: [], next: state.seen?.record.holderIdentity === identity ? { type: 'releasing', lease: undefined } : { type: 'stopped' } }
    case 'releasing':
    case 'stopped':
      return { events: [], next: state }
    default:
      return assertNever(state)
  }
}

/** A 409: Conflict on update (stale resourceVersion) or AlreadyExists on create — another writer won the race. */
function isConflict(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 409
}

async function tryAcquire(state: ElectorState & { type: 'standby' }, ctx: StepContext): Promise<StepResult> {
  let current: LeaseObject | null
  try {
    current = await ctx.api.get(ctx.signal)
  } catch (err) {
    return failed(state, [], 'get', err)
  }
  if (current === null) return claim(undefined, state, [], ctx)
  const seen = observe(state.seen, current.record, ctx.now())
  const events = holderChange(state.seen, seen)
  const held = seen.record.holderIdentity
  // Respected until the lease duration has passed on this replica's clock since the record last changed.
  if (held !== '' && held !== ctx.identity && ctx.now() < seen.at + seen.record.leaseDurationSeconds * 1000) {
    return { events, next: { type: 'standby', seen } }
  }
  return claim(current, { type: 'standby', seen }, events, ctx)
}

async function tryRenew(state: ElectorState & { type: 'leader' }, ctx: StepContext): Promise<StepResult> {
  // Fast path: write on the object our last write returned.
  const sentAt = ctx.now()
  let events: ElectionEvent[] = []
  try {
    const lease = await ctx.api.update(state.lease, claimRecord(state.lease.record, ctx, sentAt), ctx.signal)
    return leading(state, lease, sentAt, events, ctx)
  } catch (err) {
    if (!isConflict(err) && !isNotFound(err)) return failed(state, events, 'update', err)
    if (isConflict(err)) events = [{ type: 'conflict', op: 'update' }]
  }
  // The Lease moved on (a renewal we gave up on may have landed, or someone else wrote or deleted
  // it): read it, and renew only while it still names us.
  let current: LeaseObject | null
  try {
    current = await ctx.api.get(ctx.signal)
  } catch (err) {
    return failed(state, events, 'get', err)
  }
  if (current === null) return claim(undefined, state, events, ctx)
  if (current.record.holderIdentity !== ctx.identity) {
    const seen = observe(state.seen, current.record, ctx.now())
    return lose(seen, [...events, ...holderChange(state.seen, seen)], 'taken')
  }
  return claim(current, state, events, ctx)
}

async function tryRelease(state: ElectorState & { type: 'releasing' }, ctx: StepContext): Promise<StepResult> {
  let base = state.lease
  if (!base) {
    let current: LeaseObject | null
    try {
      current = await ctx.api.get(ctx.signal)
    } catch (err) {
      return failed(state, [], 'get', err)
    }
    if (!current || current.record.holderIdentity !== ctx.identity) return { events: [], next: { type: 'stopped' } }
    base = current
  }
  // client-go's release: no holder, a 1 s duration, both times now, the transition count kept.
  const now = formatMicroTime(Math.floor(ctx.now() * 1000))
  const released: LeaseRecord = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: base.record.leaseTransitions }
  try {
    const lease = await ctx.api.update(base, released, ctx.signal)
    return { events: [{ type: 'holder', identity: '', transitions: lease.record.leaseTransitions }], next: { type: 'stopped' } }
  } catch (err) {
    // A renewal that was in flight when we were cancelled may have moved the Lease on: read it again.
    if (isConflict(err)) return { events: [{ type: 'conflict', op: 'update' }], next: { type: 'releasing', lease: undefined } }
    if (isNotFound(err)) return { events: [], next: { type: 'stopped' } }
    return failed(state, [], 'update', err)
  }
}

/** Creates (`current` undefined) or updates the Lease naming this replica; leader on success. */
async function claim(
  current: LeaseObject | undefined,
  state: ElectorState & { type: 'standby' | 'leader' },
  events: readonly ElectionEvent[],
  ctx: StepContext,
): Promise<StepResult> {
  const op: LeaseOp = current ? 'update' : 'create'
  const sentAt = ctx.now()
  try {
    const record = claimRecord(current?.record, ctx, sentAt)
    const lease = current ? await ctx.api.update(current, record, ctx.signal) : await ctx.api.create(record, ctx.signal)
    return leading(state, lease, sentAt, events, ctx)
  } catch (err) {
    if (!isConflict(err)) return failed(state, events, op, err)
    // Lost a race. A leader that cannot confirm the Lease still names it steps down now.
    const conflict: ElectionEvent = { type: 'conflict', op }
    return state.type === 'leader' ? lose(state.seen, [...events, conflict], 'taken') : { events: [...events, conflict], next: state }
  }
}

/**
 * The record that names this replica: a holder keeps its acquireTime and transition count; a new
 * holder sets acquireTime and counts one more transition; a new Lease starts at 0 (as client-go).
 */
function claimRecord(old: LeaseRecord | undefined, ctx: StepContext, at: number): LeaseRecord {
  const now = formatMicroTime(Math.floor(at * 1000))
  const kept = old?.holderIdentity === ctx.identity
  return {
    holderIdentity: ctx.identity,
    leaseDurationSeconds: ctx.leaseDurationSeconds,
    acquireTime: kept ? old!.acquireTime : now,
    renewTime: now,
    leaseTransitions: old === undefined ? 0 : kept ? old.leaseTransitions : old.leaseTransitions + 1,
  }
}

/** A successful write: the Lease is ours from `sentAt` (the server applied it no earlier). */
function leading(
  state: ElectorState & { type: 'standby' | 'leader' },
  lease: LeaseObject,
  sentAt: number,
  events: readonly ElectionEvent[],
  ctx: StepContext,
): StepResult {
  const seen: Observation = { record: lease.record, at: ctx.now() }
  const out = [...events, ...holderChange(state.seen, seen)]
  if (state.type === 'standby') {
    const uid = (lease.raw.metadata as { uid?: unknown }).uid
    out.push(typeof uid === 'string' && uid !== '' ? { type: 'elected', leaseUid: uid } : { type: 'elected' })
  }
  return { events: out, next: { type: 'leader', seen, lease, renewedAt: sentAt } }
}

function lose(seen: Observation, events: readonly ElectionEvent[], reason: LostReason): StepResult {
  return { events: [...events, { type: 'lost', reason }], next: { type: 'standby', seen } }
}

function failed(state: ElectorState, events: readonly ElectionEvent[], op: LeaseOp, err: unknown): StepResult {
  return { events, next: state, failure: { op, error: toKubeError(err) } }
}

/** The new observation: its time moves only when the record changed (client-go compares the decoded records). */
function observe(previous: Observation | undefined, record: LeaseRecord, now: number): Observation {
  return previous && sameRecord(previous.record, record) ? previous : { record, at: now }
}

function holderChange(before: Observation | undefined, after: Observation): ElectionEvent[] {
  const identity = after.record.holderIdentity
  if (before && before.record.holderIdentity === identity) return []
  return [{ type: 'holder', identity, transitions: after.record.leaseTransitions }]
}

function isNotFound(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 404
}

function assertNever(x: never): never {
  throw new Error(`unexpected elector state ${JSON.stringify(x)}`)
}
