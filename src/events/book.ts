// The series rules (docs/events.md "Series"), learnt from client-go's tools/events with our numbers:
// isomorphic Events within a window are one object whose series counts them, a series is written
// at most once per interval, and the writes waiting are bounded, the oldest dropped first.
// Pure: time is passed in, nothing is written here.
import type { EventSpec } from './types.ts'

/** The book's numbers; docs/events.md gives the defaults and why. */
export interface BookLimits {
  /** An Event isomorphic to one last observed within this long joins its series, ms (client-go: 6 min). */
  readonly isomorphicWindowMs: number
  /** A series is written at most this often while it keeps growing, ms (client-go: 30 min). */
  readonly seriesIntervalMs: number
  /** Objects waiting for a write at most; one more drops the oldest. */
  readonly maxPending: number
  /** Objects remembered for isomorphism at most (pending ones included); the least recently observed go first. */
  readonly maxEntries: number
}

/** One Event object as the book knows it. */
export interface Tracked {
  readonly spec: EventSpec
  /** `metadata.name`, chosen when first observed. */
  readonly name: string
  /** The first observation: the object's `eventTime`, ms. */
  readonly firstAt: number
  /** Observations so far; 1 = a single Event, from 2 on a series. */
  readonly count: number
  /** The last observation: the series' `lastObservedTime`, ms. */
  readonly lastAt: number
  /** The object exists on the API server. */
  readonly created: boolean
}

/** A write to make: the object as it stands now (create it, or update its series). */
export interface Write {
  readonly entry: Tracked
  /** The object does not exist yet: create it (else update its series). */
  readonly create: boolean
  readonly count: number
  readonly lastAt: number
}

/** How a write ended. */
export type WriteOutcome = 'written' | 'dropped'

interface Entry extends Tracked {
  readonly key: string
  count: number
  lastAt: number
  created: boolean
  /** The count as last written (0 before the create). */
  written: number
  lastWriteAt: number
  /** Since when a write is owed; undefined when none is. */
  pendingSince: number | undefined
}

/** The Events recorded and the writes they owe. */
export interface EventBook {
  /**
   * Notes one Event at `now`: a new object, or one more in the series of an isomorphic one. Returns
   * the objects whose write was dropped to keep at most `maxPending` waiting (the oldest first).
   */
  observe(spec: EventSpec, now: number): Tracked[]
  /**
   * The write due first at `now`, if any is due; it is in flight until {@link done}. `final` makes
   * every pending write due at once (shutdown), not waiting for the series interval.
   */
  next(now: number, final?: boolean): Write | undefined
  /** When the next write falls due (ms); undefined when none is pending. */
  nextDueAt(): number | undefined
  /**
   * Ends the write in flight: written (the object now holds `write`'s state) or dropped. Returns
   * what {@link observe} returns: an object observed again meanwhile owes another write.
   */
  done(write: Write, outcome: WriteOutcome, now: number): Tracked[]
  /** Puts the write in flight back among the pending ones (it was interrupted); returns what {@link observe} returns. */
  defer(write: Write, now: number): Tracked[]
  /** Drops every pending write (events turned off); returns how many. */
  clear(): number
  /** Writes owed now, the one in flight included. */
  readonly pending: number
}

/**
 * Creates an empty book. `nameFor` picks a new object's `metadata.name` (unique per object: the
 * API server refuses a second create of a name).
 */
export function createEventBook(limits: BookLimits, nameFor: (spec: EventSpec, now: number) => string): EventBook {
  // Map order is observation order (re-inserted on each): the least recently observed come first.
  const entries = new Map<string, Entry>()
  // Insertion order is the order writes became owed: the oldest come first.
  const pending = new Set<Entry>()
  let inFlight: Entry | undefined

  const busy = (e: Entry): boolean => e.pendingSince !== undefined || e === inFlight

  function owe(e: Entry, now: number, dropped: Tracked[]): void {
    if (e === inFlight || e.pendingSince !== undefined) return
    e.pendingSince = now
    pending.add(e)
    while (pending.size > limits.maxPending) {
      const oldest = pending.values().next().value!
      unpend(oldest)
      if (!oldest.created) entries.delete(oldest.key)
      dropped.push(oldest)
    }
  }

  function unpend(e: Entry): void {
    pending.delete(e)
    e.pendingSince = undefined
  }

  /** Forgets objects not observed within the window (unless a write is owed) and keeps within maxEntries. */
  function prune(now: number): void {
    for (const e of entries.values()) {
      if (now - e.lastAt <= limits.isomorphicWindowMs) break
      if (!busy(e)) entries.delete(e.key)
    }
    if (entries.size < limits.maxEntries) return
    for (const e of entries.values()) {
      if (busy(e)) continue
      entries.delete(e.key)
      if (entries.size < limits.maxEntries) return
    }
  }

  const dueAt = (e: Entry, final: boolean): number =>
    !e.created || final ? e.pendingSince! : Math.max(e.pendingSince!, e.lastWriteAt + limits.seriesIntervalMs)

  function first(final: boolean): Entry | undefined {
    let best: Entry | undefined
    for (const e of pending) if (!best || dueAt(e, final) < dueAt(best, final)) best = e
    return best
  }

  return {
    observe(spec, now) {
      const key = keyOf(spec)
      const dropped: Tracked[] = []
      const known = entries.get(key)
      if (known && (busy(known) || now - known.lastAt <= limits.isomorphicWindowMs)) {
        known.count++
        known.lastAt = Math.max(known.lastAt, now)
        entries.delete(key)
        entries.set(key, known)
        owe(known, now, dropped)
        return dropped
      }
      if (known) entries.delete(key)
      prune(now)
      const e: Entry = { spec, key, name: nameFor(spec, now), firstAt: now, count: 1, lastAt: now, created: false, written: 0, lastWriteAt: -Infinity, pendingSince: undefined }
      entries.set(key, e)
      owe(e, now, dropped)
      return dropped
    },
    next(now, final = false) {
      if (inFlight) return undefined
      const e = first(final)
      if (!e || dueAt(e, final) > now) return undefined
      unpend(e)
      inFlight = e
      return { entry: e, create: !e.created, count: e.count, lastAt: e.lastAt }
    },
    nextDueAt() {
      const e = first(false)
      return e && dueAt(e, false)
    },
    done(write, outcome, now) {
      const e = write.entry as Entry
      if (e !== inFlight) throw new Error('EventBook.done: not the write in flight')
      inFlight = undefined
      const dropped: Tracked[] = []
      if (outcome === 'written') {
        e.created = true
        e.written = write.count
        e.lastWriteAt = now
        // Observed again while the write was on its way: the series owes another write.
        if (e.count > e.written) owe(e, now, dropped)
      } else if (!e.created) {
        entries.delete(e.key)
      }
      return dropped
    },
    defer(write, now) {
      if (write.entry !== inFlight) throw new Error('EventBook.defer: not the write in flight')
      inFlight = undefined
      const dropped: Tracked[] = []
      owe(write.entry as Entry, now, dropped)
      return dropped
    },
    clear() {
      const n = pending.size
      for (const e of [...pending]) {
        unpend(e)
        if (!e.created) entries.delete(e.key)
      }
      return n
    },
    get pending() {
      return pending.size + (inFlight ? 1 : 0)
    },
  }
}

/** Isomorphism: the same regarding object, type, reason, action and note. */
function keyOf(s: EventSpec): string {
  const r = s.regarding
  return [r.apiVersion, r.kind, r.namespace, r.name, r.uid ?? '', s.type, s.reason, s.action, s.note].join('\u0000')
}
