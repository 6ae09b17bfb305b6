// A pod's signature: everything the core compares of a pod in one flat string, exact (the values
// themselves, length-prefixed, not a hash), so that telling whether an event changed anything reads
// one object (why: bench/README.md, issue 3).
//
// Layout: every number is written as code units of at most 0xFF, so the signature of a pod whose
// strings are all Latin-1 is a one-byte string.
//   uid | flags ip(4) | name | namespace | version | [owner kind | owner uid | owner name] |
//   container count (2) | per container: id | name | image
// where each string is its length (2 code units, high byte first) and its code units, and flags
// are 1 = hasIp, 2 = hostNetwork, 4 = has an owner. A pod with a string of more than 0xFFFF code
// units cannot be described: its signature is '' (it matches nothing).
import type { ContainerMeta, OwnerRef, PodMeta } from '../model/index.ts'

const MAX_LENGTH = 0xffff
const HAS_IP = 1
const HOST_NETWORK = 2
const HAS_OWNER = 4

const C = String.fromCharCode
/** Length prefixes of the lengths that occur, made once (a prefix per field is most of the pieces). */
const LENGTHS: readonly string[] = Object.freeze(Array.from({ length: 1024 }, (_, n) => C(n >>> 8, n & 0xff)))
const len = (s: string): string => (s.length < 1024 ? LENGTHS[s.length]! : C((s.length >>> 8) & 0xff, s.length & 0xff))

/** Builds signatures; each writer has its own buffer of pieces. */
export class SignatureWriter {
  /** The pieces being joined. Never shrunk (slots past the pieces hold ''): a shorter length would drop its backing store. */
  private readonly parts: string[] = []
  private used = 0

  /** The pod's signature, or '' when a value is too long to be described (then nothing matches it). */
  write(m: PodMeta): string {
    if (!fits(m)) return ''
    const o = m.owner
    const cs = m.containers
    const ip = m.ip
    const p = this.parts
    let n = put(p, 0, m.uid)
    p[n++] = C(flags(m), ip >>> 24, (ip >>> 16) & 0xff, (ip >>> 8) & 0xff, ip & 0xff)
    n = put(p, put(p, put(p, n, m.name), m.namespace), m.version)
    if (o !== undefined) n = put(p, put(p, put(p, n, o.kind), o.uid), o.name)
    p[n++] = C((cs.length >>> 8) & 0xff, cs.length & 0xff)
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i]!
      n = put(p, put(p, put(p, n, c.id), c.name), c.image)
    }
    for (let i = n; i < this.used; i++) p[i] = ''
    this.used = n
    // One flat string: a chain of `+` would keep a tree of the meta's strings alive.
    return p.join('')
  }
}

/** Writes the field `s` (its length, then itself) at `n`; returns where the next piece goes. */
function put(p: string[], n: number, s: string): number {
  p[n] = len(s)
  p[n + 1] = s
  return n + 2
}

/** Every value can be described (no string, nor the container count, over 0xFFFF). */
function fits(m: PodMeta): boolean {
  const o = m.owner
  const cs = m.containers
  if (cs.length > MAX_LENGTH || m.uid.length > MAX_LENGTH || m.name.length > MAX_LENGTH || m.namespace.length > MAX_LENGTH || m.version.length > MAX_LENGTH) return false
  if (o !== undefined && (o.kind.length > MAX_LENGTH || o.uid.length > MAX_LENGTH || o.name.length > MAX_LENGTH)) return false
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!
    if (c.id.length > MAX_LENGTH || c.name.length > MAX_LENGTH || c.image.length > MAX_LENGTH) return false
  }
  return true
}

/** What a comparison found different; 0: nothing. */
export const Differs = {
  /** A value of its `pod_new_with_name`: IP, host network, name, namespace or version. */
  announced: 1,
  /** Whether it has an IP (podIP set, any family). */
  hasIp: 2,
  /** Its controller reference. */
  owner: 4,
  /** Its containers (their tuples or their order). */
  containers: 8,
  /** Another uid, or a pod that cannot be described. */
  pod: 16,
  /** The pod is kept whole (pod-store.ts), not described yet. */
  form: 32,
} as const

/**
 * Compares the pod with a signature: 0 when `write(m) === sig` (and sig is not ''), else the
 * {@link Differs} bits of the parts that differ. Builds nothing; the values are compared where
 * they stand in the signature.
 */
