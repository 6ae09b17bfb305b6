// Test helpers of the tap's socket suites (not part of the public surface): a raw TCP collector,
// polling until a condition holds, JSON over real HTTP.
import { connect, type Socket } from 'node:net'
import { waitFor } from './wait.ts'

/** A plain TCP client that records when the server closes it. */
export interface RawClient {
  readonly socket: Socket
  /** The client's own port: the tap's `remote` ends with it. */
  readonly localPort: number
  /** Resolves when the server has closed the connection. */
  readonly closed: Promise<void>
  write(bytes: Uint8Array): Promise<void>
  destroy(): void
}

export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect({ host: '127.0.0.1', port, noDelay: true })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  socket.on('error', () => {}) // a reset after the tap closes us is expected
  socket.resume()
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  return {
    socket,
    localPort: socket.localPort!,
    closed,
    write: (bytes) => new Promise<void>((resolve, reject) => socket.write(bytes, (err) => (err ? reject(err) : resolve()))),
    destroy: () => socket.destroy(),
  }
}

/** {@link waitFor} in the tap suites' argument order, probing every few ms (they are to call waitFor). */
export function until<T>(probe: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  return waitFor(what, probe, { timeoutMs, intervalMs: 4 })
}

/** GET `path` from the tap's HTTP API: status and parsed JSON body. */
export async function getJson(port: number, path: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, init)
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}
