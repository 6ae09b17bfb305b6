// Watch bookmarks (issue 24): about once a minute by default, as a real API server sends them, and one
// just before the server's timeout; only with allowWatchBookmarks; the period can be shortened for tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveOptions } from './options.ts'
import { startSimulator, type Simulator } from './index.ts'
import { watchLines } from './test-client.ts'

let real: Simulator
let fast: Simulator

beforeAll(async () => {
  real = await startSimulator({ nodes: 1, controllers: false })
  fast = await startSimulator({ nodes: 1, controllers: false, bookmarkIntervalMs: 250 })
})
afterAll(async () => {
  await real?.close()
  await fast?.close()
})

describe('bookmarks', () => {
  it('default period is a minute, like the API server', () => {
    expect(resolveOptions({}).bookmarkIntervalMs).toBe(60_000)
  })

  it('with the default period, a 3 s watch gets one bookmark (2 s before its timeout) at the current RV, then a clean end', async () => {
    const rv = real.resourceVersion
    const w = await watchLines(real, `/api/v1/namespaces?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=3`, () => false)
    expect(w.ended).toBe(true)
    expect(w.lines).toEqual([{ type: 'BOOKMARK', object: { kind: 'Namespace', apiVersion: 'v1', metadata: { resourceVersion: String(rv) }, spec: {}, status: {} } }])
  })

  it('a shortened period sends bookmarks repeatedly, carrying the RV of later changes; none without allowWatchBookmarks', async () => {
    const rv = fast.resourceVersion
    const pending = watchLines(fast, `/api/v1/nodes?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`, (l) => l.filter((x) => x.type === 'BOOKMARK').length >= 3)
    const plain = watchLines(fast, `/api/v1/nodes?watch=1&resourceVersion=${rv}&timeoutSeconds=1`, () => false)
    fast.create('namespaces', { metadata: { name: 'moves-the-rv' } }) // not a node: only the bookmarks carry it
    const w = await pending
    const marks = w.lines.filter((l) => l.type === 'BOOKMARK')
    expect(w.lines.every((l) => l.type === 'BOOKMARK')).toBe(true)
    expect(marks.at(-1).object.metadata.resourceVersion).toBe(String(fast.resourceVersion))
    expect((await plain).lines).toEqual([])
  })
})
