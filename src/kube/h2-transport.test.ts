// The HTTP/2 transport against what a server or the network may do, on real sockets: a stream
// reset mid-body, the connection cut under open streams, bytes that are not HTTP/2 after an `h2`
// handshake, a server that speaks only HTTP/1.1. Each is a named failure of the request (never a
// crash, never an unhandled 'error' event), and the next request works (docs/dead-links.md §2).
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import tls from 'node:tls'
import { KubeConfig } from '@kubernetes/client-node'
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeApiServer, startWatchBody, type FakeApiServer, type WatchWriter } from '../../e2e/harness/fake-apiserver.ts'
import { startTcpProxy } from '../../e2e/harness/tcp-proxy.ts'
import { createTestPki, kubeconfigFor } from '../../e2e/harness/test-pki.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import { logger } from '../observe/log.ts'
import { createKubeClient } from './client.ts'
import { KubeTransportError } from './errors.ts'

const OPTS = { accept: 'application/json', idleTimeoutMs: 10_000 }
let api: FakeApiServer | undefined
afterEach(async () => {
  await api?.close()
  api = undefined
})
logger.level = 0

/** The rejection of `p` (fails the test if it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p
  } catch (err) {
    return err
  }
  throw new Error('resolved')
}

describe('the HTTP/2 transport, on real sockets', () => {
  it('a stream reset by the server mid-body is a reset; the connection serves the next request', async () => {
    api = await startFakeApiServer(undefined, { http2: true })
    let w: WatchWriter | undefined
    api.script('/api/v1/pods', (_r, res) => {
      w = startWatchBody(res)
      w.raw('{"type":"BOOKMARK"')
    })
    const client = api.client()
    const res = await client.get('/api/v1/pods?watch=1', OPTS)
    expect(client.protocol).toBe('h2')
    expect(new TextDecoder().decode((await res.read())!)).toBe('{"type":"BOOKMARK"')
    w!.destroy() // RST_STREAM
    const err = await rejection(res.read())
    expect(err).toBeInstanceOf(KubeTransportError)
    expect((err as KubeTransportError).reason).toBe('reset')
    api.script('/api/v1/pods', (_r, res2) => startWatchBody(res2).end())
    const again = await client.get('/api/v1/pods?watch=1', OPTS)
    expect(await again.read()).toBeNull()
    expect(api.requests.length).toBe(2)
  })

  it('the connection cut under two open watches fails both as reset; the next request opens a new one', async () => {
    api = await startFakeApiServer(undefined, { http2: true })
    const proxy = await startTcpProxy({ target: { port: Number(new URL(api.url).port) } })
    try {
      api.fallback = (_r, res) => void startWatchBody(res)
      const kc = new KubeConfig()
      kc.loadFromString(kubeconfigFor(`https://127.0.0.1:${proxy.port}`, api.pki, { cert: true }))
      const client = createKubeClient({ kubeConfig: kc })
      const [a, b] = await Promise.all([client.get('/api/v1/pods?watch=1', OPTS), client.get('/apis/batch/v1/jobs?watch=1', OPTS)])
      expect(proxy.stats.opened).toBe(1)
      const reads = [a.read(), b.read()].map(rejection)
      proxy.cut() // the TCP connection reset, as by a server that died or a NAT that dropped it
      for (const err of await Promise.all(reads)) {
        expect(err).toBeInstanceOf(KubeTransportError)
        expect((err as KubeTransportError).reason).toBe('reset')
      }
      api.script('/api/v1/pods', (_r, res) => startWatchBody(res).end())
      const again = await client.get('/api/v1/pods?watch=1', OPTS)
      expect(await again.read()).toBeNull()
      expect(proxy.stats.opened).toBe(2)
    } finally {
      await proxy.close()
    }
  })

  it('bytes that are not HTTP/2 after an h2 handshake fail the request, nothing else', async () => {
    const pki = await createTestPki()
    // A server that takes h2 by ALPN, then answers with an HTTP/1.1 status line and garbage.
    const server = tls.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem, ALPNProtocols: ['h2'] }, (sock) => {
      sock.on('error', () => {})
      sock.write('HTTP/1.1 200 OK\r\n\r\n' + 'x'.repeat(4096))
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    try {
      const kc = new KubeConfig()
      kc.loadFromString(kubeconfigFor(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, pki, { cert: true }))
      const client = createKubeClient({ kubeConfig: kc })
      for (let i = 0; i < 3; i++) {
        const err = await rejection(client.get('/api/v1/pods', OPTS))
        expect(err).toBeInstanceOf(KubeTransportError)
        expect(['reset', 'network']).toContain((err as KubeTransportError).reason)
      }
    } finally {
      server.close()
    }
  })

  it('a server that speaks only HTTP/1.1 is asked nothing over HTTP/2: every request goes over HTTP/1.1', async () => {
    api = await startFakeApiServer()
    api.script('/api/v1/pods', (_r, res) => startWatchBody(res).end())
    const kc = new KubeConfig()
    kc.loadFromString(kubeconfigFor(api.url, api.pki, { cert: true }))
    const client = createKubeClient({ kubeConfig: kc })
    const res = await client.get('/api/v1/pods?watch=1', OPTS)
    expect(await res.read()).toBeNull()
    expect(client.protocol).toBe('http/1.1')
    await waitFor('the one request', () => (api!.requests.length === 1 ? true : undefined))
  })
})
