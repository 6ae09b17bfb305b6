// Test fixtures of the link and collector suites (not part of the public surface): a reducer link
// run on a fake clock with its events recorded and awaitable, a fake reducer, both closed after the
// test, and a scripted kernel probe that plays the reducer's acknowledgements.
import type { Socket } from 'node:net'
import { onTestFinished } from 'vitest'
import type { IngestMessage } from '../../src/ingest/index.ts'
import { createReducerLink, type KernelProbe, type LinkDeps, type LinkEvent, type LinkOptions, type ReducerLink } from '../../src/link/index.ts'
import { createFakeClock, type FakeClock } from './fake-clock.ts'
import { startFakeReducer, type FakeReducer, type FakeReducerOptions } from './fake-reducer.ts'

export interface RunningLink extends ReducerLink {
  readonly clock: FakeClock
  /** Every event reported so far, in order. */
  readonly events: readonly LinkEvent[]
  /** Event `index` (0-based), once reported; fails after `timeoutMs` of real time. */
  event(index: number, timeoutMs?: number): Promise<LinkEvent>
  /** Aborts the run and waits for it to end. */
  stop(): Promise<void>
}

/**
 * Runs a link on a fake clock (a new one unless `deps.clock` is given) and iterates its events as
 * its owner would, handing each to `onEvent` first; stopped when the test ends.
 */
export function runLink(
  options: LinkOptions,
  onEvent: (ev: LinkEvent) => void = () => {},
  deps: Omit<LinkDeps, 'clock'> & { readonly clock?: FakeClock } = {},
): RunningLink {
  const clock = deps.clock ?? createFakeClock()
  const link = createReducerLink(options, { ...deps, clock })
  const events: LinkEvent[] = []
  const waiters = new Set<() => void>()
  const ac = new AbortController()
  const done = (async () => {
    for await (const ev of link.run(ac.signal)) {
      events.push(ev)
      onEvent(ev)
      for (const w of [...waiters]) w()
    }
  })()
  const stop = async (): Promise<void> => {
    ac.abort()
    await done
  }
  onTestFinished(stop)
  return Object.assign(link, {
    clock,
    events,
    stop,
    event(index: number, timeoutMs = 5_000): Promise<LinkEvent> {
      return new Promise<LinkEvent>((resolve, reject) => {
        const check = (): void => {
          const ev = events[index]
          if (!ev) return
          finish()
          resolve(ev)
        }
        const finish = (): void => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        const timer = setTimeout(() => {
          finish()
          reject(new Error(`no link event #${index} within ${timeoutMs} ms (seen: ${events.map((e) => e.type).join(', ') || 'none'})`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
  })
}

/** A fake reducer closed when the test ends. */
export async function fakeReducer(opts?: FakeReducerOptions): Promise<FakeReducer> {
  const r = await startFakeReducer(opts)
  onTestFinished(() => r.close())
  return r
}

/** ~20 KB of base64 noise: LZ4 cannot shrink it, so the socket really has that much to write. */
export function noisyContainer(i: number): IngestMessage {
  const bytes = crypto.getRandomValues(new Uint8Array(15_000))
  return { type: 'pod_container', uid: `u${i}`, containerId: `containerd://${i}`, containerName: 'c', containerImage: Buffer.from(bytes).toString('base64') }
}

/** How the scripted reducer acknowledges, from one sample to the next. */
export type AckScript =
  /** Everything the kernel took, at once (a live peer on a fast network). */
  | { readonly kind: 'prompt' }
  /** Everything the kernel took before the previous sample: a live peer, a whole heartbeat late. */
  | { readonly kind: 'late' }
  /** Nothing more (a dead host, a closed receive window). */
  | { readonly kind: 'frozen' }
  /** At most `bytesPerSample` more per sample (a reducer that reads slowly). */
  | { readonly kind: 'slow'; readonly bytesPerSample: number }

export interface ScriptedProbe extends KernelProbe {
  /** How the peer acknowledges from now on. */
  script: AckScript
  /** Samples taken so far. */
  readonly samples: number
}

/**
 * A kernel probe whose peer acknowledges as `script` says (changed at any time): it reports as
 * unacknowledged what the socket's kernel took (`bytesWritten − writableLength`) minus what the
 * script acknowledged so far.
 */
export function scriptedProbe(initial: AckScript = { kind: 'prompt' }): ScriptedProbe {
  const peers = new Map<Socket, { acked: number; takenBefore: number }>()
  const taken = (socket: Socket): number => socket.bytesWritten - socket.writableLength
  let script = initial
  let samples = 0
  return {
    get script() {
      return script
    },
    set script(next) {
      // A prompt peer acknowledged everything up to this moment, sampled or not.
      if (script.kind === 'prompt') for (const [socket, peer] of peers) peer.acked = taken(socket)
      script = next
    },
    get samples() {
      return samples
    },
    unacknowledged(socket) {
      samples++
      const now = taken(socket)
      const peer = peers.get(socket) ?? { acked: 0, takenBefore: 0 }
      if (script.kind === 'prompt') peer.acked = now
      else if (script.kind === 'late') peer.acked = Math.max(peer.acked, peer.takenBefore)
      else if (script.kind === 'slow') peer.acked = Math.min(now, peer.acked + script.bytesPerSample)
      peer.takenBefore = now
      peers.set(socket, peer)
      return now - peer.acked
    },
  }
}
