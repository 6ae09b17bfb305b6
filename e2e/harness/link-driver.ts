// A program running the reducer link alone on the runtime that runs it (Node through tsx, or Deno),
// for e2e/collector/dead-reducer.test.ts: its events as JSON lines on stdout, its log (JSON) on
// stderr; a line "change" on stdin sends one ~4 KB change that LZ4 cannot shrink.
// usage: link-driver.ts '{"port":8000,"busy":false,"peerSilentMs":10000,"heartbeatIntervalMs":2000}'
import process from 'node:process'
import { createInterface } from 'node:readline'
import type { IngestMessage } from '../../src/ingest/index.ts'
import { createReducerLink, type LinkSession } from '../../src/link/index.ts'
import { configureLogger } from '../../src/observe/log.ts'
import { podNew } from './tap-fixtures.ts'

interface DriverOptions {
  readonly port: number
  /** 50 pod changes a second besides the heartbeats. */
  readonly busy: boolean
  readonly peerSilentMs: number
  readonly heartbeatIntervalMs: number
}

/** One line of the driver's stdout. */
export type DriverLine =
  | { readonly type: 'connected'; readonly connection: number; readonly at: number }
  | { readonly type: 'disconnected'; readonly cause: string; readonly message: string; readonly at: number }

const opts = JSON.parse(process.argv[2] ?? '{}') as DriverOptions
configureLogger({ level: 'info', format: 'json' })

const pod = (i: number): IngestMessage => podNew(`uid-${i}`, 'default', `web-${i}`, 0x0a000000 + (i % 0xffffff), { kind: 1, uid: 'd1', name: 'web' }, "'nginx:1.25'")

const link = createReducerLink({
  host: '127.0.0.1',
  port: opts.port,
  hostname: 'link-driver',
  peerSilentMs: opts.peerSilentMs,
  heartbeatIntervalMs: opts.heartbeatIntervalMs,
})
let session: LinkSession | undefined
let changes = 0
if (opts.busy) setInterval(() => session?.send([pod(changes++)]), 20)
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line !== 'change') return
  const image = Buffer.from(crypto.getRandomValues(new Uint8Array(3_000))).toString('base64')
  session?.send([{ type: 'pod_container', uid: `uid-${changes++}`, containerId: 'containerd://big', containerName: 'c', containerImage: image }])
})

const out = (line: DriverLine): void => void process.stdout.write(`${JSON.stringify(line)}\n`)
const stop = new AbortController()
process.on('SIGTERM', () => stop.abort())
for await (const ev of link.run(stop.signal)) {
  if (ev.type === 'connected') {
    session = ev.session
    session.send([{ type: 'pod_resync', resyncCount: BigInt(ev.connection) }])
    out({ type: 'connected', connection: ev.connection, at: Date.now() })
  } else if (ev.type === 'disconnected') {
    session = undefined
    out({ type: 'disconnected', cause: ev.reason.cause, message: ev.reason.error?.message ?? '', at: Date.now() })
  }
}
process.exit(0)
