// Compressed responses as kube-apiserver v1.37.2 sends them. A streaming list (measured with curl:
// 300 pods came as 2–12 gzip members, one per flush; an empty one gzipped too): gzip only when the
// client accepts it, each write a member of its own; an ordinary watch never, even with 200 KiB
// events; a client that reads only the first member (Deno's
// fetch did) sees the streaming list end before its bookmark. A LIST: one gzip member, and only
// past 128 KiB (apiserver's deferredResponseWriter, defaultGzipThresholdBytes).
import https from 'node:https'
import { gunzipSync, inflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { useSimulator } from './test-client.ts'

const t = useSimulator({ nodes: 1, controllers: false }, 'sim-gzip-')
const PATH = '/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1'

/** The whole body as bytes, and the response's Content-Encoding. */
function get(path: string, headers: Record<string, string>): Promise<{ encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, t.sim.url), { headers: { Authorization: `Bearer ${t.sim.token}`, ...headers }, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** Splits concatenated gzip members (10-byte headers, as zlib writes them) into their contents. */
function members(gz: Buffer): Buffer[] {
  const out: Buffer[] = []
  for (let at = 0; at < gz.length; ) {
    expect([gz[at], gz[at + 1], gz[at + 3]]).toEqual([0x1f, 0x8b, 0]) // magic, no optional fields
    const { buffer, engine } = inflateRawSync(gz.subarray(at + 10), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } }
    out.push(buffer)
    at += 10 + engine.bytesWritten + 8
  }
  return out
}

const lines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { annotations?: Record<string, string> } } })

describe('compressed watches', () => {
  it('a streaming list asked for with gzip comes as several gzip members that hold what the plain one holds', async () => {
    t.sim.bulk.createPods(3_000, { namespace: 'default' })
    const plain = await get(PATH, {})
    expect(plain.encoding).toBeUndefined()
    const gz = await get(PATH, { 'Accept-Encoding': 'gzip' })
    expect(gz.encoding).toBe('gzip')
    const parts = members(gz.body)
    expect(parts.length).toBeGreaterThan(1)
    const expected = lines(plain.body.toString('utf8'))
    expect(expected.filter((l) => l.type === 'ADDED')).toHaveLength(3_000)
    expect(lines(Buffer.concat(parts).toString('utf8'))).toEqual(expected)
    // The first member alone ends before the end-of-snapshot bookmark.
    const first = lines(parts[0]!.toString('utf8'))
    expect(first.some((l) => l.type === 'BOOKMARK')).toBe(false)
    expect(expected.at(-1)!.type).toBe('BOOKMARK')
  })

  it('an ordinary watch asked for with gzip comes plain, as on kube-apiserver v1.37.2', async () => {
    t.sim.bulk.createPods(300, { namespace: 'default' })
    const res = await get('/api/v1/pods?watch=1&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=1', { 'Accept-Encoding': 'gzip' })
    expect(res.encoding).toBeUndefined()
    expect(lines(res.body.toString('utf8')).length).toBeGreaterThan(0)
  })

  it('a LIST page over 128 KiB asked for with gzip comes as one gzip member that holds the plain page', async () => {
    t.sim.bulk.createPods(600, { namespace: 'list-gz' })
    const path = '/api/v1/namespaces/list-gz/pods?limit=500'
    const plain = await get(path, { 'Accept-Encoding': 'identity' })
    expect(plain.encoding).toBeUndefined()
    expect(plain.body.length).toBeGreaterThan(128 * 1024)
    const gz = await get(path, { 'Accept-Encoding': 'gzip' })
    expect(gz.encoding).toBe('gzip')
    expect(members(gz.body)).toHaveLength(1)
    const page = (b: Buffer) => JSON.parse(b.toString('utf8')) as { items: Array<{ metadata: { name: string } }>; metadata: { resourceVersion: string } }
    const unzipped = page(gunzipSync(gz.body))
    expect(unzipped.items.map((i) => i.metadata.name)).toEqual(page(plain.body).items.map((i) => i.metadata.name))
    expect(gz.body.length * 5).toBeLessThan(plain.body.length)
  })

  it.each([
    ['a page of 128 KiB or less', '/api/v1/namespaces/list-gz/pods?limit=2', 'gzip'],
    ['gzip with a q-value (not the exact token kube-apiserver looks for)', '/api/v1/namespaces/list-gz/pods?limit=500', 'gzip;q=1.0'],
    ['other encodings only', '/api/v1/namespaces/list-gz/pods?limit=500', 'deflate, br'],
  ])('a LIST comes plain for %s', async (_what, path, acceptEncoding) => {
    t.sim.bulk.createPods(600, { namespace: 'list-gz' })
    const res = await get(path, { 'Accept-Encoding': acceptEncoding })
    expect(res.encoding).toBeUndefined()
    expect(Array.isArray((JSON.parse(res.body.toString('utf8')) as { items: unknown[] }).items)).toBe(true)
  })
})
