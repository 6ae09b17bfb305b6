// A compressed watch as kube-apiserver sends it (measured on v1.37.2 with curl: a 300-pod streaming
// list came as 2–12 gzip members, one per flush): gzip only when the client accepts it, each write a
// member of its own. A client that reads only the first member (Deno's fetch did) sees the
// streaming list end before its bookmark; the simulator now shows that as the real server does.
import https from 'node:https'
import { inflateRawSync } from 'node:zlib'
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
})
