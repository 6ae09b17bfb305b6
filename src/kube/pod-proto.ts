// Pods and metadata-only ReplicaSets and Jobs read from kube-apiserver's protobuf (docs/kube-api.md
// "Protobuf responses"): a LIST body and one watch frame straight to the metas the JSON layouts
// give (pod-layout.ts), field by field of the generated.proto numbers; every other field skipped.
import { parseIpv4, SHARED_STATUSES } from '../model/convert.ts'
import { listedContainer, newContainerMeta, newOwnerRef, pageArray } from '../model/records.ts'
import type { ContainerMeta, OwnerKind, OwnerMeta, OwnerRef, PodMeta } from '../model/types.ts'
import { asciiString, ByteStringCache, utf8String } from './json-strings.ts'
import { assemblePod, NO_STATUS, type MetaFields, type PodModel, type StatusFields } from './pod-layout.ts'
import { ProtoDecodeError, ProtoReader, WIRE_LEN, WIRE_VARINT } from './proto-wire.ts'

/** One LIST body read. */
export interface ProtoList<T> {
  readonly items: T[]
  /** Items read (converted or not: no uid → left out). */
  readonly total: number
  readonly resourceVersion: string
  readonly continueToken: string
}

/** A `Status` as its JSON reads (what status.ts takes), from an ERROR event or an error body. */
export interface ProtoStatus {
  readonly kind: 'Status'
  readonly status: string
  readonly message: string
  readonly reason: string
  readonly code: number
}

/** One watch frame read: `object` for ADDED/MODIFIED/DELETED, `status` for ERROR. */
export interface ProtoFrame<T> {
  readonly type: string
  readonly object: T | undefined
  /** The object's `metadata.resourceVersion` (a BOOKMARK's too). */
  readonly resourceVersion: string
  /** A BOOKMARK carrying `k8s.io/initial-events-end: "true"`. */
  readonly initialEventsEnd: boolean
  readonly status: ProtoStatus | undefined
}

const MAGIC0 = 0x6b // k
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end'

/** A protobuf reader of one kind's objects: pods, or metadata-only owners. */
export interface ProtoObjects<T> {
  /** The object `b[s, e)` (its own encoding, no envelope); `listed`: a first LIST's item. */
  read(s: number, e: number, listed: boolean): T | undefined
}

/** Reads pods, owners, lists, frames and statuses of protobuf bytes; one instance per scanner (its cache). */
export class ProtoLayout {
  /** `metadata.resourceVersion` of the last object read. */
  rv = ''
  private readonly r = new ProtoReader()
  private readonly cache: ByteStringCache

  constructor(private readonly model: PodModel) {
    this.cache = new ByteStringCache(model)
  }

