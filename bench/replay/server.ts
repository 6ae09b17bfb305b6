// The replay API server: serves a rendered ReplayCluster over plain HTTP — paginated LISTs
// (`limit`/`continue`, or the whole list without `limit`), 422 for streaming lists (so every
// client takes the same LIST path), and watches that stay open and receive churn events pushed by
// the benchmark (each event's send time recorded for latency).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { pageBody, pageOfToken, PODS_PATH, type ChurnEvent, type ReplayCluster } from './cluster.ts'

export interface ReplayServer {
  readonly port: number
  readonly url: string
  /** Open pod watches (churn goes to all of them). */
  podWatchers(): number
  /** Sets the bytes served at GET /bench/watch (churn watch lines, for the ceiling child). */
  setWatchSample(lines: readonly Buffer[]): void
  /** Resolves once at least `n` pod watches are open. */
  waitPodWatchers(n: number, timeoutMs: number): Promise<void>
  /** Ends every open pod watch with an in-stream 410 (`ERROR` Expired): its client must relist. */
  expirePodWatches(): void
  /**
   * Writes `events` to every open pod watch at `rate` events/s (in 10 ms ticks). `onSent` gets each
   * event's uid and the Date.now() after its write. Resolves with the achieved send rate and how
   * long writes were held up by a full socket (the client not reading).
   */
  stream(events: readonly ChurnEvent[], rate: number, onSent: (uid: string, at: number) => void): Promise<{ sentPerS: number; blockedMs: number }>
  /** Requests served, by kind, and the bytes of the LIST pages served. */
  readonly requests: { list: number; watch: number; rejected: number; listBytes: number }
  close(): Promise<void>
}

/** Starts the server on 127.0.0.1 (ephemeral port). */
export async function startReplayServer(cluster: ReplayCluster): Promise<ReplayServer> {
  const watches = new Set<ServerResponse>()
  const requests = { list: 0, watch: 0, rejected: 0, listBytes: 0 }
  let waiters: Array<() => void> = []
  let watchSample = Buffer.alloc(0)

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/bench/watch') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': watchSample.length }).end(watchSample)
      return
    }
    // A client that does not ask for metadata only (Accept: …;as=PartialObjectMetadataList…) gets
    // full owners, as from a real server.
    const partial = /as=PartialObjectMetadata/.test(req.headers.accept ?? '')
    const pages = (partial ? undefined : cluster.fullOwnerLists.get(url.pathname)) ?? cluster.lists.get(url.pathname)
    if (!pages) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}')
      return
    }
    const q = url.searchParams
    if (q.get('watch') === '1' || q.get('watch') === 'true') {
      if (q.get('sendInitialEvents') === 'true') {
        requests.rejected++
        res
          .writeHead(422, { 'content-type': 'application/json' })
          .end('{"kind":"Status","apiVersion":"v1","status":"Failure","message":"sendInitialEvents is not supported by the replay server","reason":"Invalid","code":422}')
        return
      }
      requests.watch++
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })
      res.flushHeaders()
      if (url.pathname === PODS_PATH) {
        watches.add(res)
        res.on('close', () => watches.delete(res))
        const w = waiters
        waiters = []
        for (const f of w) f()
      }
      return
    }
    requests.list++
    const limit = q.get('limit')
    const token = q.get('continue')
    const body = pageBody(pages, cluster.resourceVersion, limit ? (token ? pageOfToken(token) : 0) : undefined)
    const length = body.reduce((n, b) => n + b.length, 0)
    requests.listBytes += length
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': length })
    for (const b of body) res.write(b)
    res.end()
  }

  const server: Server = createServer(handle)
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    podWatchers: () => watches.size,
    setWatchSample(lines) {
      watchSample = Buffer.concat(lines)
    },
    async waitPodWatchers(n, timeoutMs) {
      const until = Date.now() + timeoutMs
      while (watches.size < n) {
        if (Date.now() > until) throw new Error(`no pod watch after ${timeoutMs} ms (${watches.size} open)`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 100)
        })
      }
    },
    expirePodWatches() {
      for (const w of watches) {
        w.end('{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version","reason":"Expired","code":410}}\n')
        watches.delete(w)
      }
    },
    async stream(events, rate, onSent) {
      const start = Date.now()
      let blockedMs = 0
      let i = 0
      while (i < events.length) {
        const due = Math.min(events.length, Math.floor(((Date.now() - start) / 1000) * rate) + 1)
        let full = false
        for (; i < due; i++) {
          const ev = events[i]!
          for (const w of watches) if (!w.write(ev.line)) full = true
          onSent(ev.uid, Date.now())
        }
        if (full) {
          const t = Date.now()
          await Promise.all([...watches].map((w) => (w.writableNeedDrain ? new Promise((resolve) => w.once('drain', resolve)) : undefined)))
          blockedMs += Date.now() - t
        } else {
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      }
      return { sentPerS: events.length / Math.max(0.001, (Date.now() - start) / 1000), blockedMs }
    },
    async close() {
      for (const w of watches) w.end()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Writes a kubeconfig for `server` (plain http, no auth) to `file`. */
export function writeKubeconfig(file: string, server: string): void {
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: replay',
      '  cluster:',
      `    server: ${server}`,
      '    insecure-skip-tls-verify: true',
      'users:',
      '- name: bench',
      '  user:',
      '    token: replay',
      'contexts:',
      '- name: replay',
      '  context:',
      '    cluster: replay',
      '    user: bench',
      'current-context: replay',
      '',
    ].join('\n'),
  )
}