export function compareSignature(sig: string, m: PodMeta): number {
  if (sig === '') return Differs.pod
  let p = at(sig, 0, m.uid)
  if (p < 0) return Differs.pod
  let diff = 0
  const ip = m.ip
  const o = m.owner
  const f = sig.charCodeAt(p)
  if ((f & HAS_IP) !== (m.hasIp ? HAS_IP : 0)) diff |= Differs.hasIp
  if (
    (f & HOST_NETWORK) !== (m.hostNetwork ? HOST_NETWORK : 0) ||
    sig.charCodeAt(p + 1) !== ip >>> 24 ||
    sig.charCodeAt(p + 2) !== ((ip >>> 16) & 0xff) ||
    sig.charCodeAt(p + 3) !== ((ip >>> 8) & 0xff) ||
    sig.charCodeAt(p + 4) !== (ip & 0xff)
  ) {
    diff |= Differs.announced
  }
  p += 5
  const q = at(sig, p, m.name)
  const r = q < 0 ? -1 : at(sig, q, m.namespace)
  const t = r < 0 ? -1 : at(sig, r, m.version)
  if (t < 0) diff |= Differs.announced
  p = skip3(sig, p)
  // The owner part.
  const sigOwner = (f & HAS_OWNER) !== 0
  if (o === undefined) {
    if (sigOwner) diff |= Differs.owner
  } else {
    let u = sigOwner ? at(sig, p, o.kind) : -1
    if (u >= 0) u = at(sig, u, o.uid)
    if (u >= 0) u = at(sig, u, o.name)
    if (u < 0) diff |= Differs.owner
  }
  if (sigOwner) p = skip3(sig, p)
  // The containers, in order.
  const cs = m.containers
  let c = lengthAt(sig, p) === cs.length ? p + 2 : -1
  for (let i = 0; i < cs.length && c >= 0; i++) c = tupleAt(sig, c, cs[i]!)
  if (c !== sig.length) diff |= Differs.containers
  return diff
}

/** The same container tuple (id, name, image). */
export const sameTuple = (a: ContainerMeta, b: ContainerMeta): boolean => a === b || (a.id === b.id && a.name === b.name && a.image === b.image)

/** The pod's own values that go into its `pod_new_with_name` (the owner's come from its resolution). */
export const sameAnnouncedFields = (a: PodMeta, b: PodMeta): boolean =>
  a === b || (a.ip === b.ip && a.name === b.name && a.namespace === b.namespace && a.version === b.version && a.hostNetwork === b.hostNetwork)

/** {@link compareSignature} of `write(a)` and `b`, for a pod kept whole: compared field by field. */
export function compareMetas(a: PodMeta, b: PodMeta): number {
  if (a.uid !== b.uid) return Differs.pod
  let diff = 0
  if (!sameAnnouncedFields(a, b)) diff |= Differs.announced
  if (a.hasIp !== b.hasIp) diff |= Differs.hasIp
  const x = a.owner
  const y = b.owner
  if (x === undefined ? y !== undefined : y === undefined || (x !== y && (x.uid !== y.uid || x.kind !== y.kind || x.name !== y.name))) diff |= Differs.owner
  const xs = a.containers
  const ys = b.containers
  let same = xs.length === ys.length
  for (let i = 0; i < xs.length && same; i++) same = sameTuple(xs[i]!, ys[i]!)
  if (!same) diff |= Differs.containers
  return diff
}

/** Offset of the container count (sig not ''). */
function containersAt(sig: string): number {
  let p = skip(sig, 0)
  const hasOwner = (sig.charCodeAt(p) & HAS_OWNER) !== 0
  p = skip3(sig, p + 5)
  return hasOwner ? skip3(sig, p) : p
}

/** The signature lists the container tuple (id, name, image) `c` (sig not ''). */
export function signatureHasTuple(sig: string, c: ContainerMeta): boolean {
  let p = containersAt(sig)
  const n = lengthAt(sig, p)
  p += 2
  for (let i = 0; i < n; i++, p = skip3(sig, p)) if (tupleAt(sig, p, c) >= 0) return true
  return false
}

/** The number of container tuples in the signature (sig not ''). */
export const signatureTupleCount = (sig: string): number => lengthAt(sig, containersAt(sig))

/** Every container tuple of the signature is among `containers` (sig not ''). */
export function signatureTuplesIn(sig: string, containers: readonly ContainerMeta[]): boolean {
  let p = containersAt(sig)
  const n = lengthAt(sig, p)
  p += 2
  for (let i = 0; i < n; i++, p = skip3(sig, p)) {
    let found = false
    for (let j = 0; j < containers.length && !found; j++) found = tupleAt(sig, p, containers[j]!) >= 0
    if (!found) return false
  }
  return true
}

/** A string naming the container tuple exactly (equal keys, equal tuples): for sets of tuples. */
export const tupleKey = (id: string, name: string, image: string): string => `${id.length}:${name.length}:${id}${name}${image}`

/** Adds the {@link tupleKey} of each of the signature's container tuples to `keys` (sig not ''). */
export function addSignatureTupleKeys(sig: string, keys: Set<string>): void {
  let p = containersAt(sig)
  const n = lengthAt(sig, p)
  p += 2
  for (let i = 0; i < n; i++) {
    const q = skip(sig, p)
    const r = skip(sig, q)
    keys.add(tupleKey(field(sig, p), field(sig, q), field(sig, r)))
    p = skip(sig, r)
  }
}

