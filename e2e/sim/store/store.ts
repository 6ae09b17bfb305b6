// The object store: one global resourceVersion counter, a table per resource, owner and uid indexes,
// and synchronous fan-out of every committed change to watch sinks and in-process listeners.
import { objectKey, RESOURCES, type ResourceInfo } from '../api/resources.ts'
import { Entry, type KubeObject } from './entry.ts'
import { History, type EventType, type StoreEvent } from './history.ts'

/** Receives the committed events of one resource (an open watch). */
export interface WatchSink {
  deliver(ev: StoreEvent): void
}

/** Receives every committed event (controllers, garbage collector). */
export type StoreListener = (ev: StoreEvent) => void

interface Table {
  readonly resource: ResourceInfo
  readonly objects: Map<string, Entry>
  /** Keys in etcd order; rebuilt lazily after an insert or removal. */
  sortedKeys: string[] | null
  readonly history: History
  readonly sinks: Set<WatchSink>
}

/** In-memory etcd + watch cache. Callers pass fresh objects; stored objects are never mutated. */
export class ObjectStore {
  #rv = 0
  readonly #tables = new Map<string, Table>()
  readonly #byUid = new Map<string, Entry>()
  /** owner uid → dependents (`plural|key`). */
  readonly #dependents = new Map<string, Set<string>>()
  readonly #listeners = new Set<StoreListener>()

