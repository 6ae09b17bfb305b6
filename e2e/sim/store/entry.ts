// One stored object version with its JSON serialised once and cached (list items, objects, metadata-only).
import { Buffer } from 'node:buffer'
import type { ResourceInfo } from '../api/resources.ts'

const LINE_END = Buffer.from('}\n')

/** A Kubernetes object as stored: no kind/apiVersion (those are added on output), metadata first. */
export type KubeObject = { metadata: Record<string, any>; [field: string]: any }

/**
 * An immutable stored version of an object. The object must not be mutated once wrapped: its JSON
 * is computed at most once per shape and shared by every list and watch that sends it.
 */
export class Entry {
  #item?: Buffer
  #object?: string
  #meta?: Buffer
  #lines?: Map<string, Buffer>
  #view?: Entry

  constructor(
    readonly resource: ResourceInfo,
    /** `namespace/name` or `name` (etcd key order). */
    readonly key: string,
    readonly obj: KubeObject,
    readonly rv: number,
  ) {}

  get name(): string {
    return this.obj.metadata.name
  }

  get namespace(): string | undefined {
    return this.obj.metadata.namespace
  }

  get uid(): string {
    return this.obj.metadata.uid
  }

  /** List item bytes: the object without kind/apiVersion (docs/kube-api.md LIST). */
  get itemBytes(): Buffer {
    return (this.#item ??= Buffer.from(JSON.stringify(this.obj)))
  }

  /** The object with kind/apiVersion first, as GET and watch events carry it. */
  get objectJson(): string {
    if (this.#object === undefined) {
      const item = this.itemBytes.toString()
      const head = `{"kind":"${this.resource.kind}","apiVersion":"${this.resource.apiVersion}"`
      this.#object = item.length > 2 ? `${head},${item.slice(1)}` : `${head}}`
    }
    return this.#object
  }

  /** `PartialObjectMetadata` bytes: kind/apiVersion of meta.k8s.io/v1 and the full metadata. */
  get metaBytes(): Buffer {
    return (this.#meta ??= Buffer.from(
      `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(this.obj.metadata)}}`,
    ))
  }

  /**
   * The watch event line `{"type":…,"object":…}\n` for this version (full object or metadata-only),
   * built once per (type, shape) and shared by every watch that sends it.
   */
  watchLine(type: 'ADDED' | 'MODIFIED' | 'DELETED', meta: boolean): Buffer {
    const key = meta ? type + '/m' : type
    this.#lines ??= new Map()
    let line = this.#lines.get(key)
    if (!line) {
      const head = Buffer.from(`{"type":"${type}","object":`)
      line = Buffer.concat([head, meta ? this.metaBytes : Buffer.from(this.objectJson), LINE_END])
      this.#lines.set(key, line)
    }
    return line
  }

  /**
   * This version as another API group serves the same stored object (events.k8s.io/v1 Event of a
   * core/v1 Event), converted once and cached like the serialisations.
   */
  as(resource: ResourceInfo, convert: (obj: KubeObject) => KubeObject): Entry {
    if (resource === this.resource) return this
    if (this.#view?.resource !== resource) this.#view = new Entry(resource, this.key, convert(this.obj), this.rv)
    return this.#view
  }

  /** A deep copy with kind/apiVersion, for in-process callers. */
  toObject(): any {
    return JSON.parse(this.objectJson)
  }
}
