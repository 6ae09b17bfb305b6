// Opening the TCP connection to the reducer: resolve on every attempt, try each address, one
// deadline for the whole attempt, TCP_NODELAY (docs/protocol.md §1.1, docs/behaviour.md §7).
import { lookup as dnsLookup } from 'node:dns/promises'
import { connect as netConnect, type Socket } from 'node:net'
import type { Clock } from '../util/clock.ts'
import { ConnectError, ConnectTimeoutError, DnsLookupError } from './errors.ts'

export interface ResolvedAddress {
  readonly address: string
  /** 4 or 6. */
  readonly family: number
}

/** Resolves a host to the addresses to try, in order (injectable; the default is the OS resolver). */
export type Lookup = (host: string) => Promise<readonly ResolvedAddress[]>

/** `getaddrinfo` through node:dns, every address in the resolver's order. */
export const systemLookup: Lookup = (host) => dnsLookup(host, { all: true })

/** The connection attempt was abandoned because the link is shutting down. */
export class ConnectAbortedError extends Error {
  override name = 'ConnectAbortedError'
}

export interface OpenSocketOptions {
  readonly host: string
  readonly port: number
  readonly lookup: Lookup
  /** Deadline for resolving and connecting, ms (on `clock`). */
  readonly timeoutMs: number
  readonly clock: Clock
  readonly signal: AbortSignal
}

/**
 * Resolves `host` and connects to its addresses in turn until one accepts. Rejects with
 * {@link DnsLookupError} (no address), {@link ConnectError} (the last address's failure),
 * {@link ConnectTimeoutError} or {@link ConnectAbortedError}; a socket left half-open is destroyed.
 */
export function openSocket(opts: OpenSocketOptions): Promise<{ socket: Socket; address: string }> {
  const target = `${opts.host}:${opts.port}`
  return new Promise((resolve, reject) => {
    let socket: Socket | undefined
    let settled = false
    const finish = (err: Error | undefined, result?: { socket: Socket; address: string }): void => {
      if (settled) return
      settled = true
      opts.clock.clearTimeout(timer)
      opts.signal.removeEventListener('abort', onAbort)
      if (err) {
        socket?.destroy()
        reject(err)
      } else {
        resolve(result!)
      }
    }
    const timer = opts.clock.setTimeout(() => finish(new ConnectTimeoutError(target, opts.timeoutMs)), opts.timeoutMs)
    const onAbort = (): void => finish(new ConnectAbortedError(`connecting to ${target} aborted`))
    if (opts.signal.aborted) return onAbort()
    opts.signal.addEventListener('abort', onAbort, { once: true })

    const tryAddress = (addresses: readonly ResolvedAddress[], i: number, lastError: unknown): void => {
      if (settled) return
      const next = addresses[i]
      if (!next) return finish(new ConnectError(target, lastError))
      const s = netConnect({ host: next.address, port: opts.port, family: next.family, noDelay: true })
      socket = s
      const onError = (err: Error): void => {
        s.destroy()
        tryAddress(addresses, i + 1, err)
      }
      s.once('error', onError)
      s.once('connect', () => {
        s.off('error', onError)
        s.setNoDelay(true)
        finish(undefined, { socket: s, address: next.address })
      })
    }

    Promise.resolve()
      .then(() => opts.lookup(opts.host))
      .then(
        (addresses) => {
          if (addresses.length === 0) finish(new DnsLookupError(opts.host, new Error('no addresses')))
          else tryAddress(addresses, 0, undefined)
        },
        (err: unknown) => finish(new DnsLookupError(opts.host, err)),
      )
  })
}
