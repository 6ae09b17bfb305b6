// A pod as the pod store keeps it: described by its signature (signature.ts), or kept whole — a
// LIST item until its first watch event (pod-store.ts says why), or a pod with a value too long
// to describe. A pod kept whole is its meta itself, with no record around it: after a sync every
// pod is kept so, and a wrapper cost 72 bytes a pod (bench/README.md, issue 34).
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
 * A kept pod: a {@link DescribedPod}, or a meta kept whole (its owner reference the shared one, its
 * resourceVersion ''). Either way a new object each time the pod is kept anew.
 */
export type KeptPod = PodMeta

/**
 * A described pod, as a {@link PodMeta}: `owner`, `ip`, `hasIp` and `hostNetwork` are kept as they
 * are; the strings are decoded from its signature when read (each read a new string).
 * `resourceVersion` is not kept ('').
 */
export class DescribedPod implements PodMeta {
  /** The signature, never ''. */
  readonly sig: string
  readonly owner: OwnerRef | undefined
  readonly ip: number
  readonly hasIp: boolean
  readonly hostNetwork: boolean

  /** `sig`: the meta's signature (not ''). `owner`: the shared reference equal to its own. */
  constructor(meta: PodMeta, owner: OwnerRef | undefined, sig: string) {
    this.sig = sig
    this.owner = owner
    this.ip = meta.ip
    this.hasIp = meta.hasIp
    this.hostNetwork = meta.hostNetwork
  }

  get resourceVersion(): string {
    return ''
  }

  get uid(): string {
    return signatureUid(this.sig)
  }

  get name(): string {
    return signatureName(this.sig)
  }

  get namespace(): string {
    return signatureNamespace(this.sig)
  }

  get version(): string {
    return signatureVersion(this.sig)
  }

  get containers(): readonly ContainerMeta[] {
    return decodeSignature(this.sig, this.owner, (s) => s, (n) => new DecodedPod(n)).containers
  }
}

/** The kept pod's signature, or '' when it is kept whole. */
export const keptSig = (kept: KeptPod): string => (kept instanceof DescribedPod ? kept.sig : '')

/** It has the container tuple `c`. */
export function keptHasTuple(kept: KeptPod, c: ContainerMeta): boolean {
  if (kept instanceof DescribedPod) return signatureHasTuple(kept.sig, c)
  const cs = kept.containers
  for (let i = 0; i < cs.length; i++) if (sameTuple(cs[i]!, c)) return true
  return false
}

/** Its number of container tuples. */
export const keptTupleCount = (kept: KeptPod): number => (kept instanceof DescribedPod ? signatureTupleCount(kept.sig) : kept.containers.length)

/** Every one of its tuples is among `containers`. */
export function keptTuplesWithin(kept: KeptPod, containers: readonly ContainerMeta[]): boolean {
  if (kept instanceof DescribedPod) return signatureTuplesIn(kept.sig, containers)
  return kept.containers.every((c) => containers.some((x) => sameTuple(x, c)))
}
