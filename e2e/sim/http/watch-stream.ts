// One open watch: a queue of lines written with backpressure, bookmarks, server timeout, stall and malformed-line faults.
import { Buffer } from 'node:buffer'
import type { ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import type { ResourceInfo } from '../api/resources.ts'
import type { Selector } from '../api/selectors.ts'
import type { SimApiError } from '../api/errors.ts'
import type { Entry } from '../store/entry.ts'
import type { EventType, StoreEvent } from '../store/history.ts'
import type { ObjectStore, WatchSink } from '../store/store.ts'
import { bookmarkLine, errorLine } from './bookmark.ts'
import { errorFrame, podBookmarkFrame, podFrame } from './protobuf-encode.ts'
import type { Clock, TimerHandle } from '../../../src/util/clock.ts'
import type { FaultState } from './faults.ts'
import { isHttp2 } from './respond.ts'

/** What a watch sends: one resource, optionally one namespace and a selector. */
export interface WatchSpec {
  readonly resource: ResourceInfo
  readonly namespace?: string
  readonly selector?: Selector
  /** Objects as PartialObjectMetadata. */
  readonly meta: boolean
  /** Pods as Kubernetes protobuf: length-prefixed WatchEvent frames instead of JSON lines. */
  readonly protobuf?: boolean
  /** allowWatchBookmarks. */
  readonly bookmarks: boolean
  /** Server-side deadline (timeoutSeconds, or [1800, 3600) s). */
  readonly timeoutMs: number
  readonly bookmarkIntervalMs: number
  /** The clock of the deadline and the bookmarks. */
  readonly clock: Clock
  /** Each write a gzip member of its own (Content-Encoding: gzip), as kube-apiserver flushes a compressed watch. */
  readonly gzip?: boolean
  /** The stored entry as the watched resource shows it (events.k8s.io views of core events). */
  readonly view: (e: Entry) => Entry
}

type Item =
  | { readonly t: 'event'; readonly type: EventType; readonly entry: Entry }
  | { readonly t: 'bytes'; readonly bytes: Uint8Array }
  | { readonly t: 'initial'; readonly entries: readonly Entry[]; i: number }

const BATCH_BYTES = 256 * 1024
/** A watcher this far behind is ended (cleanly), like the API server's slow-watcher termination. */
const MAX_QUEUE = 500_000

/** An open watch stream. Register it as a store sink in the same tick as its replay is queued. */
export class WatchStream implements WatchSink {
  #queue: Item[] = []
  #head = 0
  #scheduled = false
  #waitingDrain = false
  #ended = false
  #endWhenFlushed = false
  #deadlinePassed = false
  #cleaned = false
  readonly #timers: TimerHandle[] = []

  constructor(
    private readonly res: ServerResponse,
    readonly spec: WatchSpec,
    private readonly store: ObjectStore,
    private readonly faults: FaultState,
    private readonly onClose: (w: WatchStream) => void,
  ) {
    res.on('close', () => this.#cleanup())
    const { timeoutMs, bookmarks, bookmarkIntervalMs, clock } = spec
    this.#timers.push(clock.setTimeout(() => this.#deadline(), timeoutMs))
    if (bookmarks) {
      const every = (): void => {
        this.bookmark()
        if (!this.#cleaned) this.#timers.push(clock.setTimeout(every, bookmarkIntervalMs))
      }
      this.#timers.push(clock.setTimeout(every, bookmarkIntervalMs))
      // One bookmark ~2 s before the deadline, so the client resumes from a fresh RV (cacher behaviour).
      if (timeoutMs > 2000) this.#timers.push(clock.setTimeout(() => this.bookmark(), timeoutMs - 2000))
    }
  }

  get ended(): boolean {
    return this.#ended
  }

  /** Queues synthetic ADDED events for a snapshot (lazily serialised). */
  sendInitial(entries: readonly Entry[]): void {
    if (entries.length) this.#push({ t: 'initial', entries, i: 0 })
  }

  /** Queues a history replay or a live event, applying the namespace and selector filter. */
  deliver(ev: StoreEvent): void {
    if (this.#ended) return
    const { namespace, selector } = this.spec
    if (namespace !== undefined && ev.entry.namespace !== namespace) return
    let type: EventType | undefined = ev.type
    if (selector) {
      // A selector watch reports objects entering/leaving the selection as ADDED/DELETED.
      const now = selector(ev.entry.obj)
      const before = ev.prev ? selector(ev.prev.obj) : false
      if (ev.type === 'ADDED') type = now ? 'ADDED' : undefined
      else if (ev.type === 'DELETED') type = before || now ? 'DELETED' : undefined
      else type = before && now ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined
    }
    if (type) this.#push({ t: 'event', type, entry: ev.entry })
  }

  /** Queues a BOOKMARK at the current global RV (nothing while stalled or when bookmarks were not asked for). */
  bookmark(initialEventsEnd = false, rv = this.store.resourceVersion): void {
    if (this.#ended || (!initialEventsEnd && (!this.spec.bookmarks || this.faults.stalled))) return
    this.#push({ t: 'bytes', bytes: this.spec.protobuf ? podBookmarkFrame(rv, initialEventsEnd) : bookmarkLine(this.spec.resource, rv, this.spec.meta, initialEventsEnd) })
  }

  /** Queues an ERROR event and ends the body cleanly once it is written (in-stream 410). */
  fail(err: SimApiError): void {
    this.#push({ t: 'bytes', bytes: this.spec.protobuf ? errorFrame(err.toStatus()) : errorLine(err) })
    this.#endWhenFlushed = true
  }

  /** Ends the stream: a clean end of the chunked body, or the socket destroyed. */
  end(abrupt = false): void {
    if (this.#ended) return
    this.#ended = true
    // Over HTTP/2 the watch is one stream of a shared connection: reset that stream only.
    if (abrupt) isHttp2(this.res) ? (this.res as unknown as { stream: { close(code: number): void } }).stream.close(2) : this.res.socket?.destroy()
    else this.res.end()
    this.#cleanup()
  }

  /** After a stall: send what accumulated, and honour a deadline that passed meanwhile. */
  resume(): void {
    if (this.#deadlinePassed) this.end()
    else this.#schedule()
  }

  #deadline(): void {
    if (this.faults.stalled) this.#deadlinePassed = true
    else this.end()
  }

  #push(item: Item): void {
    if (this.#ended) return
    this.#queue.push(item)
    if (this.#queue.length - this.#head > MAX_QUEUE) {
      this.end()
      return
    }
    this.#schedule()
  }

  #schedule(): void {
    if (this.#scheduled || this.#waitingDrain || this.#ended) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#pump()
    })
  }

  #pump(): void {
    if (this.#ended || this.#waitingDrain || this.faults.stalled) return
    const parts: Uint8Array[] = []
    let size = 0
    const plural = this.spec.resource.plural
    const proto = this.spec.protobuf === true
    const add = (line: Uint8Array) => {
      if (this.faults.takeMalformed(plural)) line = proto ? corruptFrame(line) : corrupt(line)
      parts.push(line)
      size += line.byteLength
    }
    while (this.#head < this.#queue.length && size < BATCH_BYTES) {
      const item = this.#queue[this.#head]
      if (item.t === 'initial') {
        while (item.i < item.entries.length && size < BATCH_BYTES) add(this.#event('ADDED', item.entries[item.i++]))
        if (item.i < item.entries.length) break
      } else {
        add(item.t === 'bytes' ? item.bytes : this.#event(item.type, item.entry))
      }
      this.#head++
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head)
      this.#head = 0
    }
    const more = this.#head < this.#queue.length
    if (parts.length) {
      const batch = parts.length === 1 ? parts[0] : Buffer.concat(parts)
      const ok = this.res.write(this.spec.gzip ? gzipSync(batch) : batch)
      if (!ok) {
        this.#waitingDrain = true
        this.res.once('drain', () => {
          this.#waitingDrain = false
          this.#pump()
        })
        return
      }
    }
    if (more) this.#schedule()
    else if (this.#endWhenFlushed) this.end()
  }

  /** One event as this watch sends it: a JSON line, or a protobuf frame. */
  #event(type: 'ADDED' | 'MODIFIED' | 'DELETED', entry: Entry): Uint8Array {
    const e = this.spec.view(entry)
    return this.spec.protobuf ? podFrame(e, type) : e.watchLine(type, this.spec.meta)
  }

  #cleanup(): void {
    if (this.#cleaned) return
    this.#cleaned = true
    this.#ended = true
    for (const t of this.#timers) this.spec.clock.clearTimeout(t)
    this.#timers.length = 0
    this.#queue = []
    this.#head = 0
    this.onClose(this)
  }
}

/** A line cut in half: not valid JSON, still newline-terminated. */
function corrupt(line: Uint8Array): Uint8Array {
  const half = Math.max(1, Math.floor((line.byteLength - 1) / 2))
  return Buffer.concat([line.subarray(0, half), Buffer.from('\n')])
}

/** A frame whose WatchEvent bytes are garbage of the same length: the framing holds, the event cannot be read. */
function corruptFrame(frame: Uint8Array): Uint8Array {
  const out = Buffer.from(frame)
  out.fill(0xff, 4)
  return out
}
