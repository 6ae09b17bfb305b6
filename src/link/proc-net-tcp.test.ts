// The /proc/net/tcp probe against real loopback sockets (IPv4, IPv6, IPv4-mapped IPv6) whose peer
// reads or does not, and against tables written by hand (byte order, missing rows, unreadable files).
import { connect, createServer, type Socket } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { waitFor } from '../../e2e/harness/wait.ts'
import { createProcNetTcpProbe, KernelProbeError } from './proc-net-tcp.ts'

async function socketTo(host: string, port: number): Promise<Socket> {
  const socket = connect({ host, port, noDelay: true })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  onTestFinished(() => void socket.destroy())
  return socket
}

/** A peer on `host` that reads nothing until `resume()`, then counts what it reads. */
async function sink(host: string): Promise<{ port: number; resume(): void; readonly received: number }> {
  const accepted: Socket[] = []
  let received = 0
  const server = createServer({ pauseOnConnect: true }, (s) => {
    accepted.push(s)
    s.on('data', (d: Buffer) => void (received += d.length))
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  onTestFinished(() => {
    for (const s of accepted) s.destroy()
    server.close()
  })
  return {
    port: (server.address() as { port: number }).port,
    resume: () => accepted.forEach((s) => s.resume()),
    get received() {
      return received
    },
  }
}

/** Writes `bytes` in 64 KiB chunks; returns how many were handed to the socket. */
function writeMany(socket: Socket, bytes: number): number {
  const chunk = new Uint8Array(64 * 1024).fill(7)
  for (let n = 0; n < bytes; n += chunk.length) socket.write(chunk)
  return Math.ceil(bytes / chunk.length) * chunk.length
}

const probe = createProcNetTcpProbe()

describe('the /proc/net/tcp probe on real sockets', () => {
  it.each([
    { family: 'IPv4', listen: '127.0.0.1', target: '127.0.0.1' },
    { family: 'IPv6', listen: '::1', target: '::1' },
    { family: 'IPv4-mapped IPv6', listen: '::', target: '::ffff:127.0.0.1' },
  ])('$family: counts what a peer that does not read has not acknowledged, and 0 once it has read everything', async ({ listen, target }) => {
    const peer = await sink(listen)
    const socket = await socketTo(target, peer.port)
    expect(probe.unacknowledged(socket)).toBe(0)
    // Far more than the peer's receive buffer holds: the rest stays in ours.
    const handed = writeMany(socket, 8 * 1024 * 1024)
    const unacked = await waitFor('the kernel to take what it can', () => {
      const n = probe.unacknowledged(socket)
      return n > 0 && socket.writableLength + n < handed ? n : undefined
    })
    const acked = handed - socket.writableLength - unacked
    // What the peer's kernel acknowledged is what it holds for the peer that does not read.
    expect(acked).toBeGreaterThan(0)
    expect(acked).toBeLessThan(handed / 2)
    peer.resume()
    await waitFor('the peer to read everything', () => peer.received === handed || undefined, { timeoutMs: 20_000 })
    await waitFor('every byte acknowledged', () => (probe.unacknowledged(socket) === 0 && socket.writableLength === 0) || undefined)
  })
})

describe('the /proc/net/tcp probe on given tables', () => {
  const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'
  const ends = (local: string, remote: string) => ({ localAddress: local, localPort: 0x9c40, remoteAddress: remote, remotePort: 8000 }) as unknown as Socket
  const table = (rows: Record<string, string>) => (path: string) => rows[path] ?? header

  it('reads the address words in the machine’s byte order', () => {
    const row = (local: string, remote: string) => `${header}   0: ${local}:9C40 ${remote}:1F40 01 0000BEEF:00000000 01:00000014 00000000     0        0 1 1 0 20 4 30 10 -1\n`
    const le = createProcNetTcpProbe({ littleEndian: true, read: table({ '/proc/net/tcp': row('0100000A', '0200000A') }) })
    expect(le.unacknowledged(ends('10.0.0.1', '10.0.0.2'))).toBe(0xbeef)
    const be = createProcNetTcpProbe({ littleEndian: false, read: table({ '/proc/net/tcp': row('0A000001', '0A000002') }) })
    expect(be.unacknowledged(ends('10.0.0.1', '10.0.0.2'))).toBe(0xbeef)
    // fe80::1 → fe80::2 (zones ignored), little-endian words; the peer's row (ports swapped) comes first.
    const v6 =
      `${header}   0: 000080FE000000000000000002000000:1F40 000080FE000000000000000001000000:9C40 01 00000010:00000000 00:00000000\n` +
      `   1: 000080FE000000000000000001000000:9C40 000080FE000000000000000002000000:1F40 01 00000011:00000000 00:00000000\n`
    const p6 = createProcNetTcpProbe({ littleEndian: true, read: table({ '/proc/net/tcp6': v6 }) })
    expect(p6.unacknowledged(ends('fe80::1%eth0', 'fe80::2%eth0'))).toBe(0x11)
  })

  it('fails with KernelProbeError when the file cannot be read or holds no row for the socket', () => {
    const unreadable = createProcNetTcpProbe({
      read: () => {
        throw new Error('Requires all access to "/proc/net/tcp", run again with the --allow-all flag')
      },
    })
    expect(() => unreadable.unacknowledged(ends('10.0.0.1', '10.0.0.2'))).toThrow(KernelProbeError)
    expect(() => unreadable.unacknowledged(ends('10.0.0.1', '10.0.0.2'))).toThrow(/cannot read \/proc\/net\/tcp: Requires all access/)
    const empty = createProcNetTcpProbe({ read: table({}) })
    expect(() => empty.unacknowledged(ends('10.0.0.1', '10.0.0.2'))).toThrow(/no row for 10.0.0.1:40000 → 10.0.0.2:8000 in \/proc\/net\/tcp or \/proc\/net\/tcp6/)
    expect(() => empty.unacknowledged({} as Socket)).toThrow(/not connected/)
  })
})
