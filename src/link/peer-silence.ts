// Finding a silent reducer (docs/behaviour.md §7, docs/dead-links.md): the bytes it acknowledged,
// measured at every heartbeat, and the rule that ends a session whose count stopped moving.
import type { Socket } from 'node:net'
import { KernelProbeError, type KernelProbe } from './proc-net-tcp.ts'

/** Where the bytes handed to the socket are, at one moment. */
export interface AckSample {
  /** Bytes the reducer acknowledged: handed − in the socket − in the kernel. */
  readonly acked: number
  /** Bytes in the socket's user-space buffer (node:net's `writableLength`). */
  readonly inSocket: number
  /** Bytes in the kernel's send queue the reducer has not acknowledged; 0 under the socket-level rule. */
  readonly inKernel: number
  /** Whether `inKernel` came from the kernel, or the socket-level rule stands in for it. */
  readonly source: 'kernel' | 'socket'
}

export interface AckMeter {
  /** Measures `socket`, to which `handedBytes` bytes have been written so far. */
  sample(socket: Socket, handedBytes: number): AckSample
}

/**
 * Measures with `probe` while it works. Once it fails (not Linux, /proc unreadable), `unavailable`
 * is told once and the meter stays on the socket-level rule, which counts what the kernel took as
 * acknowledged: it finds a reducer that stopped reading only once the kernel's buffer is full.
 */
export function createAckMeter(probe: KernelProbe, unavailable: (error: KernelProbeError) => void): AckMeter {
  let kernel = true
  return {
    sample(socket, handedBytes) {
      const inSocket = socket.writableLength
      if (kernel) {
        try {
          const inKernel = probe.unacknowledged(socket)
          return { acked: handedBytes - inSocket - inKernel, inSocket, inKernel, source: 'kernel' }
        } catch (err) {
          if (!(err instanceof KernelProbeError)) throw err
          kernel = false
          unavailable(err)
        }
      }
      return { acked: handedBytes - inSocket, inSocket, inKernel: 0, source: 'socket' }
    },
  }
}

/** A session whose reducer has been silent for the limit. */
export interface Silence {
  /** Time since acknowledged progress last moved, ms. */
  readonly silentMs: number
  readonly sample: AckSample
}

export interface SilenceRule {
  /**
   * Whether a sample is due at `nowMs`: always while bytes waited at the last one, else once a
   * quarter of the limit has passed since it (reading the kernel's view costs milliseconds of CPU;
   * docs/dead-links.md). Spaced samples delay finding a silence by that quarter at most.
   */
  due(nowMs: number): boolean
  /** Takes the sample measured at `nowMs`; returns the silence once it has lasted the limit. */
  observe(sample: AckSample, nowMs: number): Silence | undefined
}

/**
 * The rule: silent is a session whose acknowledged bytes have not moved for `limitMs` while bytes
 * wait to be acknowledged, timed from the last sample that saw them move or nothing waiting. A
 * reducer that reads, however slowly, moves them; nothing waiting (an idle link whose heartbeats
 * were acknowledged) is never silence.
 */
export function createSilenceRule(limitMs: number): SilenceRule {
  let acked = -1
  let since = 0
  let sampledAt = Number.NEGATIVE_INFINITY
  let waiting = false
  return {
    due: (nowMs) => waiting || nowMs - sampledAt >= limitMs / 4,
    observe(sample, nowMs) {
      sampledAt = nowMs
      waiting = sample.inSocket + sample.inKernel > 0
      if (sample.acked !== acked || !waiting) {
        acked = sample.acked
        since = nowMs
        return undefined
      }
      const silentMs = nowMs - since
      return silentMs >= limitMs ? { silentMs, sample } : undefined
    },
  }
}
