// The order in which a watch hands out its lines (docs/behaviour.md §14, "Large lines"): a line
// far larger than an ordinary object is held apart and converted when the input has nothing else
// waiting, so that ordinary pods behind a burst of huge objects do not wait for their conversion.
// Order is kept where it matters: a later event of a held object's uid is held behind it, and any
// other line (a bookmark, an error) waits until every held line is through.
import type { Clock } from '../util/clock.ts'
import type { WatchItem } from './watch-item.ts'

/** When a line is held, and for how long. */
export interface FairOrderLimits {
  /** A line of at least this many bytes is held. */
  readonly largeBytes: number
  /** Held lines' bytes in all; past it, the oldest is converted before anything else is read. */
  readonly heldBytes: number
  /** A line held this long takes its turn with ordinary lines even while input is waiting. */
  readonly maxWaitMs: number
}

/** The defaults: ordinary pods are 2–10 KiB; the API server admits objects up to ~1.5 MiB. */
export const FAIR_ORDER_LIMITS: FairOrderLimits = { largeBytes: 64 * 1024, heldBytes: 16 * 1024 * 1024, maxWaitMs: 1000 }

/** How the lines of one watch body become items. */
export interface LineReader<T> {
  /** Converts the line `buf[start, end)` (throws as the watch's conversion does). */
  item(buf: Uint8Array, start: number, end: number): WatchItem<T>
  /** The uid `item` will give an ADDED, MODIFIED or DELETED line (duplicated keys read as `item` reads them), without converting it; undefined when it cannot be read (the line is then converted at once). */
  eventUid(buf: Uint8Array, start: number, end: number): string | undefined
  /** The uid of a converted object. */
  uidOf(object: T): string
}

/** Counts kept across the watch connections of one stream. */
export interface FairOrderStats {
  /** Lines held for their size. */
  heldLines: number
}

/** One entry of the held queue, in stream order: a large line, or an item converted but held for order. */
interface Held<T> {
  readonly line: Uint8Array | undefined
  readonly item: WatchItem<T> | undefined
  readonly uid: string | undefined
  readonly at: number
  /** The resource version of the last line handed out after this one and before the next held one. */
  rvAfter: string
}

/**
 * The held queue of one watch connection. The caller offers each framed line; when the input has
 * nothing waiting (or {@link due} says so) it calls {@link serve} for the oldest held one.
 *
 * Handing lines out of order would let a resumed watch skip a held one, so every item carries as
 * its `resourceVersion` the resume point: the version of the newest line such that every line
 * before it has been handed out ('' while there is none yet; the watcher keeps its own then).
 */
export class FairOrder<T> {
  private readonly held: Held<T>[] = []
  private head = 0
  private bytes = 0
  /** Held entries by uid (a later event of one of these uids is held too). */
  private readonly uids = new Map<string, number>()
  /** Held entries that are not events (they need every line before them through). */
  private barriers = 0
  private mark = ''
  /** The last item handed out was a held one (the age rule then lets an ordinary line go first). */
  private servedLast = false

  constructor(
    private readonly reader: LineReader<T>,
    private readonly clock: Clock,
    private readonly limits: FairOrderLimits = FAIR_ORDER_LIMITS,
    private readonly stats: FairOrderStats = { heldLines: 0 },
  ) {}

  /** Whether a line is held. */
  get holding(): boolean {
    return this.head < this.held.length
  }

  /**
   * Whether the oldest held line must be served before the next line is read: the held bytes are
   * over their bound, a barrier waits behind it, or it has waited `maxWaitMs` (then held and
   * ordinary lines take turns).
   */
  get due(): boolean {
    if (!this.holding) return false
    if (this.bytes > this.limits.heldBytes || this.barriers > 0) return true
    return !this.servedLast && this.clock.now() - this.held[this.head]!.at >= this.limits.maxWaitMs
  }

  /** A framed line: its item to hand out now, or undefined when it is held. */
  offer(buf: Uint8Array, start: number, end: number): WatchItem<T> | undefined {
    if (end - start >= this.limits.largeBytes) {
      const uid = this.reader.eventUid(buf, start, end)
      if (uid !== undefined) {
        this.stats.heldLines++
        this.hold(buf.slice(start, end), undefined, uid)
        return undefined
      }
    }
    const item = this.reader.item(buf, start, end)
    if (!this.holding) {
      this.mark = rvOf(item) || this.mark
      this.servedLast = false
      return item
    }
    if (item.type === 'BOOKMARK' || item.type === 'ERROR') {
      this.barriers++
      this.hold(undefined, item, undefined)
      return undefined
    }
    const uid = item.object !== undefined ? this.reader.uidOf(item.object) : undefined
    if (uid !== undefined && this.uids.has(uid)) {
      this.hold(undefined, item, uid)
      return undefined
    }
    // Out of order: the resume point stays before the held lines; it moves past this one once they are through.
    const last = this.held[this.held.length - 1]!
    last.rvAfter = rvOf(item) || last.rvAfter
    return this.handOut(item)
  }

  /** The oldest held line's item (converted now). Throws as the conversion does; the held lines after it are then dropped with the connection. */
  serve(): WatchItem<T> {
    const h = this.held[this.head]!
    this.held[this.head++] = undefined as unknown as Held<T> // let its bytes go
    if (this.head === this.held.length) {
      this.held.length = 0
      this.head = 0
    }
    if (h.line !== undefined) this.bytes -= h.line.length
    if (h.uid !== undefined) {
      const n = this.uids.get(h.uid)!
      if (n === 1) this.uids.delete(h.uid)
      else this.uids.set(h.uid, n - 1)
    }
    const converted = h.item ?? this.reader.item(h.line!, 0, h.line!.length)
    if (h.item !== undefined && (converted.type === 'BOOKMARK' || converted.type === 'ERROR')) this.barriers--
    // An event carries when it was read: the collector's latency counts the hold.
    const item = converted.type === 'BOOKMARK' || converted.type === 'ERROR' ? converted : { ...converted, receivedAt: h.at }
    this.mark = h.rvAfter || rvOf(item) || this.mark
    const out = this.holding || h.rvAfter ? this.handOut(item) : item // in stream order again: as it came
    this.servedLast = true
    return out
  }

  private hold(line: Uint8Array | undefined, item: WatchItem<T> | undefined, uid: string | undefined): void {
    this.held.push({ line, item, uid, at: this.clock.now(), rvAfter: '' })
    if (line !== undefined) this.bytes += line.length
    if (uid !== undefined) this.uids.set(uid, (this.uids.get(uid) ?? 0) + 1)
  }

  /** `item`, handed out of stream order, with the resume point as its `resourceVersion`. */
  private handOut(item: WatchItem<T>): WatchItem<T> {
    this.servedLast = false
    if (item.type === 'ERROR' || item.resourceVersion === this.mark) return item
    return { ...item, resourceVersion: this.mark }
  }
}

function rvOf(item: WatchItem<unknown>): string {
  return item.type === 'ERROR' ? '' : item.resourceVersion
}