  /** A LIST body (`k8s\0` + Unknown + a list) read with `objects`. Throws ProtoDecodeError. */
  list<T>(body: Uint8Array, objects: ProtoObjects<T>, listed: boolean): ProtoList<T> {
    const r = this.r
    const [s, e] = this.envelopeKind(body, 0, body.length)
    let rv = ''
    let continueToken = ''
    const items = pageArray<T>()
    let total = 0
    r.pos = s
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((1 << 3) | WIRE_LEN)) {
        const end = r.len(e)
        while (r.pos < end) {
          const t = r.tag(end)
          if (t === ((2 << 3) | WIRE_LEN)) rv = this.str(end)
          else if (t === ((3 << 3) | WIRE_LEN)) continueToken = this.str(end)
          else r.skip(t & 7, end)
        }
      } else if (tag === ((2 << 3) | WIRE_LEN)) {
        const end = r.len(e)
        total++
        const item = objects.read(r.pos, end, listed)
        r.pos = end
        if (item !== undefined) items.push(item)
      } else r.skip(tag & 7, e)
    }
    return { items, total, resourceVersion: rv, continueToken }
  }

  /** One watch frame `b[s, e)` (a WatchEvent, the length prefix stripped). Throws ProtoDecodeError. */
  frame<T>(b: Uint8Array, s: number, e: number, objects: ProtoObjects<T>): ProtoFrame<T> {
    const r = this.r
    const [type, os, oe] = this.watchEvent(b, s, e)
    this.rv = ''
    if (os < 0) return { type, object: undefined, resourceVersion: '', initialEventsEnd: false, status: undefined }
    const [ks, ke] = this.envelopeKind(b, os, oe)
    if (type === 'ERROR') {
      return { type, object: undefined, resourceVersion: '', initialEventsEnd: false, status: this.statusAt(ks, ke) }
    }
    if (type === 'BOOKMARK') {
      const end = this.bookmark(ks, ke)
      return { type, object: undefined, resourceVersion: this.rv, initialEventsEnd: end, status: undefined }
    }
    const object = objects.read(ks, ke, false)
    r.reset(b, oe)
    return { type, object, resourceVersion: this.rv, initialEventsEnd: false, status: undefined }
  }

  /**
   * The uid {@link frame} would give the object of an ADDED, MODIFIED or DELETED frame (the last
   * `metadata.uid`), without converting it; undefined for other types or bytes it cannot read.
   */
  frameUid(b: Uint8Array, s: number, e: number): string | undefined {
    try {
      const r = this.r
      const [type, os, oe] = this.watchEvent(b, s, e)
      if (os < 0 || (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED')) return undefined
      const [ks, ke] = this.envelopeKind(b, os, oe)
      r.pos = ks
      let uid: string | undefined
      for (let me = this.nextMetadata(ke); me >= 0; me = this.nextMetadata(ke)) {
        while (r.pos < me) {
          const t = r.tag(me)
          if (t === ((5 << 3) | WIRE_LEN)) uid = this.plain(me)
          else r.skip(t & 7, me)
        }
      }
      return uid
    } catch (err) {
      if (err instanceof ProtoDecodeError) return undefined
      throw err
    }
  }

  /** An error body (`k8s\0` + Unknown + Status); undefined when it is not one. */
  status(body: Uint8Array): ProtoStatus | undefined {
    try {
      const [s, e, kind] = this.envelopeKind(body, 0, body.length)
      return kind === 'Status' ? this.statusAt(s, e) : undefined
    } catch (err) {
      if (err instanceof ProtoDecodeError) return undefined
      throw err
    }
  }

  /** A Pod `[s, e)` of the current buffer: as the JSON layout's `read`. */
  pod(s: number, e: number, listed: boolean): PodMeta | undefined {
    const r = this.r
    r.pos = s
    this.rv = ''
    let metadata: MetaFields | undefined
    let hostNetwork = false
    let status = NO_STATUS
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((1 << 3) | WIRE_LEN)) metadata = this.metadata(r.len(e), metadata, !listed, listed)
      else if (tag === ((2 << 3) | WIRE_LEN)) hostNetwork = this.spec(r.len(e), hostNetwork)
      else if (tag === ((3 << 3) | WIRE_LEN)) status = this.podStatus(r.len(e), status, listed)
      else r.skip(tag & 7, e)
    }
    if (metadata === undefined) return undefined
    this.rv = metadata.rv
    return assemblePod(this.model, metadata, hostNetwork, status, listed)
  }

  /** A ReplicaSet or Job `[s, e)` (PartialObjectMetadata or the full object: metadata is field 1 of both), as `ownerMetaOf`. */
  owner(s: number, e: number, kind: OwnerKind): OwnerMeta | undefined {
    const r = this.r
    r.pos = s
    this.rv = ''
    let metadata: MetaFields | undefined
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((1 << 3) | WIRE_LEN)) metadata = this.metadata(r.len(e), metadata, true, true)
      else r.skip(tag & 7, e)
    }
    if (metadata === undefined) return undefined
    this.rv = metadata.rv
    if (!metadata.uid) return undefined
    const uid = this.model.intern(metadata.uid)
    const name = this.model.intern(metadata.name)
    const { namespace, rv, owner } = metadata
    return owner ? { kind, uid, name, namespace, resourceVersion: rv, controller: owner } : { kind, uid, name, namespace, resourceVersion: rv }
  }

  /** A WatchEvent `b[s, e)`: its type and the range of its object's raw bytes (-1, -1: none). */
  private watchEvent(b: Uint8Array, s: number, e: number): [string, number, number] {
    const r = this.r
    r.reset(b, s)
    let type = ''
    let os = -1
    let oe = -1
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((1 << 3) | WIRE_LEN)) type = this.str(e)
      else if (tag === ((2 << 3) | WIRE_LEN)) {
        const end = r.len(e)
        while (r.pos < end) {
          const t = r.tag(end)
          if (t === ((1 << 3) | WIRE_LEN)) {
            oe = r.len(end)
            os = r.pos
            r.pos = oe
          } else r.skip(t & 7, end)
        }
      } else r.skip(tag & 7, e)
    }
    return [type, os, oe]
  }

  /** `k8s\0` + Unknown at `[s, e)`: the range of its `raw` and its `typeMeta.kind`. */
  private envelopeKind(b: Uint8Array, s: number, e: number): [number, number, string] {
    if (e - s < 4 || b[s] !== MAGIC0 || b[s + 1] !== 0x38 || b[s + 2] !== 0x73 || b[s + 3] !== 0) {
      throw new ProtoDecodeError(`no k8s\\0 envelope (${e - s} bytes)`)
    }
    const r = this.r
    r.reset(b, s + 4)
    let rs = -1
    let re = -1
    let kind = ''
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((1 << 3) | WIRE_LEN)) {
        const end = r.len(e)
        while (r.pos < end) {
          const t = r.tag(end)
          if (t === ((2 << 3) | WIRE_LEN)) kind = this.plain(end)
          else r.skip(t & 7, end)
        }
      } else if (tag === ((2 << 3) | WIRE_LEN)) {
        re = r.len(e)
        rs = r.pos
        r.pos = re
      } else r.skip(tag & 7, e)
    }
    if (rs < 0) throw new ProtoDecodeError(`envelope of ${kind || 'no kind'} without raw bytes`)
    return [rs, re, kind]
  }

  /** Status `[s, e)`. */
  private statusAt(s: number, e: number): ProtoStatus {
    const r = this.r
    r.pos = s
    let status = ''
    let message = ''
    let reason = ''
    let code = 0
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((2 << 3) | WIRE_LEN)) status = this.plain(e)
      else if (tag === ((3 << 3) | WIRE_LEN)) message = this.plain(e)
      else if (tag === ((4 << 3) | WIRE_LEN)) reason = this.plain(e)
      else if (tag === ((6 << 3) | WIRE_VARINT)) code = r.varint(e) | 0
      else r.skip(tag & 7, e)
    }
    return { kind: 'Status', status, message, reason, code }
  }

  /** A BOOKMARK's object `[s, e)`: rv into `this.rv`, and whether it ends the initial events. */
  private bookmark(s: number, e: number): boolean {
    const r = this.r
    r.pos = s
    let end = false
    for (let me = this.nextMetadata(e); me >= 0; me = this.nextMetadata(e)) {
      while (r.pos < me) {
        const t = r.tag(me)
        if (t === ((6 << 3) | WIRE_LEN)) this.rv = this.plain(me)
        else if (t === ((12 << 3) | WIRE_LEN)) {
          const ae = r.len(me)
          let key = ''
          let value = ''
          while (r.pos < ae) {
            const u = r.tag(ae)
            if (u === ((1 << 3) | WIRE_LEN)) key = this.plain(ae)
            else if (u === ((2 << 3) | WIRE_LEN)) value = this.plain(ae)
            else r.skip(u & 7, ae)
          }
          if (key === INITIAL_EVENTS_END) end = value === 'true'
        } else r.skip(t & 7, me)
      }
    }
    return end
  }

  /** Skips to the next ObjectMeta (field 1) before `e`: its end, pos at its first byte; -1 when there is none. */
  private nextMetadata(e: number): number {
    const r = this.r
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((1 << 3) | WIRE_LEN)) return r.len(e)
      r.skip(tag & 7, e)
    }
    return -1
  }

  /** ObjectMeta up to `e` (pos at its first byte), merged into `prev` as protobuf merges a repeated message. */
  private metadata(e: number, prev: MetaFields | undefined, keepRv: boolean, sharedRef: boolean): MetaFields {
    const r = this.r
    let uid = prev?.uid ?? ''
    let name = prev?.name ?? ''
    let namespace = prev?.namespace ?? ''
    let rv = prev?.rv ?? ''
    let owner = prev?.owner
    while (r.pos < e) {
      const tag = r.tag(e)
      switch (tag) {
        case (5 << 3) | WIRE_LEN:
          uid = this.plain(e)
          break
        case (1 << 3) | WIRE_LEN:
          name = this.plain(e)
          break
        case (3 << 3) | WIRE_LEN:
          namespace = this.str(e)
          break
        case (6 << 3) | WIRE_LEN:
          if (keepRv) rv = this.plain(e)
          else r.pos = r.len(e)
          break
        case (13 << 3) | WIRE_LEN: {
          const end = r.len(e)
          if (owner === undefined) owner = this.ownerRef(end, sharedRef)
          r.pos = end
          break
        }
        default:
          r.skip(tag & 7, e)
      }
    }
    return { uid, name, namespace, rv, owner }
  }

  /** An OwnerReference up to `e`: the reference when `controller: true` (the shared one when `shared`). */
  private ownerRef(e: number, shared: boolean): OwnerRef | undefined {
    const r = this.r
    let controller = false
    let kind = ''
    let uid = ''
    let name = ''
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((6 << 3) | WIRE_VARINT)) controller = r.bool(e)
      else if (tag === ((1 << 3) | WIRE_LEN)) kind = this.str(e)
      else if (tag === ((4 << 3) | WIRE_LEN)) uid = this.plain(e)
      else if (tag === ((3 << 3) | WIRE_LEN)) name = this.plain(e)
      else r.skip(tag & 7, e)
    }
    if (!controller) return undefined
    return shared ? this.model.ownerRef(kind, uid, name) : newOwnerRef(kind, uid, name)
  }

  /** PodSpec up to `e`: hostNetwork. */
  private spec(e: number, prev: boolean): boolean {
    const r = this.r
    let hostNetwork = prev
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((11 << 3) | WIRE_VARINT)) hostNetwork = r.bool(e)
      else r.skip(tag & 7, e)
    }
    return hostNetwork
  }

  /** PodStatus up to `e`, merged into `prev`. */
  private podStatus(e: number, prev: StatusFields, listed: boolean): StatusFields {
    const r = this.r
    let podIP = prev.podIP
    let podIPsIp = prev.podIPsIp
    // NO_STATUS is shared: fresh arrays for the first status read.
    const images = prev === NO_STATUS ? [] : prev.images
    const containers: ContainerMeta[] = prev === NO_STATUS ? [] : prev.containers
    const flat: string[] = prev === NO_STATUS ? [] : prev.flat
    let entries = 0
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((6 << 3) | WIRE_LEN)) podIP = this.plain(e)
      else if (tag === ((12 << 3) | WIRE_LEN)) {
        const end = r.len(e)
        if (podIPsIp < 0) podIPsIp = this.podIPEntry(end)
        r.pos = end
      } else if (tag === ((8 << 3) | WIRE_LEN)) {
        const end = r.len(e)
        this.containerStatus(end, images, containers, flat, listed, entries++ < SHARED_STATUSES)
        r.pos = end
      } else r.skip(tag & 7, e)
    }
    return { podIP, podIPsIp, images, containers, flat }
  }

  /** A PodIP up to `e`: its ip as IPv4, -1 when not one. */
  private podIPEntry(e: number): number {
    const r = this.r
    let ip = ''
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((1 << 3) | WIRE_LEN)) ip = this.plain(e)
      else r.skip(tag & 7, e)
    }
    return parseIpv4(ip)
  }

  /** A ContainerStatus up to `e`: its image (when not empty) and, with an id, the container. */
  private containerStatus(e: number, images: string[], containers: ContainerMeta[], flat: string[], listed: boolean, shared: boolean): void {
    const r = this.r
    let image = ''
    let id = ''
    let name = ''
    while (r.pos < e) {
      const tag = r.tag(e)
      if (tag === ((6 << 3) | WIRE_LEN)) image = shared ? this.str(e) : this.plain(e)
      else if (tag === ((8 << 3) | WIRE_LEN)) id = this.plain(e)
      else if (tag === ((1 << 3) | WIRE_LEN)) name = shared ? this.str(e) : this.plain(e)
      else r.skip(tag & 7, e)
    }
    if (image) images.push(image)
    if (id) {
      if (listed) listedContainer(flat, id, name, image)
      else containers.push(newContainerMeta(id, name, image))
    }
  }

  /** A length-delimited string through the byte cache (interned). */
  private str(end: number): string {
    const r = this.r
    const e = r.len(end)
    const b = r.buf
    let h = 0x811c9dc5 | 0
    let high = 0
    for (let i = r.pos; i < e; i++) {
      const c = b[i]
      high |= c
      h = Math.imul(h ^ c, 0x01000193)
    }
    const s = this.cache.get(b, r.pos, e, h, high)
    r.pos = e
    return s
  }

  /** A length-delimited string, made afresh. */
  private plain(end: number): string {
    const r = this.r
    const e = r.len(end)
    const b = r.buf
    let high = 0
    for (let i = r.pos; i < e; i++) high |= b[i]
    const s = high < 128 ? asciiString(b, r.pos, e) : utf8String(b, r.pos, e)
    r.pos = e
    return s
  }
}

