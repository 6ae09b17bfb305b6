// A per-client TCP proxy for fault tests (issues 17 and 24): each collector reaches the simulator, the
// reducer or the tap through its own port, and the test switches that path between passing, refusing,
// black-holing and freezing connections, as networks and dead peers do.
import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * - `pass`: connections are forwarded both ways.
 * - `refuse`: the port is closed (new connections refused) and open connections are reset.
 * - `blackhole`: a network partition: new connections are accepted but get no upstream, open ones stop
 *   forwarding both ways; nothing is read, so senders' windows fill. Back to `pass`, everything flows.
 * - `freeze`: the connections open at that moment are frozen for good (kept open, nothing read or
 *   forwarded: a peer that died hard), while new connections are served normally.
 */
export type ProxyMode = 'pass' | 'refuse' | 'blackhole' | 'freeze'

/** Where connections are forwarded. */
export interface ProxyTarget {
  host?: string
  port: number
}

export interface TcpProxyOptions {
  target: ProxyTarget
  /** Listen address (default 127.0.0.1). */
  host?: string
  /** Listen port (default 0: any free one, kept across `refuse`). */
  port?: number
  /** Wall clock of the connection timestamps (default Date.now). */
  now?: () => number
}

/** One connection through the proxy. */
export interface ProxyConnectionInfo {
  readonly id: number
  /** `forwarding` (or connecting upstream), `held` (black-holed), `frozen`, `closed`. */
  readonly state: 'forwarding' | 'held' | 'frozen' | 'closed'
  readonly openedAt: number
  readonly closedAt?: number
  /** Bytes forwarded client → target and target → client. */
  readonly bytesUp: number
  readonly bytesDown: number
}

export interface ProxyStats {
  readonly opened: number
  readonly closed: number
  readonly open: number
  readonly bytesUp: number
  readonly bytesDown: number
}

export interface TcpProxy {
  readonly host: string
  readonly port: number
  readonly mode: ProxyMode
  setMode(mode: ProxyMode): Promise<void>
  /** Forwards new connections (and held ones once they resume) to another target. */
  retarget(target: ProxyTarget): void
  /** Destroys every open connection (the client gets a reset). */
  cut(): void
  readonly stats: ProxyStats
  /** Every connection so far, oldest first. */
  connections(): ProxyConnectionInfo[]
  close(): Promise<void>
}

class Connection {
  state: ProxyConnectionInfo['state'] = 'forwarding'
  closedAt?: number
  bytesUp = 0
  bytesDown = 0
  upstream?: Socket

  constructor(readonly id: number, readonly client: Socket, readonly openedAt: number) {}

  info(): ProxyConnectionInfo {
    const { id, state, openedAt, closedAt, bytesUp, bytesDown } = this
    return closedAt === undefined ? { id, state, openedAt, bytesUp, bytesDown } : { id, state, openedAt, closedAt, bytesUp, bytesDown }
  }
}

