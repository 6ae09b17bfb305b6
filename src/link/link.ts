// The reducer link: a connection state machine (one tagged-union state, one exhaustive step
// function) that connects, reports sessions as events and reconnects with backoff (docs/behaviour.md §7).
import type { IngestMessage, OutboundMessage } from '../ingest/index.ts'
import { logger } from '../observe/log.ts'
import { createRegistry, type Registry } from '../observe/metrics.ts'
import { createRateLimitedLog } from '../observe/rate-limit.ts'
import { createBackoff } from '../util/backoff.ts'
import { sleep, systemClock, type Clock } from '../util/clock.ts'
import { resolveLinkConfig, type LinkConfig, type LinkOptions } from './config.ts'
import { openSocket, systemLookup, type Lookup } from './connect.ts'
import { connectErrorCause } from './errors.ts'
import type { DisconnectReason, LinkEvent, LinkSession } from './events.ts'
import { createAckMeter } from './peer-silence.ts'
import { createProcNetTcpProbe, type KernelProbe } from './proc-net-tcp.ts'
import { openSession, type Session } from './session.ts'
import { createCounters, registerLinkMetrics, type LinkPhase, type LinkStats } from './stats.ts'

/**
 * Where the link is. Each variant carries only its own data; `failures` counts consecutive
 * attempts without a session that lasted `backoffResetAfterMs`.
 */
export type LinkState =
  | { readonly phase: 'idle' }
  | { readonly phase: 'connecting'; readonly failures: number }
  | { readonly phase: 'connected'; readonly failures: number; readonly session: Session; readonly since: number }
  | { readonly phase: 'backoff'; readonly failures: number; readonly delayMs: number }
  | { readonly phase: 'stopped' }

/** One transition: the next state, and what to tell the owner on the way. */
interface Step {
  readonly next: LinkState
  readonly event?: LinkEvent
}

export interface LinkDeps {
  /** Resolver, called on every attempt. Default: the OS resolver (node:dns). */
  readonly lookup?: Lookup
  /** Where the `k8s_collector_link_*` metrics go. Default: a private registry. */
  readonly registry?: Registry
  /** Clock and timers: message timestamps, ages, latency (`enqueuedAtMs` is on it too), every timeout. Default: the system's. */
  readonly clock?: Clock
  /** [0, 1) for the backoff jitter. Default `Math.random`. */
  readonly random?: () => number
  /** The kernel's view of the socket, for the silence rule. Default: /proc/net/tcp and tcp6 (Linux). */
  readonly probe?: KernelProbe
}

export interface ReducerLink {
  /**
   * Connects and reconnects until `signal` aborts or the owner stops iterating, reporting each
   * session as it starts and ends. A session's opening messages go through its `connected`
   * event's `session`. On abort the session is closed cleanly, reported `disconnected` (cause
   * `shutdown`), and the iteration ends. One run at a time; a later run starts afresh (e.g. one per
   * leadership term).
   */
  run(signal: AbortSignal): AsyncIterable<LinkEvent>
  /**
   * Queues `messages` on the current session (flushed within `flushDelayMs`). Without one they are
   * dropped and counted: the next session starts with a resync (docs/behaviour.md §7).
   * `enqueuedAtMs` (on the clock) feeds the event-to-wire latency histogram.
   * Returns whether the messages went into a session.
   */
  send(messages: readonly OutboundMessage[], enqueuedAtMs?: number): boolean
  /** Flushes the current session now (a no-op without one). */
  flush(): void
  readonly state: LinkPhase
  stats(): LinkStats
}

