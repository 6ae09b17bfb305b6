// What ends a request besides its own end: the idle timeout, the caller's abort signal, close().
// Both transports (node:http(s) in client.ts, fetch in fetch-transport.ts) take one per request.
import type { KubeRequestOptions } from './transport.ts'
import { KubeAbortedError, KubeIdleTimeoutError, type KubeError } from './errors.ts'
import { startWatchdog } from './watchdog.ts'
import { systemClock } from '../util/clock.ts'

/** One request's closing: the first reason wins, later reads report it. */
export interface RequestGuard {
  /** Records `reason` (if first) and destroys the request. */
  close(reason: KubeError): void
  /** Why the request was closed, if it was. */
  closedBy(): KubeError | undefined
  /** Call on every byte received: the idle timeout counts from the last kick. */
  kick(): void
  /** Stops the idle timer and lets go of the signal (the request is over). */
  cleanup(): void
}

/** Guards a request: `destroy` tears its connection down when the idle timeout fires, `signal` aborts or `close()` is called. */
export function guardRequest(opts: KubeRequestOptions, destroy: () => void): RequestGuard {
  let closedBy: KubeError | undefined
  const close = (reason: KubeError): void => {
    closedBy ??= reason
    destroy()
  }
  const dog = startWatchdog(opts.clock ?? systemClock, opts.idleTimeoutMs, (silentMs) =>
    close(new KubeIdleTimeoutError(`${opts.what ?? 'request'} torn down (peer_silent): the API server sent nothing for ${(silentMs / 1000).toFixed(1)} s`)),
  )
  const onAbort = (): void => close(new KubeAbortedError('aborted'))
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  return {
    close,
    closedBy: () => closedBy,
    kick: () => dog.kick(),
    cleanup() {
      dog.stop()
      opts.signal?.removeEventListener('abort', onAbort)
    },
  }
}
