// The tap's in-memory log: a bounded ring of records numbered from 1 (oldest dropped first), paged
// by sequence number and readable live as an AsyncIterable.
import type { TapRecord } from './record.ts'

/** A page of the log, as `GET /events` returns it. */
export interface EventPage {
  /** Records with `seq > since`, oldest first, at most `limit`. */
  readonly events: TapRecord[]
  /** Pass as `since` to get the following page (the last returned seq; `since` clamped to the end of the log). */
  readonly next: number
  /** Oldest seq still held (0 when the log is empty). */
  readonly first: number
  /** Newest seq (0 when nothing was logged yet). */
  readonly last: number
  /** Records after `since` that were dropped before this read (the log is bounded). */
  readonly missed: number
}

export interface EventLog {
  /** Appends the record built for the next seq; returns it. */
  append<R extends TapRecord>(build: (seq: number) => R): R
  /** Records after `since` (the last seq the reader has seen; 0 = from the start), at most `limit`. */
  page(since: number, limit: number): EventPage
  /** Resolves when a record with `seq > since` exists, or when `signal` aborts. */
  waitAfter(since: number, signal?: AbortSignal): Promise<void>
  /** Newest seq (0 when empty). */
  readonly last: number
}

/** A log holding at most `capacity` records (≥ 1). */
export function createEventLog(capacity: number): EventLog {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`event log capacity must be a positive integer, got ${capacity}`)
  const ring: (TapRecord | undefined)[] = []
  let last = 0
  let waiters: Array<() => void> = []

  const first = (): number => (last === 0 ? 0 : Math.max(1, last - capacity + 1))

  return {
    get last() {
      return last
    },
    append(build) {
      const record = build(last + 1)
      last++
      ring[(last - 1) % capacity] = record
      if (waiters.length > 0) {
        const woken = waiters
        waiters = []
        for (const w of woken) w()
      }
      return record
    },
    page(since, limit) {
      const lo = first()
      const after = Math.max(0, Math.min(Math.floor(since), last))
      const start = Math.max(after + 1, lo === 0 ? 1 : lo)
      const end = Math.min(last, start + Math.max(0, Math.floor(limit)) - 1)
      const events: TapRecord[] = []
      for (let seq = start; seq <= end; seq++) events.push(ring[(seq - 1) % capacity]!)
      return {
        events,
        next: events.length > 0 ? end : after,
        first: lo,
        last,
        missed: lo > after + 1 ? lo - after - 1 : 0,
      }
    },
    waitAfter(since, signal) {
      if (last > since || signal?.aborted) return Promise.resolve()
      return new Promise<void>((resolve) => {
        const done = (): void => {
          signal?.removeEventListener('abort', done)
          waiters = waiters.filter((w) => w !== done)
          resolve()
        }
        waiters.push(done)
        signal?.addEventListener('abort', done, { once: true })
      })
    },
  }
}

/**
 * Every record after `since` as it is logged. Stops at once when `signal` aborts; when `finished`
 * aborts (no more records will come), yields what is left, then stops. A reader slower than the log
 * skips what was dropped meanwhile (it never holds records back from being dropped).
 */
export async function* followLog(
  log: EventLog,
  since: number,
  opts: { readonly signal?: AbortSignal; readonly finished?: AbortSignal } = {},
): AsyncGenerator<TapRecord, void, undefined> {
  const { signal, finished } = opts
  let cursor = since
  while (!signal?.aborted) {
    const page = log.page(cursor, 1024)
    for (const record of page.events) {
      yield record
      if (signal?.aborted) return
    }
    cursor = page.next
    if (page.events.length > 0) continue
    if (finished?.aborted) return
    await waitEither(log, cursor, signal, finished)
  }
}

async function waitEither(log: EventLog, since: number, a?: AbortSignal, b?: AbortSignal): Promise<void> {
  if (!b) return log.waitAfter(since, a)
  if (!a) return log.waitAfter(since, b)
  const both = new AbortController()
  const stop = (): void => both.abort()
  a.addEventListener('abort', stop, { once: true })
  b.addEventListener('abort', stop, { once: true })
  if (a.aborted || b.aborted) both.abort()
  try {
    await log.waitAfter(since, both.signal)
  } finally {
    a.removeEventListener('abort', stop)
    b.removeEventListener('abort', stop)
  }
}