/** A link to the reducer at `options.host:options.port`; nothing happens before `run()`. */
export function createReducerLink(options: LinkOptions, deps: LinkDeps = {}): ReducerLink {
  const config: LinkConfig = resolveLinkConfig(options)
  const lookup = deps.lookup ?? systemLookup
  const clock = deps.clock ?? systemClock
  const log = logger.withTag('link')
  const limited = createRateLimitedLog(log, { intervalMs: 60_000, clock })
  // Reset by a session that stayed up long enough, not by time since the last failure (§7).
  const backoff = createBackoff(
    { initialMs: config.backoffInitialMs, maxMs: config.backoffMaxMs, factor: 2, resetAfterMs: Number.POSITIVE_INFINITY },
    clock.now,
    deps.random,
  )
  const counters = createCounters()
  const acks = createAckMeter(deps.probe ?? createProcNetTcpProbe(), (err) => {
    log.warn(`cannot read the kernel's view of the reducer socket (${err.message}): a silent reducer is now found only once the kernel's send buffer is full`)
  })
  let state: LinkState = { phase: 'idle' }
  let running = false

  const stats = (): LinkStats => ({
    ...counters,
    connectErrors: { ...counters.connectErrors },
    disconnects: { ...counters.disconnects },
    state: state.phase,
    connectionAgeMs: state.phase === 'connected' ? clock.now() - state.since : 0,
    bufferedBytes: state.phase === 'connected' ? state.session.bufferedBytes : 0,
    consecutiveFailures: 'failures' in state ? state.failures : 0,
  })
  const latency = registerLinkMetrics(deps.registry ?? createRegistry(), stats)
  const target = `${config.host}:${config.port}`

  function deliver(session: Session | undefined, messages: readonly OutboundMessage[], enqueuedAtMs: number | undefined): boolean {
    if (session?.send(messages, enqueuedAtMs)) return true
    counters.droppedWhileDisconnected += messages.length
    return false
  }

  const retry = (failures: number): LinkState => ({ phase: 'backoff', failures: failures + 1, delayMs: backoff.next() })

  async function connect(current: Extract<LinkState, { phase: 'connecting' }>, signal: AbortSignal): Promise<Step> {
    let opened
    try {
      opened = await openSocket({ host: config.host, port: config.port, lookup, timeoutMs: config.connectTimeoutMs, clock, signal })
    } catch (err) {
      if (signal.aborted) return { next: { phase: 'stopped' } }
      const cause = connectErrorCause(err)
      counters.connectErrors[cause]++
      const error = err instanceof Error ? err : new Error(String(err))
      limited.warn(`connect:${cause}`, `cannot reach the reducer at ${target}, retrying:`, error.message)
      return { next: retry(current.failures), event: { type: 'connectFailed', cause, error, target } }
    }
    const session = openSession(opened.socket, config, { clock, counters, latency, log: limited, acks })
    counters.connects++
    if (counters.connects > 1) counters.reconnects++
    log.info(`connected to the reducer at ${target} (${opened.address}), session ${counters.connects}`)
    const handle: LinkSession = { send: (messages, at) => deliver(session, messages, at), flush: () => session.flush() }
    return {
      next: { phase: 'connected', failures: current.failures, session, since: clock.now() },
      event: { type: 'connected', session: handle, connection: counters.connects, address: opened.address, port: config.port },
    }
  }

  /** Closes the session cleanly (the link is stopping). */
  async function shutdown(current: Extract<LinkState, { phase: 'connected' }>): Promise<DisconnectReason> {
    await current.session.shutdown()
    const uptimeMs = clock.now() - current.since
    counters.disconnects.shutdown++
    log.info(`closed the reducer connection (up ${uptimeMs} ms)`)
    return { cause: 'shutdown', uptimeMs }
  }

  async function connected(current: Extract<LinkState, { phase: 'connected' }>, signal: AbortSignal): Promise<Step> {
    let onAbort = (): void => {}
    const stop = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined)
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })
    const end = await Promise.race([current.session.ended, stop])
    signal.removeEventListener('abort', onAbort)
    if (end === undefined) return { next: { phase: 'stopped' }, event: { type: 'disconnected', reason: await shutdown(current) } }
    const uptimeMs = clock.now() - current.since
    counters.disconnects[end.cause]++
    const reason: DisconnectReason = { cause: end.cause, uptimeMs, ...(end.error ? { error: end.error } : {}) }
    log.warn(`reducer session ended after ${uptimeMs} ms (${end.cause}): ${end.error?.message ?? ''}; reconnecting`)
    if (signal.aborted) return { next: { phase: 'stopped' }, event: { type: 'disconnected', reason } }
    if (uptimeMs < config.backoffResetAfterMs) return { next: retry(current.failures), event: { type: 'disconnected', reason } }
    backoff.reset()
    return { next: retry(0), event: { type: 'disconnected', reason } }
  }

  /** One transition: performs the current phase's work and returns the next state. */
  async function step(current: LinkState, signal: AbortSignal): Promise<Step> {
    if (signal.aborted && current.phase !== 'connected') return { next: { phase: 'stopped' } }
    switch (current.phase) {
      case 'idle':
        return { next: { phase: 'connecting', failures: 0 } }
      case 'connecting':
        return connect(current, signal)
      case 'connected':
        return connected(current, signal)
      case 'backoff':
        await sleep(clock, current.delayMs, signal)
        return { next: signal.aborted ? { phase: 'stopped' } : { phase: 'connecting', failures: current.failures } }
      case 'stopped':
        return { next: current }
      default: {
        const never: never = current
        throw new Error(`unknown link state ${JSON.stringify(never)}`)
      }
    }
  }

  async function* run(signal: AbortSignal): AsyncGenerator<LinkEvent, void, undefined> {
    if (running) throw new Error('ReducerLink.run(): the link is already running')
    running = true
    state = { phase: 'idle' }
    backoff.reset()
    try {
      while (state.phase !== 'stopped') {
        const { next, event } = await step(state, signal)
        state = next
        if (event) yield event
      }
    } finally {
      // The owner stopped iterating while a session was up.
      if (state.phase === 'connected') await shutdown(state)
      state = { phase: 'stopped' }
      running = false
    }
  }

  return {
    run,
    send: (messages, enqueuedAtMs) => deliver(state.phase === 'connected' ? state.session : undefined, messages, enqueuedAtMs),
    flush() {
      if (state.phase === 'connected') state.session.flush()
    },
    get state() {
      return state.phase
    },
    stats,
  }
}
