// Kubernetes protobuf responses for pods (docs/kube-api.md "Protobuf responses"): what kube-apiserver
// answers a client that asks for `application/vnd.kubernetes.protobuf` first — a LIST as `k8s\0` +
// Unknown{typeMeta, raw = PodList}, a watch as frames of a 4-byte big-endian length and a WatchEvent
// whose object's raw bytes are `k8s\0` + Unknown{Pod}. Encoded from the JSON objects by the field
// table of protobuf.ts; fields outside the table are left out (the real server would send them).
import { Buffer } from 'node:buffer'
import { MAGIC as MAGIC_BYTES, SCHEMA, type FieldSpec } from './protobuf.ts'

export const PROTOBUF_WATCH_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch'
const MAGIC = Buffer.from(MAGIC_BYTES)

/** Bytes of protobuf wire format, written forward. */
class WireWriter {
  private readonly parts: Uint8Array[] = []
  private scratch: number[] = []

  varint(v: bigint | number): void {
    let x = BigInt.asUintN(64, BigInt(v))
    while (x >= 0x80n) {
      this.scratch.push(Number(x & 0x7fn) | 0x80)
      x >>= 7n
    }
    this.scratch.push(Number(x))
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType)
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2)
    this.varint(b.length)
    this.flush()
    this.parts.push(b)
  }

  string(field: number, s: string): void {
    this.bytes(field, Buffer.from(s, 'utf8'))
  }

  finish(): Buffer {
    this.flush()
    return Buffer.concat(this.parts)
  }

  private flush(): void {
    if (this.scratch.length) this.parts.push(Uint8Array.from(this.scratch))
    this.scratch = []
  }
}

/** Each message's fields in field-number order, as Go's marshaller writes them. */
const ORDERED = new Map([...SCHEMA].map(([message, fields]) => [message, [...fields].sort((a, b) => a[0] - b[0])]))

/** One message of the table from its JSON form: every field present in `obj` and in the table. */
export function encodeMessage(message: string, obj: Record<string, unknown>): Buffer {
  const fields = ORDERED.get(message)
  if (!fields) throw new Error(`no protobuf table for ${message}`)
  const w = new WireWriter()
  for (const [n, spec] of fields) {
    const value = obj[spec.name]
    if (value === undefined || value === null) continue
    if (spec.map) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const entry = new WireWriter()
        entry.string(1, k)
        writeValue(entry, 2, spec, v)
        w.bytes(n, entry.finish())
      }
    } else if (spec.repeated) {
      for (const v of value as unknown[]) writeValue(w, n, spec, v)
    } else {
      writeValue(w, n, spec, value)
    }
  }
  return w.finish()
}

function writeValue(w: WireWriter, field: number, spec: FieldSpec, v: unknown): void {
  switch (spec.type) {
    case 'string':
      return w.string(field, String(v))
    case 'bool':
      w.tag(field, 0)
      return w.varint(v ? 1 : 0)
    case 'int32':
    case 'int64':
      w.tag(field, 0)
      return w.varint(Math.trunc(Number(v)))
    case 'Time': {
      const t = new WireWriter()
      const ms = Date.parse(String(v))
      if (Number.isFinite(ms)) {
        t.tag(1, 0)
        t.varint(Math.floor(ms / 1000))
      }
      return w.bytes(field, t.finish())
    }
    case 'Quantity': {
      const q = new WireWriter()
      q.string(1, String(v))
      return w.bytes(field, q.finish())
    }
    case 'IntOrString': {
      const x = new WireWriter()
      if (typeof v === 'number') {
        x.tag(1, 0)
        x.varint(0)
        x.tag(2, 0)
        x.varint(v)
      } else {
        x.tag(1, 0)
        x.varint(1)
        x.string(3, String(v))
      }
      return w.bytes(field, x.finish())
    }
    default:
      return w.bytes(field, encodeMessage(spec.type, v as Record<string, unknown>))
  }
}

/** `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const typeMeta = new WireWriter()
  typeMeta.string(1, apiVersion)
  typeMeta.string(2, kind)
  const u = new WireWriter()
  u.bytes(1, typeMeta.finish())
  u.bytes(2, raw)
  return Buffer.concat([MAGIC, u.finish()])
}

/** A PodList body: `items` are Pod messages ({@link podItem} of each entry). */
export function podListBody(listMeta: Record<string, unknown>, items: readonly Uint8Array[]): Buffer {
  const w = new WireWriter()
  w.bytes(1, encodeMessage('ListMeta', listMeta))
  for (const item of items) w.bytes(2, item)
  return envelope('v1', 'PodList', w.finish())
}

/** One watch frame: the 4-byte length and WatchEvent{type, object{raw}}. */
export function watchFrame(type: string, object: Uint8Array): Buffer {
  const raw = new WireWriter()
  raw.bytes(1, object)
  const ev = new WireWriter()
  ev.string(1, type)
  ev.bytes(2, raw.finish())
  const body = ev.finish()
  const prefix = Buffer.alloc(4)
  prefix.writeUInt32BE(body.length)
  return Buffer.concat([prefix, body])
}

/** A BOOKMARK frame of a pod watch at `rv` (with the annotation that ends a streaming list's snapshot). */
export function podBookmarkFrame(rv: number, initialEventsEnd: boolean): Buffer {
  const metadata = { resourceVersion: String(rv), ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) }
  return watchFrame('BOOKMARK', envelope('v1', 'Pod', encodeMessage('Pod', { metadata, spec: {} })))
}

/** An ERROR frame carrying a Status. */
export function errorFrame(status: Record<string, unknown>): Buffer {
  return watchFrame('ERROR', envelope('v1', 'Status', encodeMessage('Status', status)))
}

interface Cached {
  item?: Buffer
  frames?: Map<string, Buffer>
}
/** Per stored version, as Entry caches its JSON: encoded once, shared by every list and watch. */
const cache = new WeakMap<object, Cached>()
const cachedOf = (entry: object): Cached => {
  let c = cache.get(entry)
  if (!c) cache.set(entry, (c = {}))
  return c
}

/** A stored pod's Pod message (a PodList item). */
export function podItem(entry: { readonly obj: Record<string, unknown> }): Buffer {
  const c = cachedOf(entry)
  return (c.item ??= encodeMessage('Pod', entry.obj))
}

/** A stored pod's watch frame of `type`. */
export function podFrame(entry: { readonly obj: Record<string, unknown> }, type: string): Buffer {
  const c = cachedOf(entry)
  c.frames ??= new Map()
  let f = c.frames.get(type)
  if (!f) c.frames.set(type, (f = watchFrame(type, envelope('v1', 'Pod', podItem(entry)))))
  return f
}
