// The reducer stand-in of the cluster sections: a TCP sink that reads the collector's stream as
// the reducer does (version_info raw, then LZ4 frames, docs/protocol.md §1) with the project's frame
// reader, walks the messages and reports the pod messages (type, uid, container id). It keeps no
// other state, so it drains far faster than the collector produces: the full tap (src/tap, ~7 MB/s
// of wire on this machine) would be the bottleneck of a 150k-pod snapshot (35 MB), and the
// collector drops a connection with more than 16 MiB waiting (docs/behaviour.md §7).
import { createServer, type Server, type Socket } from 'node:net'
import { createLz4FrameReader, messageSize } from '../../src/ingest/index.ts'
import { TIMESTAMP_BYTES } from '../../src/ingest/layout.ts'

const POD_NEW = 515
const POD_CONTAINER = 494
const POD_DELETE = 359

export type PodMessageType = 'pod_new_with_name' | 'pod_container' | 'pod_delete'

export interface SinkMessage {
  readonly connection: number
  readonly type: PodMessageType
  readonly uid: string
  /** pod_container only. */
  readonly containerId?: string
}

export interface Sink {
  readonly port: number
  /** Connections accepted so far (a reconnect of the collector shows here). */
  readonly connections: number
  /** Messages of any type decoded so far. */
  readonly messages: number
  /** Bytes received on every connection (the wire, LZ4 frames included). */
  readonly wireBytes: number
  /** The same bytes decompressed (the raw message stream, version_info included). */
  readonly rawBytes: number
  close(): Promise<void>
}

/** Starts the sink on 127.0.0.1; `onPod` gets every pod message as soon as it is decoded. */
export async function startSink(onPod: (m: SinkMessage) => void, onError: (err: Error) => void): Promise<Sink> {
  const sockets = new Set<Socket>()
  let connections = 0
  let messages = 0
  let wireBytes = 0
  let rawBytes = 0
  const server: Server = createServer((socket) => {
    const connection = ++connections
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let preamble = true
    let head = Buffer.alloc(0)
    const frames = createLz4FrameReader()
    let pending: Uint8Array = new Uint8Array(0)
    const latin1 = (b: Uint8Array, at: number, n: number): string => Buffer.from(b.buffer, b.byteOffset + at, n).toString('latin1')
    const walk = (chunk: Uint8Array): void => {
      let bytes = chunk
      if (pending.length > 0) {
        bytes = new Uint8Array(pending.length + chunk.length)
        bytes.set(pending)
        bytes.set(chunk, pending.length)
      }
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      let at = 0
      for (;;) {
        const size = messageSize(bytes, at)
        if (size === undefined || bytes.length - at < size) break
        messages++
        const h = at + TIMESTAMP_BYTES
        const rpc = view.getUint16(h, true)
        if (rpc === POD_NEW) {
          onPod({ connection, type: 'pod_new_with_name', uid: latin1(bytes, h + 20, view.getUint16(h + 8, true)) })
        } else if (rpc === POD_CONTAINER) {
          const uidLen = view.getUint16(h + 4, true)
          onPod({ connection, type: 'pod_container', uid: latin1(bytes, h + 10, uidLen), containerId: latin1(bytes, h + 10 + uidLen, view.getUint16(h + 6, true)) })
        } else if (rpc === POD_DELETE) {
          onPod({ connection, type: 'pod_delete', uid: latin1(bytes, h + 4, size - TIMESTAMP_BYTES - 4) })
        }
        at += size
      }
      pending = at === bytes.length ? new Uint8Array(0) : bytes.slice(at)
    }
    socket.on('data', (d: Buffer) => {
      wireBytes += d.length
      try {
        let data: Uint8Array = d
        if (preamble) {
          // version_info (24 bytes) is the one uncompressed message.
          head = Buffer.concat([head, d])
          const size = messageSize(head, 0)
          if (size === undefined || head.length < size) return
          messages++
          rawBytes += size
          preamble = false
          data = head.subarray(size)
        }
        for (const out of frames.push(data)) {
          rawBytes += out.length
          walk(out)
        }
      } catch (err) {
        socket.destroy()
        onError(err instanceof Error ? err : new Error(String(err)))
      }
    })
    socket.on('error', () => socket.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    get connections() {
      return connections
    },
    get messages() {
      return messages
    },
    get wireBytes() {
      return wireBytes
    },
    get rawBytes() {
      return rawBytes
    },
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