/** Starts a proxy listening on `host:port` that forwards to `target`. */
export async function startTcpProxy(opts: TcpProxyOptions): Promise<TcpProxy> {
  const host = opts.host ?? '127.0.0.1'
  const now = opts.now ?? Date.now
  let target = opts.target
  let mode: ProxyMode = 'pass'
  let port = opts.port ?? 0
  let nextId = 1
  const all: Connection[] = []
  const live = new Set<Connection>()

  /** Records the end of a connection once both its sockets are gone (or at once when `destroy`). */
  const close = (c: Connection, destroy: boolean) => {
    if (c.state === 'closed') return
    if (destroy) {
      c.client.destroy()
      c.upstream?.destroy()
    } else if (!c.client.destroyed || (c.upstream && !c.upstream.destroyed)) return
    c.state = 'closed'
    c.closedAt = now()
    live.delete(c)
  }
  /** Cuts a connection: the client gets a TCP reset. */
  const reset = (c: Connection) => {
    if (c.state === 'closed') return
    if (!c.client.destroyed) c.client.resetAndDestroy()
    close(c, true)
  }
  /** Stops reading both ways: the kernel's receive buffers fill and the senders' windows close. */
  const hold = (c: Connection, state: 'held' | 'frozen') => {
    if (c.state === 'closed') return
    c.state = state
    c.client.pause()
    c.upstream?.pause()
  }
  const forward = (c: Connection) => {
    if (c.state === 'closed' || c.state === 'frozen') return
    c.state = 'forwarding'
    if (!c.upstream) openUpstream(c)
    else {
      c.client.resume()
      c.upstream.resume()
    }
  }

  const openUpstream = (c: Connection) => {
    const up = connect({ host: target.host ?? '127.0.0.1', port: target.port, allowHalfOpen: true })
    c.upstream = up
    up.on('error', () => reset(c)) // the target refused or reset: so does the proxy
    // A clean end travels on (half-close); the connection is over when both sockets are.
    up.on('end', () => c.client.end())
    up.on('close', (hadError) => (hadError ? reset(c) : close(c, false)))
    up.on('data', (chunk: Buffer) => {
      c.bytesDown += chunk.length
      if (!c.client.write(chunk)) {
        up.pause()
        c.client.once('drain', () => c.state === 'forwarding' && up.resume())
      }
    })
    up.once('connect', () => c.state === 'forwarding' && c.client.resume())
  }

  const accept = (client: Socket) => {
    const c = new Connection(nextId++, client, now())
    all.push(c)
    live.add(c)
    client.pause() // nothing is read before there is somewhere to send it
    client.on('error', () => {}) // followed by 'close' with hadError
    client.on('end', () => c.upstream?.end())
    client.on('close', (hadError) => {
      if (hadError || !c.upstream) close(c, true)
      else close(c, false)
    })
    client.on('data', (chunk: Buffer) => {
      c.bytesUp += chunk.length
      if (!c.upstream!.write(chunk)) {
        client.pause()
        c.upstream!.once('drain', () => c.state === 'forwarding' && client.resume())
      }
    })
    if (mode === 'blackhole') hold(c, 'held')
    else openUpstream(c)
  }

  let server: Server | undefined
  const listen = async () => {
    if (server) return
    const s = createServer({ allowHalfOpen: true, pauseOnConnect: true }, accept)
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject)
      s.listen(port, host, () => {
        s.off('error', reject)
        resolve()
      })
    })
    port = (s.address() as { port: number }).port
    server = s
  }
  /** Stops listening and cuts every open connection (server.close() would wait for them). */
  const unlisten = async (cut: (c: Connection) => void) => {
    const s = server
    server = undefined
    const closed = s ? new Promise<void>((resolve) => s.close(() => resolve())) : Promise.resolve()
    for (const c of [...live]) cut(c)
    await closed
  }
  await listen()

  return {
    host,
    get port() {
      return port
    },
    get mode() {
      return mode
    },
    async setMode(next) {
      mode = next
      switch (next) {
        case 'pass':
          await listen()
          for (const c of live) if (c.state === 'held') forward(c)
          return
        case 'refuse':
          await unlisten(reset)
          return
        case 'blackhole':
          await listen()
          for (const c of live) if (c.state === 'forwarding') hold(c, 'held')
          return
        case 'freeze':
          await listen()
          for (const c of live) hold(c, 'frozen')
          return
      }
    },
    retarget(t) {
      target = t
    },
    cut() {
      for (const c of [...live]) reset(c)
    },
    get stats() {
      let bytesUp = 0
      let bytesDown = 0
      for (const c of all) {
        bytesUp += c.bytesUp
        bytesDown += c.bytesDown
      }
      return { opened: all.length, closed: all.length - live.size, open: live.size, bytesUp, bytesDown }
    },
    connections: () => all.map((c) => c.info()),
    async close() {
      await unlisten((c) => close(c, true))
    },
  }
}
