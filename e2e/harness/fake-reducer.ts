// Test helper: a minimal real TCP reducer that reads version_info raw (24 bytes), then decodes the
// rest through the LZ4 frame reader and the message decoder, recording everything per connection.
import { createServer, type Socket } from 'node:net'
import { createLz4FrameReader, createMessageDecoder, type TimedMessage } from '../../src/ingest/index.ts'
import { concatBytes } from '../../src/bytes.ts'

export interface FakeConnection {
  readonly index: number
  readonly socket: Socket
  /** Every byte received, in order. */
  readonly raw: Uint8Array[]
  /** The raw first 24 bytes, once received. */
  versionInfoBytes: Uint8Array | undefined
  /** version_info first, then the decoded LZ4 messages. */
  readonly messages: TimedMessage[]
  /** A decoding failure (the real reducer would close the connection). */
  error: Error | undefined
  /** Set when the collector's side ended (FIN or reset). */
  closed: boolean
  readonly closedPromise: Promise<void>
  /** Resolves once `pred(messages)` holds (checked on every chunk); rejects after `timeoutMs`. */
  waitFor(pred: (messages: readonly TimedMessage[]) => boolean, timeoutMs?: number, what?: string): Promise<void>
  /** Total bytes received. */
  readonly received: number
}

export interface FakeReducer {
  readonly port: number
  readonly connections: FakeConnection[]
  /** The connection with this index (0-based) once it is accepted. */
  connection(index: number, timeoutMs?: number): Promise<FakeConnection>
  close(): Promise<void>
}

export interface FakeReducerOptions {
  /** Whether to read connection `index` at all (false: a stuck reducer whose buffers fill up). */
  readonly reads?: (index: number) => boolean
  readonly host?: string
}

const concat = (chunks: readonly Uint8Array[]): Uint8Array => concatBytes(chunks)

export async function startFakeReducer(opts: FakeReducerOptions = {}): Promise<FakeReducer> {
  const connections: FakeConnection[] = []
  const waiters: Array<() => void> = []
  const server = createServer({ pauseOnConnect: true }, (socket) => {
    const index = connections.length
    const frames = createLz4FrameReader()
    const decoder = createMessageDecoder()
    const head = createMessageDecoder()
    const listeners = new Set<() => void>()
    let received = 0
    let resolveClosed!: () => void
    const conn: FakeConnection = {
      index,
      socket,
      raw: [],
      versionInfoBytes: undefined,
      messages: [],
      error: undefined,
      closed: false,
      closedPromise: new Promise((r) => (resolveClosed = r)),
      get received() {
        return received
      },
      waitFor(pred, timeoutMs = 5_000, what = 'condition') {
        return new Promise((resolve, reject) => {
          const check = (): void => {
            if (conn.error) return finish(conn.error)
            if (pred(conn.messages)) return finish()
          }
          const finish = (err?: Error): void => {
            clearTimeout(timer)
            listeners.delete(check)
            if (err) reject(err)
            else resolve()
          }
          const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what} on connection ${index}`)), timeoutMs)
          listeners.add(check)
          check()
        })
      },
    }
    connections.push(conn)
    socket.on('data', (chunk: Buffer) => {
      const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length)
      conn.raw.push(bytes.slice())
      received += bytes.length
      try {
        let rest = bytes
        if (!conn.versionInfoBytes) {
          const have = received - bytes.length
          const take = Math.min(24 - have, bytes.length)
          conn.messages.push(...head.push(bytes.subarray(0, take)))
          if (have + take === 24) conn.versionInfoBytes = concat(conn.raw).subarray(0, 24)
          rest = bytes.subarray(take)
        }
        for (const block of frames.push(rest)) conn.messages.push(...decoder.push(block))
      } catch (err) {
        conn.error = err as Error
        socket.destroy()
      }
      for (const l of [...listeners]) l()
    })
    const onClose = (): void => {
      conn.closed = true
      resolveClosed()
      for (const l of [...listeners]) l()
    }
    socket.on('end', onClose)
    socket.on('close', onClose)
    socket.on('error', () => {})
    if (opts.reads?.(index) ?? true) socket.resume()
    for (const w of waiters.splice(0)) w()
  })
  await new Promise<void>((resolve) => server.listen(0, opts.host ?? '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    port,
    connections,
    connection(index, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no connection ${index} within ${timeoutMs} ms`)), timeoutMs)
        const check = (): void => {
          const c = connections[index]
          if (c) {
            clearTimeout(timer)
            resolve(c)
          } else {
            waiters.push(check)
          }
        }
        check()
      })
    },
    close() {
      for (const c of connections) c.socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

/** The message types of `messages`, for compact assertions. */
export function types(messages: readonly TimedMessage[]): string[] {
  return messages.map((m) => m.type)
}