/** A mutable container record, for {@link DecodedPod}. */
interface ContainerSlot {
  id: string
  name: string
  image: string
}

/** A pod's values decoded from its signature, into a record that the next decode with as many containers overwrites. */
export class DecodedPod implements PodMeta {
  uid = ''
  name = ''
  namespace = ''
  readonly resourceVersion = ''
  ip = 0
  hasIp = false
  hostNetwork = false
  version = ''
  owner: OwnerRef | undefined = undefined
  /** Exactly as many as the pods it is for have (setting an array's length costs more than a decode). */
  readonly containers: ContainerSlot[]

  constructor(containers: number) {
    this.containers = Array.from({ length: containers }, () => ({ id: '', name: '', image: '' }))
  }
}

/**
 * Decodes the signature (not '') into the record `into` gives for its number of containers, with
 * its owner reference. The values pods share (namespace, version, container names and images) come
 * back through `intern`: a new connection's announcement holds every pod's messages at once, and
 * fresh copies would all be kept.
 */
export function decodeSignature(sig: string, owner: OwnerRef | undefined, intern: (s: string) => string, into: (containers: number) => DecodedPod): DecodedPod {
  const uid = field(sig, 0)
  let p = skip(sig, 0)
  const f = sig.charCodeAt(p)
  const ip = ((sig.charCodeAt(p + 1) << 24) | (sig.charCodeAt(p + 2) << 16) | (sig.charCodeAt(p + 3) << 8) | sig.charCodeAt(p + 4)) >>> 0
  p += 5
  const name = field(sig, p)
  p = skip(sig, p)
  const namespace = intern(field(sig, p))
  p = skip(sig, p)
  const version = intern(field(sig, p))
  p = skip(sig, p)
  if ((f & HAS_OWNER) !== 0) p = skip3(sig, p)
  const n = lengthAt(sig, p)
  p += 2
  const d = into(n)
  d.uid = uid
  d.hasIp = (f & HAS_IP) !== 0
  d.hostNetwork = (f & HOST_NETWORK) !== 0
  d.ip = ip
  d.owner = owner
  d.name = name
  d.namespace = namespace
  d.version = version
  const cs = d.containers
  for (let i = 0; i < n; i++) {
    const c = cs[i]!
    c.id = field(sig, p)
    p = skip(sig, p)
    c.name = intern(field(sig, p))
    p = skip(sig, p)
    c.image = intern(field(sig, p))
    p = skip(sig, p)
  }
  return d
}

/** The signature's uid is `uid` (sig not ''). */
export const signatureHasUid = (sig: string, uid: string): boolean => at(sig, 0, uid) >= 0

/** The uid, name, namespace and version fields of a signature (sig not ''). */
export const signatureUid = (sig: string): string => field(sig, 0)
export const signatureName = (sig: string): string => field(sig, afterUid(sig))
export const signatureNamespace = (sig: string): string => field(sig, skip(sig, afterUid(sig)))
export const signatureVersion = (sig: string): string => field(sig, skip(sig, skip(sig, afterUid(sig))))

/** Offset of the name (after the uid, flags and IP). */
const afterUid = (sig: string): number => skip(sig, 0) + 5

const flags = (m: PodMeta): number => (m.hasIp ? HAS_IP : 0) | (m.hostNetwork ? HOST_NETWORK : 0) | (m.owner !== undefined ? HAS_OWNER : 0)

const lengthAt = (sig: string, p: number): number => (sig.charCodeAt(p) << 8) | sig.charCodeAt(p + 1)

/** Where the signature goes on after the field `s` at `p`, or -1 when the field there is not `s`. */
function at(sig: string, p: number, s: string): number {
  const n = s.length
  if (lengthAt(sig, p) !== n) return -1
  const start = p + 2
  return sig.substring(start, start + n) === s ? start + n : -1
}

/** Where the signature goes on after the container tuple `c` at `p`, or -1 when the tuple there is not `c`. */
function tupleAt(sig: string, p: number, c: ContainerMeta): number {
  let q = at(sig, p, c.id)
  if (q >= 0) q = at(sig, q, c.name)
  return q >= 0 ? at(sig, q, c.image) : -1
}

/** The string of the field at `p`. */
const field = (sig: string, p: number): string => sig.substring(p + 2, skip(sig, p))

/** Offset of the field after the string at `p`. */
const skip = (sig: string, p: number): number => p + 2 + lengthAt(sig, p)

/** Offset of the field three fields after `p` (past a container tuple or an owner reference). */
const skip3 = (sig: string, p: number): number => skip(sig, skip(sig, skip(sig, p)))
