// The failover section's API server: coordination.k8s.io Leases served in memory (the test store of
// e2e/harness/memory-leases.ts behind plain HTTP) and every other request passed to the replay
// server, so collectors with --leader-elect list and watch the replay cluster through one kubeconfig.
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMemoryLeaseStore } from '../e2e/harness/memory-leases.ts'

const LEASES = '/apis/coordination.k8s.io/'

export interface LeaseFront {
  readonly url: string
  /** Who holds `namespace/name` now ('' = nobody, undefined = no Lease yet). */
  holder(namespace: string, name: string): string | undefined
  /** When (performance.now()) a Lease write last changed the holder to `identity`, if it did. */
  heldSince(identity: string): number | undefined
  close(): Promise<void>
}

const body = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })

/** Starts the front on 127.0.0.1 for the replay server at `upstream` (http://host:port). */
export async function startLeaseFront(upstream: string): Promise<LeaseFront> {
  const store = createMemoryLeaseStore()
  const client = store.client('collectors')
  const since = new Map<string, number>()

  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/'
    if (path.startsWith(LEASES)) {
      void (async () => {
        const sent = await body(req)
        const method = (req.method ?? 'GET') as 'GET' | 'POST' | 'PUT'
        const r = await client.send(path, { method, accept: 'application/json', idleTimeoutMs: 10_000, ...(sent.length ? { body: sent } : {}) })
        const text = await r.text()
        if (method !== 'GET' && r.status < 300) {
          const holder = (JSON.parse(text) as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? ''
          if (!since.has(holder)) since.set(holder, performance.now())
        }
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(text)
      })().catch(() => res.destroy())
      return
    }
    const up = request(upstream + path, { method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers)
      ur.pipe(res)
    })
    up.on('error', () => res.destroy())
    res.on('close', () => up.destroy())
    req.pipe(up)
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holder: (namespace, name) => store.get(namespace, name)?.spec?.holderIdentity,
    heldSince: (identity) => since.get(identity),
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