/** The media type of kube-apiserver's protobuf (docs/kube-api.md "Protobuf responses"). */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf'

/** Whether a response's `Content-Type` is protobuf (a LIST's, or a watch's `;stream=watch`). */
export function isProtobuf(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.trimStart().toLowerCase().startsWith(PROTOBUF)
}

/** A resource's protobuf reader (pods: pod-proto.ts), beside its JSON scanner. */
export interface ProtoScanner<T> {
  /** A LIST body. Throws ProtoDecodeError. */
  list(body: Uint8Array, listed: boolean): ProtoList<T>
  /** One watch frame `buf[start, end)`. Throws ProtoDecodeError. */
  frame(buf: Uint8Array, start: number, end: number): ProtoFrame<T>
  /** The uid `frame` will give (undefined: not an object event, or unreadable). */
  frameUid(buf: Uint8Array, start: number, end: number): string | undefined
}

/** Pods read from protobuf through `model`, with their own reader and string cache. */
export function createPodProtoScanner(model: PodModel): ProtoScanner<PodMeta> {
  const layout = new ProtoLayout(model)
  const pods: ProtoObjects<PodMeta> = { read: (s, e, listed) => layout.pod(s, e, listed) }
  return {
    list: (body, listed) => layout.list(body, pods, listed),
    frame: (buf, start, end) => layout.frame(buf, start, end, pods),
    frameUid: (buf, start, end) => layout.frameUid(buf, start, end),
  }
}

const PLAIN_STRINGS: PodModel = {
  intern: (s) => s,
  versionOf: () => '',
  ownerRef: (kind, uid, name) => newOwnerRef(kind, uid, name),
}

/** A protobuf error body's Status (responseError, status.ts); undefined when it is not one. */
export function protoStatusOf(body: Uint8Array): ProtoStatus | undefined {
  return new ProtoLayout(PLAIN_STRINGS).status(body)
}
