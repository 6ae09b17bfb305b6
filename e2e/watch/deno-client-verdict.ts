// Runs the API client's cases (src/kube/client.test.ts) on whatever runtime executes this file (made
// for `deno run --allow-all`, where requests go over fetch: src/kube/fetch-transport.ts) against a
// local HTTPS server with client-certificate auth. Prints one JSON verdict line: each case → true or
// what went wrong, and how many requests went through fetch.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'
import { createKubeClient, type KubeClient } from '../../src/kube/client.ts'
import { KubeAbortedError, KubeIdleTimeoutError, KubeTransportError } from '../../src/kube/errors.ts'
import { sendJson, startFakeApiServer, startWatchBody, type Handler, type WatchWriter } from '../harness/fake-apiserver.ts'
import { createTestPki, kubeconfigFor } from '../harness/test-pki.ts'

const runtime = 'Deno' in globalThis ? `deno ${(globalThis as unknown as { Deno: { version: { deno: string } } }).Deno.version.deno}` : `node ${process.version}`
let fetches = 0
const realFetch = globalThis.fetch
globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
  fetches++
  return realFetch(...args)
}) as typeof fetch

const api = await startFakeApiServer()
const dir = mkdtempSync(join(tmpdir(), 'kube-client-deno-'))
const opts = { accept: 'application/json', idleTimeoutMs: 5000 }
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const clientOf = (yaml: string): KubeClient => {
  const kc = new KubeConfig()
  kc.loadFromString(yaml)
  return createKubeClient({ kubeConfig: kc })
}
async function rejectsWith(p: Promise<unknown>, type: new (...a: never[]) => Error): Promise<void> {
  try {
    await p
  } catch (err) {
    if (err instanceof type) return
    throw new Error(`rejected with ${(err as Error)?.name}: ${(err as Error)?.message}, expected ${type.name}`)
  }
  throw new Error(`resolved, expected ${type.name}`)
}
function check(cond: boolean, what: string): void {
  if (!cond) throw new Error(what)
}

const cases: Record<string, () => Promise<void>> = {
  async clientCertificateAndCa() {
    api.script('/hello', (_req, res) => sendJson(res, 200, { ok: true }))
    const res = await api.client().get('/hello?x=1', { ...opts, accept: 'application/vnd.test' })
    check(res.status === 200, `status ${res.status}`)
    check(res.header('content-type') === 'application/json', `content-type ${res.header('content-type')}`)
    check((await res.text()) === '{"ok":true}', 'body')
    const seen = api.requests.at(-1)!
    check(seen.path === '/hello' && seen.clientCn === 'collector' && seen.query.get('x') === '1', `request ${JSON.stringify(seen)}`)
    check(seen.headers.accept === 'application/vnd.test' && seen.headers['user-agent'] === 'k8s-collector', `headers ${JSON.stringify(seen.headers)}`)
  },
  async bearerToken() {
    api.script('/a', (_r, res) => sendJson(res, 200, {}))
    await (await clientOf(kubeconfigFor(api.url, api.pki, { cert: true, token: 's3cret' })).get('/a', opts)).text()
    check(api.requests.at(-1)!.headers.authorization === 'Bearer s3cret', `authorization ${api.requests.at(-1)!.headers.authorization}`)
  },
  async execPluginPerRequest() {
    const counter = join(dir, 'count')
    writeFileSync(counter, '0')
    const plugin = join(dir, 'plugin.sh')
    writeFileSync(
      plugin,
      `#!/bin/sh\nn=$(( $(cat ${counter}) + 1 ))\necho $n > ${counter}\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"tok-'$n'","expirationTimestamp":"2000-01-01T00:00:00Z"}}'\n`,
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
  async wrongCaRejectedUnlessInsecure() {
    const other = await createTestPki()
    const wrongCa = { ...api.pki, caPem: other.caPem }
    await rejectsWith(clientOf(kubeconfigFor(api.url, wrongCa, { cert: true })).get('/x', opts), KubeTransportError)
    api.script('/x', (_r, res) => sendJson(res, 200, {}))
    const res = await clientOf(kubeconfigFor(api.url, wrongCa, { cert: true, insecure: true })).get('/x', opts)
    check(res.status === 200, `insecure status ${res.status}`)
    await res.text()
  },
  async refusedConnection() {
    await rejectsWith(clientOf(kubeconfigFor('https://127.0.0.1:1', api.pki)).get('/x', opts), KubeTransportError)
  },
  async idleTimeoutBeforeHeaders() {
    api.script('/silent', () => {})
    await rejectsWith(api.client().get('/silent', { ...opts, idleTimeoutMs: 200 }), KubeIdleTimeoutError)
  },
  async idleTimeoutOfStalledBodyAndTrickleKeepsAlive() {
    let writer: WatchWriter | undefined
    api.script('/stall', (_r, res) => {
      writer = startWatchBody(res)
      writer.raw('{"a":1}\n')
    })
    const res = await api.client().get('/stall', { ...opts, idleTimeoutMs: 300 })
    check(new TextDecoder().decode((await res.read())!) === '{"a":1}\n', 'first chunk')
    for (let i = 0; i < 5; i++) {
      await sleep(100)
      writer!.raw(' ')
      check((await res.read()) !== null, 'trickle chunk')
    }
    await rejectsWith(res.read(), KubeIdleTimeoutError)
    await writer!.closed
  },
  async abortClosesTheConnection() {
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
  async bodyCutBeforeItsEnd() {
    const cut: Handler = (_r, res) => {
      const w = startWatchBody(res)
      w.raw('{"a":1}\n')
      setTimeout(() => w.destroy(), 50)
    }
    api.script('/cut', cut, cut)
    await rejectsWith((await api.client().get('/cut', opts)).text(), KubeTransportError)
    await rejectsWith((await api.client().get('/cut', opts)).bytes(), KubeTransportError)
  },
  async bytesOfLargeBodies() {
    // 3 MB with and without content-length (the LIST page path), and a capped read that drains the rest.
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
  async closedBodyBufferReused() {
    const page = (n: number): string => JSON.stringify({ items: Array.from({ length: n }, (_, i) => ({ i })) })
    api.script('/page', (_r, res) => sendJson(res, 200, JSON.parse(page(2000))), (_r, res) => sendJson(res, 200, JSON.parse(page(1000))))
    const client = api.client()
    const first = await client.get('/page', opts)
    const a = await first.bytes()
    check(new TextDecoder().decode(a) === page(2000), 'first page')
    first.close()
    const b = await (await client.get('/page', opts)).bytes()
    check(new TextDecoder().decode(b) === page(1000), 'second page')
    // Read over fetch, a body's bytes move into each read's view: the first body's view is detached
    // exactly when the second body was read into its buffer.
    check(b.buffer === a.buffer || a.byteLength === 0, 'the second body reused the first one\'s buffer')
  },
}

const verdict: Record<string, unknown> = { runtime }
for (const [name, run] of Object.entries(cases)) {
  try {
    await Promise.race([run(), sleep(10_000).then(() => Promise.reject(new Error('timed out')))])
    verdict[name] = true
  } catch (err) {
    verdict[name] = err instanceof Error ? err.message : String(err)
  }
}
verdict.fetches = fetches
// Not awaited: the server waits for the fetch pool's idle keep-alive connections (90 s) on Deno.
void api.close()
rmSync(dir, { recursive: true, force: true })
console.log(JSON.stringify(verdict))
process.exit(0)
