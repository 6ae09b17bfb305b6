// Per-resource event history: a ring of the last N events, from which watches resume (docs/kube-api.md WATCH).
import type { Entry } from './entry.ts'

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED'

/** One committed change; its watch line is cached on `entry`, shared by every watcher. */
export interface StoreEvent {
  readonly type: EventType
  readonly rv: number
  readonly entry: Entry
  /** The previous version (MODIFIED/DELETED), for selector transitions. */
  readonly prev?: Entry
}

/** The last `capacity` events of one resource; resuming from before `startRv` is "too old". */
export class History {
  #ring: StoreEvent[] = []
  #head = 0
  /** Every event with rv > startRv is retained. */
  startRv: number

  constructor(readonly capacity: number, startRv: number) {
    this.startRv = startRv
  }

  get size(): number {
    return this.#ring.length
  }

  push(ev: StoreEvent): void {
    if (this.#ring.length < this.capacity) {
      this.#ring.push(ev)
      return
    }
    this.startRv = this.#ring[this.#head].rv
    this.#ring[this.#head] = ev
    this.#head = (this.#head + 1) % this.capacity
  }

  /** Events with rv > `rv` in order, or undefined when `rv` is older than the window. */
  since(rv: number): StoreEvent[] | undefined {
    if (rv < this.startRv) return undefined
    const n = this.#ring.length
    const at = (i: number) => this.#ring[(this.#head + i) % n]
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (at(mid).rv <= rv) lo = mid + 1
      else hi = mid
    }
    const out: StoreEvent[] = []
    for (let i = lo; i < n; i++) out.push(at(i))
    return out
  }

  /** Forgets everything: only changes after `rv` will be resumable. */
  reset(rv: number): void {
    this.#ring = []
    this.#head = 0
    this.startRv = rv
  }
}
