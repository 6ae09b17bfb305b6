// The bounded event log: numbering, paging, dropping the oldest, waiting, following live.
import { describe, expect, it } from 'vitest'
import { createEventLog, followLog } from './event-log.ts'
import { openRecord, type TapRecord } from './record.ts'

const fill = (capacity: number, n: number) => {
  const log = createEventLog(capacity)
  for (let i = 0; i < n; i++) log.append((seq) => openRecord(seq, i + 1, `10.0.0.1:${i}`, 0))
  return log
}
const seqs = (records: readonly TapRecord[]): number[] => records.map((r) => r.seq)

describe('createEventLog', () => {
  it('numbers records from 1 and pages after `since`', () => {
    const log = fill(100, 10)
    expect(log.last).toBe(10)
    expect(log.page(0, 4)).toMatchObject({ next: 4, first: 1, last: 10, missed: 0 })
    expect(seqs(log.page(0, 4).events)).toEqual([1, 2, 3, 4])
    expect(seqs(log.page(4, 100).events)).toEqual([5, 6, 7, 8, 9, 10])
    expect(log.page(10, 100)).toEqual({ events: [], next: 10, first: 1, last: 10, missed: 0 })
  })

  it('drops the oldest records past its capacity and says how many a reader missed', () => {
    const log = fill(5, 12)
    const page = log.page(0, 100)
    expect(seqs(page.events)).toEqual([8, 9, 10, 11, 12])
    expect(page).toMatchObject({ first: 8, last: 12, missed: 7, next: 12 })
    expect(log.page(9, 1)).toMatchObject({ missed: 0, next: 10 })
  })

  it('clamps a `since` beyond the end (a reader of a previous run) so it sees new records', () => {
    const log = fill(5, 3)
    const page = log.page(1000, 10)
    expect(page).toMatchObject({ events: [], next: 3 })
    log.append((seq) => openRecord(seq, 9, 'x', 0))
    expect(seqs(log.page(page.next, 10).events)).toEqual([4])
  })

  it('rejects a capacity below 1', () => {
    expect(() => createEventLog(0)).toThrow(RangeError)
  })

  it('wakes waiters on append, and on abort', async () => {
    const log = fill(5, 1)
    await log.waitAfter(0) // already there: resolves at once
    const woken = log.waitAfter(1)
    log.append((seq) => openRecord(seq, 2, 'x', 0))
    await woken
    const ac = new AbortController()
    const aborted = log.waitAfter(2, ac.signal)
    ac.abort()
    await aborted
  })
})

describe('followLog', () => {
  it('yields what is held, then live records, and stops on abort', async () => {
    const log = fill(100, 2)
    const ac = new AbortController()
    const got: number[] = []
    const reading = (async () => {
      for await (const r of followLog(log, 0, { signal: ac.signal })) {
        got.push(r.seq)
        if (r.seq === 4) ac.abort()
      }
    })()
    await new Promise((r) => setTimeout(r, 5))
    log.append((seq) => openRecord(seq, 3, 'x', 0))
    log.append((seq) => openRecord(seq, 4, 'x', 0))
    log.append((seq) => openRecord(seq, 5, 'x', 0))
    await reading
    expect(got).toEqual([1, 2, 3, 4])
  })

  it('drains what is left when the log is finished', async () => {
    const log = fill(100, 3)
    const finished = new AbortController()
    finished.abort()
    const got: number[] = []
    for await (const r of followLog(log, 1, { finished: finished.signal })) got.push(r.seq)
    expect(got).toEqual([2, 3])
  })
})
