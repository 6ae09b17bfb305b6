// Test support for the TLS matrix: a real HTTP CONNECT proxy over node:net on 127.0.0.1, as
// kubeconfig `proxy-url` names one. It tunnels to loopback targets only, or refuses every CONNECT
// with 403 (`refuse`), and records the targets asked for.
import { connect, createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

export interface ConnectProxy {
  readonly url: string
  /** `host:port` of every CONNECT, in order, with the answer given. */
  readonly connects: Array<{ target: string; status: number }>
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]', 'localhost'])

/** Reads the request head (up to the blank line) from `sock`; the bytes after it are returned too. */
function readHead(sock: Socket): Promise<{ head: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0)
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d])
      const end = buf.indexOf('\r\n\r\n')
      if (end < 0) {
        if (buf.length > 16_384) reject(new Error('request head too long'))
        return
      }
      sock.off('data', onData)
      resolve({ head: buf.subarray(0, end).toString('latin1'), rest: buf.subarray(end + 4) })
    }
    sock.on('data', onData)
    sock.once('error', reject)
  })
}

/** Starts the proxy on 127.0.0.1. */
export async function startConnectProxy(opts: { refuse?: boolean } = {}): Promise<ConnectProxy> {
  const connects: ConnectProxy['connects'] = []
  const sockets = new Set<Socket>()
  const track = (s: Socket): void => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
    s.on('error', () => {})
  }
  const server = createServer(async (client) => {
    track(client)
    let head: string
    let rest: Buffer
    try {
      ;({ head, rest } = await readHead(client))
    } catch {
      client.destroy()
      return
    }
    const [method, target = ''] = head.split('\r\n', 1)[0]!.split(' ')
    const sep = target.lastIndexOf(':')
    const host = target.slice(0, sep)
    const port = Number(target.slice(sep + 1))
    const answer = (status: number, text: string): void => {
      connects.push({ target, status })
      client.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\n\r\n`)
    }
    if (method !== 'CONNECT') return answer(405, 'Method Not Allowed')
    if (opts.refuse) return answer(403, 'Forbidden')
    if (!LOOPBACK.has(host) || !(port > 0)) return answer(403, 'Forbidden')
    const upstream = connect({ host: host.replace(/^\[|\]$/g, ''), port })
    track(upstream)
    upstream.once('connect', () => {
      connects.push({ target, status: 200 })
      client.write('HTTP/1.1 200 Connection established\r\n\r\n')
      if (rest.length > 0) upstream.write(rest)
      client.pipe(upstream)
      upstream.pipe(client)
    })
    upstream.once('error', () => {
      if (!client.destroyed && client.bytesWritten === 0) answer(502, 'Bad Gateway')
      client.destroy()
    })
    client.once('close', () => upstream.destroy())
    upstream.once('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
