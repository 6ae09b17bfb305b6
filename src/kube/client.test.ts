// The HTTP client against a real HTTPS server with client-certificate auth: auth material from
// kubeconfigs, idle timeouts, abort, body reading.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKubeClient, loadKubeConfig } from './client.ts'
import { KubeAbortedError, KubeConfigError, KubeIdleTimeoutError, KubeTransportError } from './errors.ts'
import { sendJson, startFakeApiServer, startWatchBody, type FakeApiServer } from '../../e2e/harness/fake-apiserver.ts'
import { createTestPki, kubeconfigFor } from '../../e2e/harness/test-pki.ts'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'

let api: FakeApiServer
let dir: string

beforeAll(async () => {
  api = await startFakeApiServer()
  dir = mkdtempSync(join(tmpdir(), 'kube-client-'))
})
afterAll(async () => {
  await api.close()
  rmSync(dir, { recursive: true, force: true })
})

const opts = { accept: 'application/json', idleTimeoutMs: 5000 }

describe('createKubeClient', () => {
  it('authenticates with the kubeconfig client certificate and verifies the server with its CA', async () => {
    api.script('/hello', (_req, res) => sendJson(res, 200, { ok: true }))
    const res = await api.client().get('/hello?x=1', { ...opts, accept: 'application/vnd.test' })
    expect(res.status).toBe(200)
    expect(res.header('content-type')).toBe('application/json')
    expect(JSON.parse(await res.text())).toEqual({ ok: true })
    const seen = api.requests.at(-1)!
    expect(seen).toMatchObject({ path: '/hello', clientCn: 'collector' })
    expect(seen.query.get('x')).toBe('1')
    expect(seen.headers.accept).toBe('application/vnd.test')
    expect(seen.headers['user-agent']).toBe('k8s-collector')
  })

  it('loads --kubeconfig files and KUBECONFIG, sending the bearer token', async () => {
    const file = join(dir, 'token.kubeconfig')
    writeFileSync(file, kubeconfigFor(api.url, api.pki, { cert: true, token: 's3cret' }))
    api.script('/a', (_r, res) => sendJson(res, 200, {}))
    await (await createKubeClient({ kubeconfigPath: file }).get('/a', opts)).text()
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer s3cret')

    const before = process.env.KUBECONFIG
    process.env.KUBECONFIG = file
    try {
      expect(loadKubeConfig().getCurrentCluster()?.server).toBe(api.url)
    } finally {
      if (before === undefined) delete process.env.KUBECONFIG
      else process.env.KUBECONFIG = before
    }
  })

  it('runs an exec credential plugin per request, so refreshed tokens are used', async () => {
    const counter = join(dir, 'count')
    writeFileSync(counter, '0')
    const script = `const fs=require('fs');const n=Number(fs.readFileSync(${JSON.stringify(counter)},'utf8'))+1;fs.writeFileSync(${JSON.stringify(counter)},String(n));process.stdout.write(JSON.stringify({apiVersion:'client.authentication.k8s.io/v1beta1',kind:'ExecCredential',status:{token:'tok-'+n,expirationTimestamp:new Date(Date.now()-1000).toISOString()}}))`
    const kc = new KubeConfig()
    const base = JSON.parse(kubeconfigFor(api.url, api.pki, { cert: true }))
    base.users[0].user.exec = { apiVersion: 'client.authentication.k8s.io/v1beta1', command: process.execPath, args: ['-e', script], interactiveMode: 'Never' }
    kc.loadFromString(JSON.stringify(base))
    const client = createKubeClient({ kubeConfig: kc })
    api.script('/exec', (_r, res) => sendJson(res, 200, {}), (_r, res) => sendJson(res, 200, {}))
    await (await client.get('/exec', opts)).text()
    await (await client.get('/exec', opts)).text()
    expect(api.requests.filter((r) => r.path === '/exec').map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2'])
  })

  it('rejects a server whose certificate the kubeconfig CA did not sign, unless insecure-skip-tls-verify', async () => {
    const other = await createTestPki()
    const wrongCa = { ...api.pki, caPem: other.caPem }
    const kc = new KubeConfig()
    kc.loadFromString(kubeconfigFor(api.url, wrongCa, { cert: true }))
    await expect(createKubeClient({ kubeConfig: kc }).get('/x', opts)).rejects.toBeInstanceOf(KubeTransportError)

    const insecure = new KubeConfig()
    insecure.loadFromString(kubeconfigFor(api.url, wrongCa, { cert: true, insecure: true }))
    api.script('/x', (_r, res) => sendJson(res, 200, {}))
    expect((await createKubeClient({ kubeConfig: insecure }).get('/x', opts)).status).toBe(200)
  })

  it('throws KubeConfigError for a missing kubeconfig file', () => {
    expect(() => createKubeClient({ kubeconfigPath: join(dir, 'nope') })).toThrow(KubeConfigError)
  })

  it('reports a refused connection as a transport error', async () => {
    const kc = new KubeConfig()
    kc.loadFromString(kubeconfigFor('https://127.0.0.1:1', api.pki))
    await expect(createKubeClient({ kubeConfig: kc }).get('/x', opts)).rejects.toBeInstanceOf(KubeTransportError)
  })
})

describe('KubeResponse', () => {
  // The idle timeouts run on fake time: a minute that only the test's clock can run out.
  it('fails with an idle timeout when no response headers arrive', async () => {
    api.script('/silent', () => {})
    const clock = createFakeClock()
    let settled = false
    const got = api.client().get('/silent', { ...opts, idleTimeoutMs: 60_000, what: 'GET /silent', clock })
    const failed = expect(got.finally(() => (settled = true))).rejects.toThrowError(
      new KubeIdleTimeoutError('GET /silent torn down (peer_silent): the API server sent nothing for 60.0 s'),
    )
    await api.waitForRequests(1, (r) => r.path === '/silent')
    await clock.advance(59_999)
    expect(settled).toBe(false)
    await clock.advance(1)
    await failed
  })

  it('fails a stalled body with an idle timeout, and keeps a trickling body alive', async () => {
    let writer: ReturnType<typeof startWatchBody> | undefined
    api.script('/stall', (_r, res) => {
      writer = startWatchBody(res)
      writer.raw('{"a":1}\n')
    })
    const clock = createFakeClock()
    const res = await api.client().get('/stall', { ...opts, idleTimeoutMs: 60_000, clock })
    expect(new TextDecoder().decode((await res.read())!)).toBe('{"a":1}\n')
    // Bytes every 40 s keep the stream alive past the 60 s idle timeout.
    for (let i = 0; i < 5; i++) {
      await clock.advance(40_000)
      writer!.raw(' ')
      expect(await res.read()).not.toBeNull()
    }
    const stalled = expect(res.read()).rejects.toBeInstanceOf(KubeIdleTimeoutError)
    await clock.advance(60_000)
    await stalled
    await writer!.closed
  })

  it('aborting the signal destroys the connection and rejects the pending read', async () => {
    let writer: ReturnType<typeof startWatchBody> | undefined
    api.script('/abort', (_r, res) => {
      writer = startWatchBody(res)
    })
    const ac = new AbortController()
    const res = await api.client().get('/abort', { ...opts, signal: ac.signal })
    const pending = res.read()
    ac.abort()
    await expect(pending).rejects.toBeInstanceOf(KubeAbortedError)
    await writer!.closed // the server saw the socket close
    await expect(api.client().get('/abort', { ...opts, signal: ac.signal })).rejects.toBeInstanceOf(KubeAbortedError)
  })

  it('reports a body cut before its end marker as a transport error', async () => {
    api.script('/cut', (_r, res) => {
      const w = startWatchBody(res)
      w.raw('{"a":1}\n')
      setTimeout(() => w.destroy(), 50)
    })
    const res = await api.client().get('/cut', opts)
    await expect(res.text()).rejects.toBeInstanceOf(KubeTransportError)
  })
})
