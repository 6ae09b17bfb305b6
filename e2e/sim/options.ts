// Resolves SimOptions to a complete configuration: every default lives here (sim-api.md).
import { systemClock } from '../../src/util/clock.ts'
import type { SimOptions } from './types.ts'

/** SimOptions with every default applied. */
export type SimConfig = Required<Omit<SimOptions, 'token' | 'stateDir'>> & { token: string; stateDir: string }

/** Applies the defaults; throws RangeError on values the simulator cannot honour. */
export function resolveOptions(opts: SimOptions = {}): SimConfig {
  const podStartDelayMs = opts.podStartDelayMs ?? 50
  const config: SimConfig = {
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
    nodes: opts.nodes ?? 3,
    watchList: opts.watchList ?? true,
    protobuf: opts.protobuf ?? true,
    historyWindow: opts.historyWindow ?? 1000,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
    continueTtlMs: opts.continueTtlMs ?? 300_000,
    controllers: opts.controllers ?? true,
    podStartDelayMs,
    auth: opts.auth ?? 'cert',
    podStopDelayMs: opts.podStopDelayMs ?? podStartDelayMs,
    jobRunMs: opts.jobRunMs ?? 1000,
    cronIntervalMs: opts.cronIntervalMs ?? 0,
    token: opts.token ?? randomToken(),
    stateDir: opts.stateDir ?? '',
    freshPki: opts.freshPki ?? false,
    freshState: opts.freshState ?? false,
    http1Only: opts.http1Only ?? false,
    clock: opts.clock ?? systemClock,
  }
  // node i gets 10.244.i.0/24 and 172.18.0.(i+1): i must fit an octet with room for the host IP.
  if (!Number.isInteger(config.nodes) || config.nodes < 1 || config.nodes > 253) {
    throw new RangeError(`nodes must be an integer in [1, 253], got ${config.nodes}`)
  }
  if (!(config.historyWindow >= 1)) throw new RangeError(`historyWindow must be ≥ 1, got ${config.historyWindow}`)
  if (config.auth !== 'cert' && config.auth !== 'token') throw new RangeError(`auth must be cert or token, got ${config.auth}`)
  return config
}

/** A new bearer token. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  return 'sim-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}
