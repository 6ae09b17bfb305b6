// The reducer link: a connection state machine (one tagged-union state, one exhaustive step
// function) that connects, hands sessions to its owner and reconnects with backoff (docs/behaviour.md §7).
import type { IngestMessage } from '../ingest/index.ts'
import { logger } from '../observe/log.ts'
import { createRegistry, type Registry } from '../observe/metrics.ts'
import { createRateLimitedLog } from '../observe/rate-limit.ts'
import { backoffDelay, sleep } from './backoff.ts'
import { resolveLinkConfig, type DisconnectReason, type LinkConfig, type LinkOptions } from './config.ts'
import { openSocket, systemLookup, type Lookup } from './connect.ts'
import { connectErrorCause } from './errors.ts'
import { Session } from './session.ts'
import { createCounters, registerLinkMetrics, type LinkPhase, type LinkStats } from './stats.ts'

/**
 * Where the link is. Each variant carries only its own data; `failures` counts consecutive
 * attempts without a session that lasted `backoffResetAfterMs` (it sizes the next backoff).
 */
export type LinkState =
  | { readonly phase: 'idle' }
  | { readonly phase: 'connecting'; readonly failures: number }
  | { readonly phase: 'connected'; readonly failures: number; readonly session: Session; readonly since: number }
  | { readonly phase: 'backoff'; readonly failures: number; readonly delayMs: number }
  | { readonly phase: 'stopped' }

export interface LinkDeps {
  /** Resolver, called on every attempt. Default: the OS resolver (node:dns). */
  readonly lookup?: Lookup
  /** Where the `k8s_collector_link_*` metrics go. Default: a private registry. */
  readonly registry?: Registry
  /** Wall clock, ms: message timestamps, ages, latency (`enqueuedAtMs` uses it too). Default `Date.now`. */
  readonly now?: () => number
  /** [0, 1) for the backoff jitter. Default `Math.random`. */
  readonly random?: () => number
}

export interface ReducerLink {
  /** Connects and reconnects until `signal` aborts, then closes cleanly and resolves. Call once. */
  run(signal: AbortSignal): Promise<void>
  /**
   * Encodes `messages` into the current session (flushed within `flushDelayMs`). Without a session
   * they are dropped and counted: the next session starts with a resync (docs/behaviour.md §7).
   * `enqueuedAtMs` (on the `now` clock) feeds the event-to-wire latency histogram.
   * Returns whether the messages went into a session.
   */
  send(messages: readonly IngestMessage[], enqueuedAtMs?: number): boolean
  /** Flushes the current session now (a no-op without one). */
  flush(): void
  readonly state: LinkPhase
  stats(): LinkStats
}

