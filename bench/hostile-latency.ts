// The latency of ordinary pods while hostile ones arrive (issue 22 item 4), modelled in process as
// the collector works: pods arrive at virtual times as lines of one watch, one thread takes them in
// the order the watch hands them out (src/kube/fair-order.ts: a large line is held while others
// are waiting, docs/behaviour.md §14) — or, to compare, strictly as they came — decodes them with
// the scanner and matches them (CPU measured), and their messages go through the link's own outbox
// (src/link/outbox.ts: its flush rule, encoder and LZ4) on a clock that runs on that CPU time. A
// pod's latency is when the flush carrying its bytes happens, minus its arrival.
import type { Socket } from 'node:net'
import { EventUidReader } from '../src/kube/event-uid.ts'
import { FairOrder, type LineReader } from '../src/kube/fair-order.ts'
import { createPodScanner } from '../src/kube/pod-scanner.ts'
import type { WatchItem } from '../src/kube/watch.ts'
import { resolveLinkConfig } from '../src/link/config.ts'
import { createOutbox } from '../src/link/outbox.ts'
import { createCounters } from '../src/link/stats.ts'
import { createModelContext, type PodMeta } from '../src/model/index.ts'
import { createRateLimitedLog } from '../src/observe/rate-limit.ts'
import type { Clock, TimerHandle } from '../src/util/clock.ts'
import { connectedCore, cpuUs } from './hostile-path.ts'

/** A watch line arriving `atMs` after the first; `ordinary`: one whose latency is measured. */
export interface Arrival {
  readonly atMs: number
  readonly line: Uint8Array
  readonly ordinary: boolean
}

/** Latencies of the ordinary pods, ms, in arrival order. */
export interface Latencies {
  /** Arrival to the flush that hands its bytes to the socket (what the reducer sees). */
  readonly toWire: number[]
  /** Arrival to the end of its own handling (the handler's CPU queue alone, no link). */
  readonly handled: number[]
}

/** A {@link Clock} of one thread that is never preempted: it runs on the process's CPU time and skips the time it idles. */
interface CpuClock extends Clock {
  /** Idles until `ms`: each timer due by then runs at its time. */
  idleUntil(ms: number): void
  /** Runs the timers due now (as the event loop does between two reads). */
  runDue(): void
}

interface Timer {
  readonly id: number
  readonly at: number
  readonly fn: () => void
}

function createCpuClock(): CpuClock {
  const cpu0 = cpuUs()
  let skipped = 0 // ms idled, jumped over
  let nextId = 1
  const timers: Timer[] = []
  const now = (): number => skipped + (cpuUs() - cpu0) / 1000
  /** Removes and returns the earliest timer due by `ms`. */
  const due = (ms: number): Timer | undefined => {
    let at = -1
    for (let i = 0; i < timers.length; i++) if (timers[i]!.at <= ms && (at < 0 || timers[i]!.at < timers[at]!.at)) at = i
    return at < 0 ? undefined : timers.splice(at, 1)[0]
  }
  const idleTo = (ms: number): void => {
    const t = now()
    if (ms > t) skipped += ms - t
  }
  return {
    now,
    setTimeout(fn, ms) {
      const id = nextId++
      timers.push({ id, at: now() + Math.max(0, ms), fn })
      return { __timer: id } as TimerHandle
    },
    clearTimeout(timer) {
      const i = timer ? timers.findIndex((t) => t.id === timer.__timer) : -1
      if (i >= 0) timers.splice(i, 1)
    },
    idleUntil(ms) {
      for (let t = due(ms); t !== undefined; t = due(ms)) {
        idleTo(t.at)
        t.fn()
      }
      idleTo(ms)
    },
    runDue() {
      for (let t = due(now()); t !== undefined; t = due(now())) t.fn()
    },
  }
}

const quiet = { error() {}, warn() {}, info() {}, debug() {} }

/**
 * Handles `arrivals` as the collector does: as one watch's lines, in the order its held queue hands
 * them out (`fair`; else strictly as they came), through one connected core and the link's outbox
 * with its default flush rule (docs/behaviour.md §7) into a socket the reducer empties at once.
 * Returns the ordinary pods' latencies.
 */
export function ordinaryLatencies(arrivals: readonly Arrival[], fair = true): Latencies {
  const model = createModelContext()
  const core = connectedCore(model)
  const scanner = createPodScanner(model)
  const uids = new EventUidReader()
  const reader: LineReader<PodMeta> = {
    item(buf, start, end) {
      const l = scanner.watchLine(buf, start, end)
      return { type: l.type as 'ADDED' | 'MODIFIED', object: l.object, resourceVersion: l.resourceVersion }
    },
    eventUid: (buf, start, end) => uids.read(buf, start, end),
    uidOf: (pod) => pod.uid,
  }
  const clock = createCpuClock()
  const order = new FairOrder(reader, clock, fair ? undefined : { largeBytes: Infinity, heldBytes: 0, maxWaitMs: 0 })
  const toWire: number[] = []
  const handled: number[] = []
  const config = resolveLinkConfig({ host: 'reducer', port: 7000, hostname: 'collector' })
  const socket = { writableLength: 0, write: () => true, on() {}, off() {} } as unknown as Socket
  const latency = { observe: (s: number) => void toWire.push(s * 1000), count: 0, sum: 0 }
  const outbox = createOutbox(socket, config, { clock, counters: createCounters(), latency, log: createRateLimitedLog(quiet) })
  /** Matches and sends an item; `arrivedAt` stamps an ordinary pod, so the outbox's latency observations are theirs alone. */
  const handle = (item: WatchItem<PodMeta>, arrivedAt: number | undefined): void => {
    if (item.type !== 'ADDED' && item.type !== 'MODIFIED') throw new Error(`unexpected ${item.type}`)
    outbox.send(core.pods({ type: 'apply', object: item.object! }, 0), arrivedAt)
    if (arrivedAt !== undefined) handled.push(clock.now() - arrivedAt)
    clock.runDue()
  }
  const start = clock.now()
  let next = 0
  for (;;) {
    if (order.due) handle(order.serve(), undefined)
    else if (next < arrivals.length && start + arrivals[next]!.atMs <= clock.now()) {
      // Input waiting: the next line is read.
      const a = arrivals[next++]!
      const item = order.offer(a.line, 0, a.line.length)
      if (item !== undefined) handle(item, a.ordinary ? start + a.atMs : undefined)
      else if (a.ordinary) throw new Error('an ordinary pod was held') // the model stamps only lines handed out at once
    } else if (order.holding) handle(order.serve(), undefined) // nothing waiting: a held line
    else if (next < arrivals.length) clock.idleUntil(start + arrivals[next]!.atMs)
    else break
  }
  clock.idleUntil(clock.now() + config.flushDelayMs)
  outbox.close()
  if (toWire.length !== handled.length) throw new Error(`${handled.length} ordinary pods handled, ${toWire.length} flushed`)
  return { toWire, handled }
}
