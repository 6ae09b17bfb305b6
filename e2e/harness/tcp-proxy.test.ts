// The fault-test TCP proxy with real sockets: forwarding and counting, refused and reset connections,
// a partition that heals, frozen connections whose senders' windows close while new ones are served.
import { connect, createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts'
import { until } from './net.ts'

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

/** An echo server that also counts its connections and the bytes it read. */
async function echoServer(): Promise<{ server: Server; port: number; accepted: Socket[]; bytesRead: () => number }> {
  const accepted: Socket[] = []
  const server = createServer((s) => {
    accepted.push(s)
    s.on('error', () => {})
    s.pipe(s)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  cleanup.push(() => new Promise<void>((r) => {
    for (const s of accepted) s.destroy()
    server.close(() => r())
  }))
  return { server, port: (server.address() as { port: number }).port, accepted, bytesRead: () => accepted.reduce((n, s) => n + s.bytesRead, 0) }
}

async function proxyTo(port: number): Promise<TcpProxy> {
  const p = await startTcpProxy({ target: { port } })
  cleanup.push(() => p.close())
  return p
}

/** A client socket with everything it received collected. */
async function client(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<string> }> {
  const socket = connect({ host: '127.0.0.1', port })
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (d: string) => (text += d))
  const closed = new Promise<string>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'))
    socket.on('close', () => resolve('closed'))
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  cleanup.push(() => socket.destroy())
  return { socket, received: () => text, closed }
}

const connectResult = (port: number) => new Promise<string>((resolve) => {
  const s = connect({ host: '127.0.0.1', port })
  s.once('connect', () => {
    s.destroy()
    resolve('connected')
  })
  s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'))
})

const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('tcp proxy', () => {
  it('pass: forwards both ways and counts connections, bytes and timestamps', async () => {
    const echo = await echoServer()
    const proxy = await proxyTo(echo.port)
    const c = await client(proxy.port)
    c.socket.write('hello')
    await until(() => (c.received() === 'hello' ? true : undefined), 'the echo')
    c.socket.end()
    await c.closed
    await until(() => (proxy.stats.closed === 1 ? true : undefined), 'the connection to close')
    expect(proxy.stats).toEqual({ opened: 1, closed: 1, open: 0, bytesUp: 5, bytesDown: 5 })
    const [info] = proxy.connections()
    expect(info).toMatchObject({ id: 1, state: 'closed', bytesUp: 5, bytesDown: 5 })
    expect(info.closedAt!).toBeGreaterThanOrEqual(info.openedAt)
  })

  it('refuse: new connections refused, open ones reset; pass again serves on the same port', async () => {
    const echo = await echoServer()
    const proxy = await proxyTo(echo.port)
    const port = proxy.port
    const open = await client(port)
    await proxy.setMode('refuse')
    expect(await open.closed).toBe('ECONNRESET')
    expect(await connectResult(port)).toBe('ECONNREFUSED')
    await proxy.setMode('pass')
    expect(proxy.port).toBe(port)
    const again = await client(port)
    again.socket.write('back')
    await until(() => (again.received() === 'back' ? true : undefined), 'the echo after refuse')
  })

  it('blackhole: open and new connections forward nothing until the partition heals, then everything flows', async () => {
    const echo = await echoServer()
    const proxy = await proxyTo(echo.port)
    const before = await client(proxy.port)
    before.socket.write('a')
    await until(() => (before.received() === 'a' ? true : undefined), 'the first echo')
    await proxy.setMode('blackhole')
    before.socket.write('b')
    const during = await client(proxy.port) // accepted by the proxy…
    during.socket.write('c')
    await quiet(300)
    expect(before.received()).toBe('a') // …but nothing is forwarded or answered
    expect(during.received()).toBe('')
    expect(echo.accepted).toHaveLength(1) // no upstream connection for the new one
    expect(echo.bytesRead()).toBe(1)
    expect(proxy.connections().map((c) => c.state)).toEqual(['held', 'held'])
    await proxy.setMode('pass')
    await until(() => (before.received() === 'ab' && during.received() === 'c' ? true : undefined), 'the buffered bytes after healing')
  })

  it('freeze: a writer to a frozen connection sees its writes stop draining; new connections are served; cut() ends it', async () => {
    const echo = await echoServer()
    const proxy = await proxyTo(echo.port)
    const frozen = await client(proxy.port)
    frozen.socket.write('x')
    await until(() => (frozen.received() === 'x' ? true : undefined), 'the echo before freezing')
    await proxy.setMode('freeze')

    // Write until the socket reports backpressure, then see whether it ever drains.
    const chunk = Buffer.alloc(64 * 1024, 1)
    let written = 0
    while (frozen.socket.write(chunk)) {
      written += chunk.length
      if (written > 256 << 20) throw new Error('256 MiB written without backpressure: the proxy is reading')
      await new Promise((r) => setImmediate(r))
    }
    const upAtStall = proxy.connections()[0].bytesUp
    const drained = await Promise.race([
      new Promise<boolean>((r) => frozen.socket.once('drain', () => r(true))),
      quiet(1000).then(() => false),
    ])
    expect(drained).toBe(false)
    expect(proxy.connections()[0]).toMatchObject({ state: 'frozen', bytesUp: upAtStall }) // nothing read meanwhile
    expect(echo.bytesRead()).toBe(1) // nothing forwarded
    expect(frozen.socket.destroyed).toBe(false) // kept open

    const fresh = await client(proxy.port)
    fresh.socket.write('new')
    await until(() => (fresh.received() === 'new' ? true : undefined), 'a new connection served while another is frozen')
    await proxy.setMode('pass')
    expect(proxy.connections()[0].state).toBe('frozen') // a dead peer stays dead

    proxy.cut()
    expect(await frozen.closed).toBe('ECONNRESET')
    expect(await fresh.closed).toBe('ECONNRESET')
    expect(proxy.stats.open).toBe(0)
  })
})
