// A pod as the pod store keeps it: described by its signature (signature.ts), or kept whole — a
// LIST item until its first watch event (pod-store.ts says why), or a pod with a value too long
// to describe.
import type { ContainerMeta, OwnerRef, PodMeta } from '../model/index.ts'
import {
  DecodedPod,
  decodeSignature,
  sameTuple,
  signatureHasTuple,
  signatureName,
  signatureNamespace,
  signatureTupleCount,
  signatureTuplesIn,
  signatureUid,
  signatureVersion,
} from './signature.ts'

/**
 * A kept pod, as a {@link PodMeta}: `owner`, `ip`, `hasIp` and `hostNetwork` are kept as they are;
 * the strings of a described pod are decoded from its signature when read (each read a new
 * string). `resourceVersion` is not kept ('').
 */
export class KeptPod implements PodMeta {
  /** The signature; '' for a pod kept whole. */
  readonly sig: string
  readonly owner: OwnerRef | undefined
  readonly ip: number
  readonly hasIp: boolean
  readonly hostNetwork: boolean
  /** The meta itself, for a pod kept whole. */
  readonly whole: PodMeta | undefined

  /** `sig`: the meta's signature, or '' to keep the meta whole. `owner`: the shared reference equal to its own. */
  constructor(meta: PodMeta, owner: OwnerRef | undefined, sig: string) {
    this.sig = sig
    this.owner = owner
    this.ip = meta.ip
    this.hasIp = meta.hasIp
    this.hostNetwork = meta.hostNetwork
    this.whole = sig === '' ? meta : undefined
  }

  get resourceVersion(): string {
    return ''
  }

  get uid(): string {
    return this.whole?.uid ?? signatureUid(this.sig)
  }

  get name(): string {
    return this.whole?.name ?? signatureName(this.sig)
  }

  get namespace(): string {
    return this.whole?.namespace ?? signatureNamespace(this.sig)
  }

  get version(): string {
    return this.whole?.version ?? signatureVersion(this.sig)
  }

  get containers(): readonly ContainerMeta[] {
    if (this.whole) return this.whole.containers
    return decodeSignature(this.sig, this.owner, (s) => s, (n) => new DecodedPod(n)).containers
  }

  /** It has the container tuple `c`. */
  hasTuple(c: ContainerMeta): boolean {
    if (this.whole === undefined) return signatureHasTuple(this.sig, c)
    const cs = this.whole.containers
    for (let i = 0; i < cs.length; i++) if (sameTuple(cs[i]!, c)) return true
    return false
  }

  /** Its number of container tuples. */
  get tupleCount(): number {
    return this.whole?.containers.length ?? signatureTupleCount(this.sig)
  }

  /** Every one of its tuples is among `containers`. */
  tuplesWithin(containers: readonly ContainerMeta[]): boolean {
    if (this.whole === undefined) return signatureTuplesIn(this.sig, containers)
    return this.whole.containers.every((c) => containers.some((x) => sameTuple(x, c)))
  }
}
