// The reducer-compatible TCP listener: one session per collector connection, closed on the
// reducer's rules (docs/protocol.md §1.4) including 30 s of silence.
import { createServer, type Server, type Socket } from 'node:net'
import type { CloseReason } from './close-reason.ts'
import type { ConnectionState } from './connection-state.ts'
import type { TapHub } from './hub.ts'
import { createTapSession } from './session.ts'

export interface TcpListenerOptions {
  readonly host: string
  readonly port: number
  /** Close a connection after this long without a byte (docs/protocol.md §1.4: 30 s). */
  readonly silenceTimeoutMs: number
  readonly hub: TapHub
  /** Told about every close (for logging). */
  readonly onClose?: (conn: ConnectionState, reason: CloseReason) => void
  readonly onOpen?: (conn: ConnectionState) => void
}

export interface TcpListener {
  /** The bound port. */
  readonly port: number
  /** Stops accepting and closes every open connection with reason `shutdown`. */
  close(): Promise<void>
}

function remoteOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '?'
  return `${address.includes(':') ? `[${address}]` : address}:${socket.remotePort ?? 0}`
}

/** Starts listening; resolves once bound (rejects on EADDRINUSE and the like). */
export async function listenTcp(opts: TcpListenerOptions): Promise<TcpListener> {
  const sockets = new Map<Socket, ConnectionState>()
  const finish = new Map<Socket, (reason: CloseReason) => void>()

  const server: Server = createServer({ allowHalfOpen: false }, (socket) => {
    const conn = opts.hub.open(remoteOf(socket))
    const session = createTapSession()
    sockets.set(socket, conn)
    let timer: ReturnType<typeof setTimeout> | undefined

    const end = (reason: CloseReason, destroy: boolean): void => {
      if (conn.closeReason) return
      if (timer) clearTimeout(timer)
      sockets.delete(socket)
      finish.delete(socket)
      opts.hub.close(conn, reason)
      opts.onClose?.(conn, reason)
      if (destroy) socket.destroy()
    }
    finish.set(socket, (reason) => end(reason, true))

    // Silence (docs/protocol.md §1.4): one timer per connection, re-armed lazily from the time of the
    // last byte instead of on every chunk.
    const arm = (delay: number): void => {
      timer = setTimeout(() => {
        const idle = Date.now() - conn.lastDataAtMs
        if (idle >= opts.silenceTimeoutMs) end({ kind: 'silence', timeoutMs: opts.silenceTimeoutMs }, true)
        else arm(opts.silenceTimeoutMs - idle)
      }, delay)
      timer.unref?.()
    }
    arm(opts.silenceTimeoutMs)

    socket.on('data', (chunk: Uint8Array) => {
      if (conn.closeReason) return
      conn.lastDataAtMs = Date.now()
      conn.counters.bytesReceived += chunk.length
      const out = session.push(chunk)
      conn.counters.bytesCompressed = session.compressedBytes
      opts.hub.receive(conn, out.messages)
      if (out.close) end(out.close, true)
    })
    socket.on('end', () => end(session.end(), true))
    socket.on('error', (err: NodeJS.ErrnoException) => end({ kind: 'socketError', detail: err.code ?? err.message }, true))
    socket.on('close', () => end(session.end(), false))
    opts.onOpen?.(conn)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: opts.host, port: opts.port }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  server.on('error', () => {}) // after binding, errors are per connection (reported there)
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : opts.port

  return {
    port,
    async close() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const f of [...finish.values()]) f({ kind: 'shutdown' })
      await closing
    },
  }
}
