// The health listener over real HTTP: /healthz, /readyz, /metrics, extra routes, close.
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { HealthServerError, startHealthServer, type HealthServer, type ReadyState } from './http.ts'
import { createRegistry } from './metrics.ts'

const servers: HealthServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function start(ready: () => ReadyState = () => true) {
  const registry = createRegistry()
  registry.counter({ name: 'kc_test_total', help: 'A test counter.' }).inc(3)
  const s = await startHealthServer({
    host: '127.0.0.1',
    port: 0,
    ready,
    metrics: registry,
    extra: {
      '/debug/boom': () => {
        throw new Error('boom')
      },
      '/debug/json': async () => ({ contentType: 'application/json', body: '{"a":1}' }),
    },
  })
  servers.push(s)
  return s
}

async function get(s: HealthServer, path: string, method = 'GET') {
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, { method })
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() }
}

describe('health server', () => {
  it('binds an ephemeral port and answers /healthz', async () => {
    const s = await start()
    expect(s.port).toBeGreaterThan(0)
    expect(await get(s, '/healthz')).toEqual({ status: 200, type: 'text/plain; charset=utf-8', body: 'ok\n' })
  })

  it('answers /readyz from the callback, with the reason when there is one', async () => {
    let state: ReadyState = { ready: false, reason: 'waiting for the initial lists (pods)' }
    const s = await start(() => state)
    expect(await get(s, '/readyz')).toMatchObject({ status: 503, body: 'not ready: waiting for the initial lists (pods)\n' })
    state = true
    expect(await get(s, '/readyz')).toMatchObject({ status: 200, body: 'ok\n' })
    state = false
    expect(await get(s, '/readyz')).toMatchObject({ status: 503, body: 'not ready\n' })
    state = { ready: true, reason: 'standby' }
    expect(await get(s, '/readyz')).toMatchObject({ status: 200, body: 'ok: standby\n' })
  })

  it('serves /metrics in the Prometheus text format', async () => {
    const s = await start()
    const r = await get(s, '/metrics?x=1')
    expect(r.status).toBe(200)
    expect(r.type).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(r.body).toBe('# HELP kc_test_total A test counter.\n# TYPE kc_test_total counter\nkc_test_total 3\n')
  })

  it('serves extra routes, 404 for unknown paths, 405 for other methods, 500 for failing routes', async () => {
    const s = await start()
    expect(await get(s, '/debug/json')).toEqual({ status: 200, type: 'application/json', body: '{"a":1}' })
    expect((await get(s, '/nope')).status).toBe(404)
    expect((await get(s, '/healthz', 'POST')).status).toBe(405)
    expect(await get(s, '/debug/boom')).toMatchObject({ status: 500, body: 'internal error\n' })
    const head = await get(s, '/healthz', 'HEAD')
    expect(head).toMatchObject({ status: 200, body: '' })
  })

  it('close() ends keep-alive connections and frees the port', async () => {
    const s = await start()
    // A keep-alive request leaves an idle connection open.
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: s.port, path: '/healthz', headers: { connection: 'keep-alive' } }, (res) => {
        res.resume()
        res.on('end', resolve)
      })
      req.on('error', reject)
      req.end()
    })
    await servers.pop()!.close()
    await expect(fetch(`http://127.0.0.1:${s.port}/healthz`)).rejects.toThrow()
  })

  it('rejects with HealthServerError when the port is taken', async () => {
    const s = await start()
    await expect(startHealthServer({ host: '127.0.0.1', port: s.port, ready: () => true, metrics: createRegistry() })).rejects.toThrow(
      HealthServerError,
    )
  })
})