  constructor(historyWindow: number, startRv = 0) {
    this.#rv = startRv
    for (const r of RESOURCES) {
      if (r.storageGroup !== undefined) continue // served from another group's table
      this.#tables.set(r.plural, {
        resource: r, objects: new Map(), sortedKeys: null, history: new History(historyWindow, startRv), sinks: new Set(),
      })
    }
  }

  /** The global resourceVersion (last committed change). */
  get resourceVersion(): number {
    return this.#rv
  }

  get(resource: ResourceInfo, key: string): Entry | undefined {
    return this.#table(resource).objects.get(key)
  }

  byUid(uid: string): Entry | undefined {
    return this.#byUid.get(uid)
  }

  /** Number of objects of a resource. */
  count(resource: ResourceInfo): number {
    return this.#table(resource).objects.size
  }

  /** Current objects in key order, optionally only one namespace. */
  entries(resource: ResourceInfo, namespace?: string): Entry[] {
    const table = this.#table(resource)
    const keys = (table.sortedKeys ??= [...table.objects.keys()].sort(compareKeys))
    let from = 0
    let to = keys.length
    if (namespace !== undefined && resource.namespaced) {
      const prefix = namespace + '/'
      from = lowerBound(keys, prefix)
      to = lowerBound(keys, namespace + '0') // '0' follows '/' in byte order
      if (!keys[from]?.startsWith(prefix)) return []
    }
    const out = new Array<Entry>(to - from)
    for (let i = from; i < to; i++) out[i - from] = table.objects.get(keys[i])!
    return out
  }

  /** Every object of every resource (state saving). */
  *all(): Generator<Entry> {
    for (const t of this.#tables.values()) yield* t.objects.values()
  }

  /**
   * Loads saved objects, keeping their resourceVersions, into an empty store and sets the counter to
   * `rv` (a restart from saved state: history starts there, nothing before it is resumable).
   */
  restore(objects: Iterable<{ resource: ResourceInfo; obj: KubeObject }>, rv: number): void {
    if (this.#rv !== 0 || [...this.#tables.values()].some((t) => t.objects.size)) throw new Error('restore needs an empty store')
    for (const { resource, obj } of objects) {
      const table = this.#table(resource)
      const key = objectKey(resource, obj.metadata.namespace, obj.metadata.name)
      const entry = new Entry(table.resource, key, obj, Number(obj.metadata.resourceVersion))
      table.objects.set(key, entry)
      table.sortedKeys = null
      this.#byUid.set(entry.uid, entry)
      this.#reindexOwners(table.resource.plural + '|' + key, undefined, obj)
      if (entry.rv > rv) rv = entry.rv
    }
    this.#rv = rv
    for (const t of this.#tables.values()) t.history.reset(rv)
  }

  /** Objects whose ownerReferences name `uid`, optionally of one resource. */
  dependentsOf(uid: string, resource?: ResourceInfo): Entry[] {
    const refs = this.#dependents.get(uid)
    if (!refs) return []
    const out: Entry[] = []
    for (const ref of refs) {
      const bar = ref.indexOf('|')
      const plural = ref.slice(0, bar)
      if (resource && plural !== resource.plural) continue
      const entry = this.#tables.get(plural)!.objects.get(ref.slice(bar + 1))
      if (entry) out.push(entry)
    }
    return out
  }

  /** Adds a new object (caller checked it is absent); assigns the next resourceVersion. */
  insert(resource: ResourceInfo, key: string, obj: KubeObject): StoreEvent {
    const table = this.#table(resource)
    table.sortedKeys = null
    return this.#commit(table, 'ADDED', key, obj, undefined)
  }

  /** Replaces an existing object; assigns the next resourceVersion. */
  replace(resource: ResourceInfo, key: string, obj: KubeObject): StoreEvent {
    const table = this.#table(resource)
    return this.#commit(table, 'MODIFIED', key, obj, table.objects.get(key))
  }

  /** Removes an object: the DELETED event carries its last state with the delete's resourceVersion. */
  remove(resource: ResourceInfo, key: string): StoreEvent | undefined {
    const table = this.#table(resource)
    const prev = table.objects.get(key)
    if (!prev) return undefined
    table.sortedKeys = null
    const last = { ...prev.obj, metadata: { ...prev.obj.metadata } }
    return this.#commit(table, 'DELETED', key, last, prev)
  }

  /** Opens/closes the event feed of one resource for a watch. */
  addSink(resource: ResourceInfo, sink: WatchSink): void {
    this.#table(resource).sinks.add(sink)
  }

  removeSink(resource: ResourceInfo, sink: WatchSink): void {
    this.#table(resource).sinks.delete(sink)
  }

  /** Every open sink (fault injection acts on all of them). */
  allSinks(): WatchSink[] {
    const out: WatchSink[] = []
    for (const t of this.#tables.values()) out.push(...t.sinks)
    return out
  }

  subscribe(listener: StoreListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  history(resource: ResourceInfo): History {
    return this.#table(resource).history
  }

  /** Forgets all history: resuming from any RV before now is "too old" (docs/kube-api.md WATCH). */
  compact(): void {
    for (const t of this.#tables.values()) t.history.reset(this.#rv)
  }

  #table(resource: ResourceInfo): Table {
    const t = this.#tables.get(resource.plural)
    if (!t) throw new Error(`unknown resource ${resource.plural}`)
    return t
  }

  #commit(table: Table, type: EventType, key: string, obj: KubeObject, prev: Entry | undefined): StoreEvent {
    const rv = ++this.#rv
    obj.metadata.resourceVersion = String(rv)
    const entry = new Entry(table.resource, key, obj, rv)
    if (type === 'DELETED') {
      table.objects.delete(key)
      if (this.#byUid.get(entry.uid)?.key === key) this.#byUid.delete(entry.uid)
    } else {
      table.objects.set(key, entry)
      this.#byUid.set(entry.uid, entry)
    }
    this.#reindexOwners(table.resource.plural + '|' + key, prev?.obj, type === 'DELETED' ? undefined : obj)
    const ev: StoreEvent = prev ? { type, rv, entry, prev } : { type, rv, entry }
    table.history.push(ev)
    for (const sink of table.sinks) sink.deliver(ev)
    for (const listener of this.#listeners) listener(ev)
    return ev
  }

  #reindexOwners(ref: string, before: KubeObject | undefined, after: KubeObject | undefined): void {
    const old = ownerUids(before)
    const now = ownerUids(after)
    for (const uid of old) {
      if (now.includes(uid)) continue
      const set = this.#dependents.get(uid)
      set?.delete(ref)
      if (set?.size === 0) this.#dependents.delete(uid)
    }
    for (const uid of now) {
      let set = this.#dependents.get(uid)
      if (!set) this.#dependents.set(uid, (set = new Set()))
      set.add(ref)
    }
  }
}

function ownerUids(obj: KubeObject | undefined): string[] {
  const refs = obj?.metadata.ownerReferences
  if (!Array.isArray(refs)) return []
  return refs.map((r: { uid?: string }) => r.uid ?? '').filter(Boolean)
}

/** Byte order of keys (etcd order), not locale order. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** First index whose key is ≥ `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (keys[mid] < key) lo = mid + 1
    else hi = mid
  }
  return lo
}
