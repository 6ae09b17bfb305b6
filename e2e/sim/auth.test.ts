// Authentication: only the admin client certificate or the bearer token gets in, on every request of
// every connection, including TLS sessions resumed without a certificate (issue 18).
import https from 'node:https'
import type { TLSSocket } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSimulator, type Simulator } from './index.ts'
import { kubeconfigCredentials } from './test-client.ts'
import { generatePki } from './tls/pki.ts'

let sim: Simulator

beforeAll(async () => {
  sim = await startSimulator({ controllers: false })
})
afterAll(async () => {
  await sim?.close()
})

/** GET through `agent`: the status and whether the TLS session was resumed. */
function get(agent: https.Agent, headers: Record<string, string> = {}): Promise<{ status: number; resumed: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL('/api/v1/namespaces', sim.url), { agent, headers, rejectUnauthorized: false }, (res) => {
      const resumed = (res.socket as TLSSocket).isSessionReused() // read now: a pooled socket is detached at the end
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode!, resumed, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

const times = async <T>(n: number, fn: () => Promise<T>): Promise<T[]> => {
  const out: T[] = []
  for (let i = 0; i < n; i++) out.push(await fn())
  return out
}

describe('authentication', () => {
  it('answers 401 to every request without credentials, on new, resumed and kept-alive connections', async () => {
    // keepAlive false: a new TLS connection per request, resuming the cached session from the second on.
    const fresh = new https.Agent({ keepAlive: false, rejectUnauthorized: false })
    const kept = new https.Agent({ keepAlive: true, rejectUnauthorized: false })
    try {
      const resumed = await times(5, () => get(fresh))
      expect(resumed.map((r) => r.status)).toEqual([401, 401, 401, 401, 401])
      expect(resumed.slice(1).every((r) => r.resumed)).toBe(true) // the case that used to pass
      expect(JSON.parse(resumed[4].body)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 })
      expect((await times(3, () => get(kept))).map((r) => r.status)).toEqual([401, 401, 401])
      expect((await times(2, () => get(fresh, { Authorization: 'Bearer wrong' }))).map((r) => r.status)).toEqual([401, 401])
      // The token succeeds on the same kinds of connections, and does not open them for the next request.
      expect((await get(kept, { Authorization: `Bearer ${sim.token}` })).status).toBe(200)
      expect((await get(kept)).status).toBe(401)
      expect((await get(fresh, { Authorization: `Bearer ${sim.token}` })).status).toBe(200)
      expect((await get(fresh)).status).toBe(401)
    } finally {
      fresh.destroy()
      kept.destroy()
    }
  })

  it('accepts the admin client certificate on new and resumed sessions, and no certificate of another CA', async () => {
    const { ca, cert, key } = kubeconfigCredentials(sim.kubeconfig({ auth: 'cert' }))
    const admin = new https.Agent({ keepAlive: false, ca, cert, key })
    const other = await generatePki('127.0.0.1') // same CN=sim-admin, signed by a CA the server does not know
    const foreign = new https.Agent({ keepAlive: false, ca, cert: other.clientCert, key: other.clientKey })
    try {
      const ok = await times(4, () => get(admin))
      expect(ok.map((r) => r.status)).toEqual([200, 200, 200, 200])
      expect(ok.slice(1).every((r) => r.resumed)).toBe(true)
      expect((await times(3, () => get(foreign))).map((r) => r.status)).toEqual([401, 401, 401])
    } finally {
      admin.destroy()
      foreign.destroy()
    }
  })
})