/** A link to the reducer at `options.host:options.port`; nothing happens before `run()`. */
export function createReducerLink(options: LinkOptions, deps: LinkDeps = {}): ReducerLink {
  const config: LinkConfig = resolveLinkConfig(options)
  const lookup = deps.lookup ?? systemLookup
  const now = deps.now ?? Date.now
  const random = deps.random ?? Math.random
  const log = logger.withTag('link')
  const limited = createRateLimitedLog(log, { intervalMs: 60_000, now })
  const counters = createCounters()
  let state: LinkState = { phase: 'idle' }
  let running = false

  const stats = (): LinkStats => ({
    ...counters,
    connectErrors: { ...counters.connectErrors },
    disconnects: { ...counters.disconnects },
    state: state.phase,
    connectionAgeMs: state.phase === 'connected' ? now() - state.since : 0,
    bufferedBytes: state.phase === 'connected' ? state.session.bufferedBytes : 0,
    consecutiveFailures: 'failures' in state ? state.failures : 0,
  })
  const latency = registerLinkMetrics(deps.registry ?? createRegistry(), stats)
  const target = `${config.host}:${config.port}`

  const backoff = (failures: number): LinkState => ({
    phase: 'backoff',
    failures: failures + 1,
    delayMs: backoffDelay(failures, { initialMs: config.backoffInitialMs, maxMs: config.backoffMaxMs }, random),
  })

  function callOwner(what: string, f: () => void): void {
    try {
      f()
    } catch (err) {
      log.error(`${what} callback failed:`, err)
    }
  }

  async function connect(current: Extract<LinkState, { phase: 'connecting' }>, signal: AbortSignal): Promise<LinkState> {
    let opened
    try {
      opened = await openSocket({ host: config.host, port: config.port, lookup, timeoutMs: config.connectTimeoutMs, signal })
    } catch (err) {
      if (signal.aborted) return { phase: 'stopped' }
      const cause = connectErrorCause(err)
      counters.connectErrors[cause]++
      limited.warn(`connect:${cause}`, `cannot reach the reducer at ${target}, retrying:`, err instanceof Error ? err.message : err)
      return backoff(current.failures)
    }
    const session = new Session(opened.socket, config, { counters, now, latency, log: limited })
    counters.connects++
    if (counters.connects > 1) counters.reconnects++
    // The state is `connected` before the handshake and onSession, so that the owner's `send`
    // from inside onSession lands in this session, after the handshake.
    const next: LinkState = { phase: 'connected', failures: current.failures, session, since: now() }
    state = next
    session.start()
    log.info(`connected to the reducer at ${target} (${opened.address}), session ${counters.connects}`)
    callOwner('onSession', () => config.onSession({ connection: counters.connects, address: opened.address, port: config.port }))
    return next
  }

  async function connected(current: Extract<LinkState, { phase: 'connected' }>, signal: AbortSignal): Promise<LinkState> {
    let onAbort = (): void => {}
    const stop = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined)
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })
    const end = await Promise.race([current.session.ended, stop])
    signal.removeEventListener('abort', onAbort)
    const uptimeMs = now() - current.since
    if (end === undefined) {
      await current.session.shutdown()
      counters.disconnects.shutdown++
      log.info(`closed the reducer connection (up ${uptimeMs} ms)`)
      callOwner('onDisconnect', () => config.onDisconnect({ cause: 'shutdown', uptimeMs }))
      return { phase: 'stopped' }
    }
    counters.disconnects[end.cause]++
    const reason: DisconnectReason = { cause: end.cause, uptimeMs, ...(end.error ? { error: end.error } : {}) }
    log.warn(`reducer session ended after ${uptimeMs} ms (${end.cause}): ${end.error?.message ?? ''}; reconnecting`)
    callOwner('onDisconnect', () => config.onDisconnect(reason))
    if (signal.aborted) return { phase: 'stopped' }
    return backoff(uptimeMs >= config.backoffResetAfterMs ? 0 : current.failures)
  }

  /** One transition: performs the current phase's work and returns the next state. */
  async function step(current: LinkState, signal: AbortSignal): Promise<LinkState> {
    if (signal.aborted && current.phase !== 'connected') return { phase: 'stopped' }
    switch (current.phase) {
      case 'idle':
        return { phase: 'connecting', failures: 0 }
      case 'connecting':
        return connect(current, signal)
      case 'connected':
        return connected(current, signal)
      case 'backoff':
        await sleep(current.delayMs, signal)
        return signal.aborted ? { phase: 'stopped' } : { phase: 'connecting', failures: current.failures }
      case 'stopped':
        return current
      default: {
        const never: never = current
        throw new Error(`unknown link state ${JSON.stringify(never)}`)
      }
    }
  }

  return {
    async run(signal) {
      if (running || state.phase !== 'idle') throw new Error('ReducerLink.run() can only be called once')
      running = true
      try {
        while (state.phase !== 'stopped') state = await step(state, signal)
      } finally {
        if (state.phase === 'connected') await state.session.shutdown()
        state = { phase: 'stopped' }
        running = false
      }
    },
    send(messages, enqueuedAtMs) {
      if (state.phase === 'connected' && state.session.send(messages, enqueuedAtMs)) return true
      counters.droppedWhileDisconnected += messages.length
      return false
    },
    flush() {
      if (state.phase === 'connected') state.session.flush()
    },
    get state() {
      return state.phase
    },
    stats,
  }
}
