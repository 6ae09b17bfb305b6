// The kernel's view of a TCP socket, read from /proc/net/tcp and /proc/net/tcp6 (Linux): how many
// bytes its peer has not acknowledged yet (docs/dead-links.md).
import { readFileSync } from 'node:fs'
import { isIPv4, isIPv6, type Socket } from 'node:net'
import { endianness } from 'node:os'

/** The kernel's view of a socket cannot be read: not Linux, no permission, or no row for it. */
export class KernelProbeError extends Error {
  override name = 'KernelProbeError'
}

/** Reads what the kernel knows of a connected TCP socket. */
export interface KernelProbe {
  /**
   * Bytes in the kernel's send queue of `socket` that its peer has not acknowledged (`tx_queue`:
   * sent and unacknowledged, or not sent yet). Throws {@link KernelProbeError}.
   */
  unacknowledged(socket: Socket): number
}

export interface ProcNetTcpOptions {
  /** Reads a /proc file as text. Default: node:fs (works on Node; Deno needs --allow-all for /proc). */
  readonly read?: (path: string) => string
  /** How the kernel prints addresses: as 32-bit words in host order. Default: this machine's. */
  readonly littleEndian?: boolean
}

const readText = (path: string): string => readFileSync(path, 'latin1')

/** The 16 bytes of an IPv6 address (an optional `%zone` is ignored); undefined when not one. */
function ipv6Bytes(text: string): Uint8Array | undefined {
  const address = text.replace(/%.*$/, '')
  if (!isIPv6(address)) return undefined
  const out = new Uint8Array(16)
  const [head = '', tail] = address.split('::') as [string, string | undefined]
  const groups = (part: string): number[] => {
    if (part === '') return []
    const words: number[] = []
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number]
        words.push((a << 8) | b, (c << 8) | d)
      } else {
        words.push(parseInt(g, 16))
      }
    }
    return words
  }
  const front = groups(head)
  const back = tail === undefined ? [] : groups(tail)
  const words = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back]
  words.forEach((w, i) => {
    out[2 * i] = w >> 8
    out[2 * i + 1] = w & 0xff
  })
  return out
}

/** The 4 bytes of an IPv4 address, plain or IPv4-mapped IPv6 (`::ffff:a.b.c.d`); undefined otherwise. */
function ipv4Bytes(text: string): Uint8Array | undefined {
  if (isIPv4(text)) return Uint8Array.from(text.split('.').map(Number))
  const v6 = ipv6Bytes(text)
  if (!v6 || v6[10] !== 0xff || v6[11] !== 0xff || v6.subarray(0, 10).some((b) => b !== 0)) return undefined
  return v6.slice(12)
}

const hexByte = (b: number): string => b.toString(16).toUpperCase().padStart(2, '0')

/** Address bytes as the kernel prints them: each 32-bit word in host byte order, in hex. */
function kernelHex(bytes: Uint8Array, littleEndian: boolean): string {
  let out = ''
  for (let w = 0; w < bytes.length; w += 4) {
    for (let i = 0; i < 4; i++) out += hexByte(bytes[w + (littleEndian ? 3 - i : i)]!)
  }
  return out
}

const portHex = (port: number): string => port.toString(16).toUpperCase().padStart(4, '0')

/** The `local remote` columns of the socket's row, per table to search, IPv4 first. */
function rowKeys(socket: Socket, littleEndian: boolean): Array<readonly [path: string, key: string]> {
  const { localAddress, localPort, remoteAddress, remotePort } = socket
  if (!localAddress || !remoteAddress || !localPort || !remotePort) throw new KernelProbeError('the socket is not connected')
  const key = (local: Uint8Array, remote: Uint8Array): string =>
    `${kernelHex(local, littleEndian)}:${portHex(localPort)} ${kernelHex(remote, littleEndian)}:${portHex(remotePort)}`
  const keys: Array<readonly [string, string]> = []
  const local4 = ipv4Bytes(localAddress)
  const remote4 = ipv4Bytes(remoteAddress)
  // An IPv4 connection is in tcp, or in tcp6 with mapped addresses when its socket is AF_INET6.
  if (local4 && remote4) keys.push(['/proc/net/tcp', key(local4, remote4)])
  const local6 = ipv6Bytes(local4 ? `::ffff:${local4.join('.')}` : localAddress)
  const remote6 = ipv6Bytes(remote4 ? `::ffff:${remote4.join('.')}` : remoteAddress)
  if (local6 && remote6) keys.push(['/proc/net/tcp6', key(local6, remote6)])
  if (keys.length === 0) throw new KernelProbeError(`cannot read the addresses ${localAddress} and ${remoteAddress}`)
  return keys
}

/**
 * A probe reading `/proc/net/tcp` and `/proc/net/tcp6` of the process's network namespace. A row
 * is `sl local remote st tx_queue:rx_queue …` with addresses and queues in hex; the socket's row is
 * the one with its local and remote address and port.
 */
export function createProcNetTcpProbe(options: ProcNetTcpOptions = {}): KernelProbe {
  const read = options.read ?? readText
  const littleEndian = options.littleEndian ?? endianness() === 'LE'
  return {
    unacknowledged(socket) {
      const keys = rowKeys(socket, littleEndian)
      for (const [path, key] of keys) {
        let text: string
        try {
          text = read(path)
        } catch (err) {
          throw new KernelProbeError(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
        }
        // `local remote st tx:rx`: single spaces between the columns.
        const at = text.indexOf(` ${key} `)
        if (at < 0) continue
        const queues = text.slice(at + key.length + 5, at + key.length + 22)
        const tx = /^([0-9A-Fa-f]{8}):[0-9A-Fa-f]{8}$/.exec(queues)
        if (!tx) throw new KernelProbeError(`cannot parse the row of ${socket.localAddress}:${socket.localPort} in ${path}`)
        return parseInt(tx[1]!, 16)
      }
      const where = keys.map(([path]) => path).join(' or ')
      throw new KernelProbeError(`no row for ${socket.localAddress}:${socket.localPort} → ${socket.remoteAddress}:${socket.remotePort} in ${where}`)
    },
  }
}
