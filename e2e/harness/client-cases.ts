// The API client's cases (src/kube/client.ts), runnable on any runtime against the fake HTTPS API
// server: src/kube/client.test.ts runs them on Node (node:http(s)), e2e/watch/deno-client-verdict.ts
// on Deno (fetch). Each case throws what went wrong.
import { chmodSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'
import { createKubeClient, loadKubeConfig, type KubeClient } from '../../src/kube/client.ts'
import { KubeAbortedError, KubeConfigError, KubeDecodeError, KubeIdleTimeoutError, KubeTransportError } from '../../src/kube/errors.ts'
import { sendJson, startFakeApiServer, startWatchBody, type FakeApiServer, type Handler, type WatchWriter } from './fake-apiserver.ts'
import { createFakeClock } from './fake-clock.ts'
import { createTestPki, kubeconfigFor } from './test-pki.ts'

/** What a case runs against: the server and a scratch folder. */
export interface ClientCaseContext {
  readonly api: FakeApiServer
  readonly dir: string
}

const opts = { accept: 'application/json', idleTimeoutMs: 5000 }

function clientOf(yaml: string): KubeClient {
  const kc = new KubeConfig()
  kc.loadFromString(yaml)
  return createKubeClient({ kubeConfig: kc })
}

function check(cond: boolean, what: string): void {
  if (!cond) throw new Error(what)
}

async function rejectsWith(p: Promise<unknown>, type: new (...a: never[]) => Error): Promise<Error> {
  try {
    await p
  } catch (err) {
    if (err instanceof type) return err
    throw new Error(`rejected with ${(err as Error)?.name}: ${(err as Error)?.message}, expected ${type.name}`)
  }
  throw new Error(`resolved, expected ${type.name}`)
}

/** Whether a request accepts gzip (kube-apiserver: the exact token). */
const acceptsGzip = (req: { headers: Record<string, unknown> }): boolean => String(req.headers['accept-encoding'] ?? '').split(',').some((t) => t.trim() === 'gzip')

/** Runs `fn` against an HTTP/2 server (h2 by ALPN, as kube-apiserver) with `api`'s PKI, then closes it. */
async function withH2Server(api: FakeApiServer, fn: (h2: FakeApiServer) => Promise<void>): Promise<void> {
  const h2 = await startFakeApiServer(api.pki, { http2: true })
  try {
    await fn(h2)
  } finally {
    void h2.close()
  }
}

/** A JSON list body of `n` items: ~8 bytes each, so that larger ones arrive in several chunks. */
const page = (n: number): string => JSON.stringify({ items: Array.from({ length: n }, (_, i) => ({ i })) })

/** The cases by name. */
export const CLIENT_CASES: Record<string, (ctx: ClientCaseContext) => Promise<void>> = {
  async 'authenticates with the kubeconfig client certificate and verifies the server with its CA'({ api }) {
    api.script('/hello', (_req, res) => sendJson(res, 200, { ok: true }))
    const res = await api.client().get('/hello?x=1', { ...opts, accept: 'application/vnd.test' })
    check(res.status === 200, `status ${res.status}`)
    check(res.header('content-type') === 'application/json', `content-type ${res.header('content-type')}`)
    check((await res.text()) === '{"ok":true}', 'body')
    const seen = api.requests.at(-1)!
    check(seen.path === '/hello' && seen.clientCn === 'collector' && seen.query.get('x') === '1', `request ${JSON.stringify(seen)}`)
    check(seen.headers.accept === 'application/vnd.test' && seen.headers['user-agent'] === 'k8s-collector', `headers ${JSON.stringify(seen.headers)}`)
  },

  async 'reads the whole body from a server that gzips each flush as its own member when asked'({ api }) {
    // kube-apiserver v1.37 compresses a watch that way when the client accepts gzip; Deno's fetch
    // asks for gzip by itself and then ends the body after the first member.
    const lines = ['{"type":"ADDED","n":1}\n', '{"type":"ADDED","n":2}\n', '{"type":"BOOKMARK","n":3}\n']
    api.script('/gz', (req, res) => {
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
      res.writeHead(200, { 'Content-Type': 'application/json', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) })
      for (const line of lines) res.write(gzip ? gzipSync(line) : line)
      res.end()
    })
    const res = await api.client().get('/gz', opts)
    const text = await res.text()
    check(text === lines.join(''), `body ${JSON.stringify(text)} (accept-encoding ${JSON.stringify(api.requests.at(-1)!.headers['accept-encoding'])})`)
  },

  async 'asks for gzip over HTTP/2 and reads every member: a watch (one per flush), a streaming list, a LIST'({ api }) {
    // kube-apiserver's shapes: a watch or streaming list one gzip member per flush, a LIST one member.
    // On Deno a streaming list and a LIST page (bulk) go over HTTP/2 then, not fetch (fetch-transport.ts).
    await withH2Server(api, async (h2) => {
      const lines = ['{"type":"ADDED","n":1}\n', '{"type":"ADDED","n":2}\n', '{"type":"BOOKMARK","n":3}\n']
      const members = lines.map((l) => gzipSync(l))
      const list = JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ i })) })
      const listGz = gzipSync(list)
      const watch: Handler = async (req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', ...(acceptsGzip(req) ? { 'Content-Encoding': 'gzip' } : {}) })
        for (const [i, line] of lines.entries()) {
          res.write(acceptsGzip(req) ? members[i] : line)
          await new Promise((r) => setTimeout(r, 20))
        }
        res.end()
      }
      h2.script('/watch', watch, watch)
      h2.script('/list', (req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', ...(acceptsGzip(req) ? { 'Content-Encoding': 'gzip' } : {}) })
        res.end(acceptsGzip(req) ? listGz : list)
      })
      const client = h2.client()
      for (const bulk of [false, true]) {
        const text = await (await client.get('/watch', { ...opts, bulk })).text()
        check(text === lines.join(''), `watch (bulk ${bulk}) body ${JSON.stringify(text)}`)
      }
      const res = await client.get('/list', { ...opts, bulk: true })
      check(res.header('content-encoding') === undefined, 'a decoded body has no content-encoding')
      const body = await res.bytes()
      check(new TextDecoder().decode(body) === list, `list body of ${body.length} bytes`)
      res.close()
      const asked = h2.requests.map((r) => r.headers['accept-encoding'])
      check(asked.length === 3 && asked.every((a) => a === 'gzip'), `accept-encoding ${JSON.stringify(asked)}`)
      const wire = 2 * members.reduce((n, m) => n + m.length, 0) + listGz.length
      const decoded = 2 * lines.join('').length + list.length
      check(client.traffic?.wire === wire && client.traffic?.decoded === decoded, `traffic ${JSON.stringify(client.traffic)}, expected wire ${wire}, decoded ${decoded}`)
    })
  },

  async 'refuses a gzip bomb and a corrupt gzip body with a clear error, and the next request works'({ api }) {
    await withH2Server(api, async (h2) => {
      // 64 MiB of spaces in ~64 KiB: refused once 32 MiB are decoded at more than 256×.
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 })
      const corrupt = gzipSync('{"type":"ADDED","object":{}}\n'.repeat(50))
      corrupt[corrupt.length - 6] ^= 0xff // the CRC
      const gz = (body: Uint8Array): Handler => (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })
        res.end(body)
      }
      h2.script('/bomb', gz(bomb))
      h2.script('/corrupt', gz(corrupt))
      h2.script('/after', (_req, res) => sendJson(res, 200, { ok: true }))
      const client = h2.client()
      const bombed = await rejectsWith((await client.get('/bomb', { ...opts, bulk: true })).bytes(), KubeDecodeError)
      check(/gzip body expands more than 256×.*gzip bomb/.test(bombed.message), `bomb: ${bombed.message}`)
      check((client.traffic?.decoded ?? Infinity) < 48 * 1024 * 1024, `decoded ${client.traffic?.decoded} bytes of the bomb`)
      const broken = await rejectsWith((await client.get('/corrupt', opts)).text(), KubeDecodeError)
      check(/gzip body cannot be decoded/.test(broken.message), `corrupt: ${broken.message}`)
      const after = await (await client.get('/after', opts)).text()
      check(after === '{"ok":true}', `after: ${after}`)
    })
  },

  async 'loads --kubeconfig files and KUBECONFIG, sending the bearer token'({ api, dir }) {
    const file = join(dir, 'token.kubeconfig')
    writeFileSync(file, kubeconfigFor(api.url, api.pki, { cert: true, token: 's3cret' }))
    api.script('/a', (_r, res) => sendJson(res, 200, {}))
    await (await createKubeClient({ kubeconfigPath: file }).get('/a', opts)).text()
    check(api.requests.at(-1)!.headers.authorization === 'Bearer s3cret', `authorization ${api.requests.at(-1)!.headers.authorization}`)
    const before = process.env.KUBECONFIG
    process.env.KUBECONFIG = file
    try {
      check(loadKubeConfig().getCurrentCluster()?.server === api.url, 'KUBECONFIG not used')
    } finally {
      if (before === undefined) delete process.env.KUBECONFIG
      else process.env.KUBECONFIG = before
    }
  },

  async 'runs an exec credential plugin per request, so refreshed tokens are used'({ api, dir }) {
    const counter = join(dir, 'count')
    writeFileSync(counter, '0')
    const plugin = join(dir, 'plugin.sh')
    writeFileSync(
      plugin,
      `#!/bin/sh\nn=$(( $(cat ${counter}) + 1 ))\necho $n > ${counter}\n` +
        `echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"tok-'$n'","expirationTimestamp":"2000-01-01T00:00:00Z"}}'\n`,
    )
    chmodSync(plugin, 0o755)
    const base = JSON.parse(kubeconfigFor(api.url, api.pki, { cert: true }))
    base.users[0].user.exec = { apiVersion: 'client.authentication.k8s.io/v1beta1', command: plugin, interactiveMode: 'Never' }
    const client = clientOf(JSON.stringify(base))
    api.script('/exec', (_r, res) => sendJson(res, 200, {}), (_r, res) => sendJson(res, 200, {}))
    await (await client.get('/exec', opts)).text()
    await (await client.get('/exec', opts)).text()
    const seen = api.requests.filter((r) => r.path === '/exec').map((r) => r.headers.authorization)
    check(JSON.stringify(seen) === '["Bearer tok-1","Bearer tok-2"]', `authorizations ${JSON.stringify(seen)}`)
  },

  async 'rejects a server whose certificate the kubeconfig CA did not sign, unless insecure-skip-tls-verify'({ api }) {
    const other = await createTestPki()
    const wrongCa = { ...api.pki, caPem: other.caPem }
    await rejectsWith(clientOf(kubeconfigFor(api.url, wrongCa, { cert: true })).get('/x', opts), KubeTransportError)
    api.script('/x', (_r, res) => sendJson(res, 200, {}))
    const res = await clientOf(kubeconfigFor(api.url, wrongCa, { cert: true, insecure: true })).get('/x', opts)
    check(res.status === 200, `insecure status ${res.status}`)
    await res.text()
  },

  async 'throws KubeConfigError for a missing kubeconfig file'({ dir }) {
    let thrown: unknown
    try {
      createKubeClient({ kubeconfigPath: join(dir, 'nope') })
    } catch (err) {
      thrown = err
    }
    check(thrown instanceof KubeConfigError, `threw ${String(thrown)}`)
  },

  async 'reports a refused connection as a transport error'({ api }) {
    await rejectsWith(clientOf(kubeconfigFor('https://127.0.0.1:1', api.pki)).get('/x', opts), KubeTransportError)
  },

  // The idle timeouts run on fake time: a minute that only the case's clock can run out.
  async 'fails with an idle timeout when no response headers arrive'({ api }) {
    api.script('/silent', () => {})
    const clock = createFakeClock()
    let settled = false
    const got = api.client().get('/silent', { ...opts, idleTimeoutMs: 60_000, what: 'GET /silent', clock })
    const failed = rejectsWith(
      got.finally(() => (settled = true)),
      KubeIdleTimeoutError,
    )
    await api.waitForRequests(1, (r) => r.path === '/silent')
    await clock.advance(59_999)
    check(!settled, 'settled before the idle timeout')
    await clock.advance(1)
    const err = await failed
    check(err.message === 'GET /silent torn down (peer_silent): the API server sent nothing for 60.0 s', `message ${err.message}`)
  },

  async 'fails a stalled body with an idle timeout, and keeps a trickling body alive'({ api }) {
    let writer: WatchWriter | undefined
    api.script('/stall', (_r, res) => {
      writer = startWatchBody(res)
      writer.raw('{"a":1}\n')
    })
    const clock = createFakeClock()
    const res = await api.client().get('/stall', { ...opts, idleTimeoutMs: 60_000, clock })
    check(new TextDecoder().decode((await res.read())!) === '{"a":1}\n', 'first chunk')
    // Bytes every 40 s keep the stream alive past the 60 s idle timeout.
    for (let i = 0; i < 5; i++) {
      await clock.advance(40_000)
      writer!.raw(' ')
      check((await res.read()) !== null, 'trickle chunk')
    }
    const stalled = rejectsWith(res.read(), KubeIdleTimeoutError)
    await clock.advance(60_000)
    await stalled
    await writer!.closed
  },

  async 'sends a write with its method, content type and body, and reads the answer'({ api }) {
    // A server of its own: the fake API server's handlers do not see request bodies.
    const seen: Array<{ method?: string; type?: string; length?: string; body: string }> = []
    const server = https.createServer({ cert: api.pki.serverCertPem, key: api.pki.serverKeyPem, ca: api.pki.caPem, requestCert: true }, (req, res) => {
      const parts: Buffer[] = []
      req.on('data', (b: Buffer) => parts.push(b))
      req.on('end', () => {
        const body = Buffer.concat(parts).toString('utf8')
        seen.push({ method: req.method, type: req.headers['content-type'], length: req.headers['content-length'], body })
        res.writeHead(201, { 'content-type': 'application/json' }).end(body)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
      const kc = new KubeConfig()
      kc.loadFromString(kubeconfigFor(url, api.pki, { cert: true }))
      const client = createKubeClient({ kubeConfig: kc })
      const body = new TextEncoder().encode('{"spec":{"holderIdentity":"é"}}')
      const res = await client.send('/lease', { ...opts, method: 'PATCH', contentType: 'application/merge-patch+json', body })
      check(res.status === 201, `status ${res.status}`)
      check((await res.text()) === '{"spec":{"holderIdentity":"é"}}', 'echoed body')
      const want = [{ method: 'PATCH', type: 'application/merge-patch+json', length: String(body.length), body: '{"spec":{"holderIdentity":"é"}}' }]
      check(JSON.stringify(seen) === JSON.stringify(want), `server saw ${JSON.stringify(seen)}`)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  },

  async 'aborting the signal destroys the connection and rejects the pending read'({ api }) {
    let writer: WatchWriter | undefined
    api.script('/abort', (_r, res) => {
      writer = startWatchBody(res)
    })
    const ac = new AbortController()
    const res = await api.client().get('/abort', { ...opts, signal: ac.signal })
    const pending = res.read()
    ac.abort()
    await rejectsWith(pending, KubeAbortedError)
    await writer!.closed // the server saw the socket close
    await rejectsWith(api.client().get('/abort', { ...opts, signal: ac.signal }), KubeAbortedError)
  },

  async 'reports a body cut before its end marker as a transport error, read as text or as bytes'({ api }) {
    const cut: Handler = (_r, res) => {
      const w = startWatchBody(res)
      w.raw('{"a":1}\n')
      setTimeout(() => w.destroy(), 50)
    }
    api.script('/cut', cut, cut)
    await rejectsWith((await api.client().get('/cut', opts)).text(), KubeTransportError)
    await rejectsWith((await api.client().get('/cut', opts)).bytes(), KubeTransportError)
  },

  async 'reads a 3 MB body whole, with and without content-length, and the first bytes of one'({ api }) {
    const body = new Uint8Array(3_000_001).map((_, i) => (i * 7) & 0xff)
    api.script(
      '/big',
      (_r, res) => {
        res.writeHead(200, { 'content-length': String(body.length) }).end(body)
      },
      (_r, res) => {
        res.writeHead(200, { 'transfer-encoding': 'chunked' })
        for (let at = 0; at < body.length; at += 10_000) res.write(body.subarray(at, at + 10_000))
        res.end()
      },
      (_r, res) => {
        res.writeHead(200, { 'transfer-encoding': 'chunked' }).end(body)
      },
    )
    const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i])
    const client = api.client()
    check(same(await (await client.get('/big', opts)).bytes(), body), 'content-length body')
    check(same(await (await client.get('/big', opts)).bytes(), body), 'chunked body')
    check(same(await (await client.get('/big', opts)).bytes(100_000), body.subarray(0, 100_000)), 'capped body')
  },

  async 'reuses the buffer of a body read whole once its response is closed'({ api }) {
    api.script('/page', (_r, res) => sendJson(res, 200, JSON.parse(page(60_000))), (_r, res) => sendJson(res, 200, JSON.parse(page(30_000))))
    const client = api.client()
    const first = await client.get('/page', opts)
    const a = await first.bytes()
    check(new TextDecoder().decode(a) === page(60_000), 'first body')
    first.close()
    const b = await (await client.get('/page', opts)).bytes()
    check(new TextDecoder().decode(b) === page(30_000), 'second body')
    // Over fetch a body's memory moves into each read's view: the first body's view is detached
    // exactly when the second body was read into its buffer.
    check(b.buffer === a.buffer || a.byteLength === 0, 'the second body did not reuse the first one\'s buffer')
  },
}
