// The leader-election record of a coordination.k8s.io/v1 Lease, read and written as client-go's
// resourcelock.LeaseLock does (docs/high-availability.md "The Lease").
import { KubeDecodeError } from '../kube/errors.ts'
import { normaliseMicroTime } from './micro-time.ts'

/** Which Lease: `namespace/name`. */
export interface LeaseRef {
  readonly namespace: string
  readonly name: string
}

/** The fields of a Lease's spec that leader election uses; absent fields read as the zero value. */
export interface LeaseRecord {
  /** Who holds the Lease; '' = nobody (released), anyone may acquire at once. */
  readonly holderIdentity: string
  /** How long, from the moment a replica sees the record change, the holder keeps it without renewing. */
  readonly leaseDurationSeconds: number
  /** MicroTime of the current holder's acquisition, canonical six-digit form ('' when absent). */
  readonly acquireTime: string
  /** MicroTime of the holder's last renewal, canonical form ('' when absent). Informational: never compared with a local clock. */
  readonly renewTime: string
  /** How many times the holder changed. */
  readonly leaseTransitions: number
}

/** A Lease as the API server returned it. */
export interface LeaseObject {
  /** `metadata.resourceVersion`: an update based on this object fails with 409 if the Lease changed since. */
  readonly resourceVersion: string
  readonly record: LeaseRecord
  /** The object as received; an update sends it back with only the record's fields replaced. */
  readonly raw: Readonly<Record<string, unknown>>
}

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The collection path of Leases in `ref.namespace` (append `/name` for one Lease). */
export function leasesPath(ref: LeaseRef): string {
  return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(ref.namespace)}/leases`
}

/** `namespace/name`, for messages. */
export function describeLease(ref: LeaseRef): string {
  return `${ref.namespace}/${ref.name}`
}

/** Reads a Lease object; throws {@link KubeDecodeError} when it is not one (a real server never sends such). */
export function decodeLease(obj: unknown, ref: LeaseRef): LeaseObject {
  const where = `lease ${describeLease(ref)}`
  if (!isObject(obj) || !isObject(obj.metadata)) throw new KubeDecodeError(`${where}: not an object with metadata`)
  const rv = obj.metadata.resourceVersion
  if (typeof rv !== 'string' || rv === '') throw new KubeDecodeError(`${where}: no metadata.resourceVersion`)
  const spec = obj.spec ?? {}
  if (!isObject(spec)) throw new KubeDecodeError(`${where}: spec is not an object`)
  const text = (field: string): string => {
    const v = spec[field]
    if (v === undefined || v === null) return ''
    if (typeof v !== 'string') throw new KubeDecodeError(`${where}: spec.${field} is not a string`)
    return v
  }
  const integer = (field: string): number => {
    const v = spec[field]
    if (v === undefined || v === null) return 0
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new KubeDecodeError(`${where}: spec.${field} is not an integer`)
    return v
  }
  return {
    resourceVersion: rv,
    record: {
      holderIdentity: text('holderIdentity'),
      leaseDurationSeconds: integer('leaseDurationSeconds'),
      acquireTime: normaliseMicroTime(text('acquireTime')),
      renewTime: normaliseMicroTime(text('renewTime')),
      leaseTransitions: integer('leaseTransitions'),
    },
    raw: obj,
  }
}

/** The spec fields a write sets; every field is written, `holderIdentity: ""` included (as client-go). */
function specOf(record: LeaseRecord): Json {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    ...(record.acquireTime ? { acquireTime: record.acquireTime } : {}),
    ...(record.renewTime ? { renewTime: record.renewTime } : {}),
    leaseTransitions: record.leaseTransitions,
  }
}

/** The body of the POST that creates the Lease. */
export function leaseCreateBody(ref: LeaseRef, record: LeaseRecord): Json {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: ref.name, namespace: ref.namespace }, spec: specOf(record) }
}

/**
 * The body of the PUT that replaces `base`'s record: the object as read (its resourceVersion makes
 * the write conditional; labels, annotations and other spec fields such as `preferredHolder` are kept).
 */
export function leaseUpdateBody(base: LeaseObject, record: LeaseRecord): Json {
  const spec = isObject(base.raw.spec) ? base.raw.spec : {}
  return { ...base.raw, spec: { ...spec, ...specOf(record) } }
}

/** True when both records hold the same values (client-go compares the records it decoded, not the raw objects). */
export function sameRecord(a: LeaseRecord, b: LeaseRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime &&
    a.leaseTransitions === b.leaseTransitions
  )
}
