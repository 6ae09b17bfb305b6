// Large lines of a pod watch (docs/behaviour.md §14, "Large lines"), over a body the test pushes
// chunk by chunk: a large pod is held while lines behind it are waiting and converted once the
// input has nothing more, order per uid and at bookmarks is kept, and a body that ends or breaks
// hands out the held lines before its end or failure. Over a real HTTPS socket: what holds
// whatever the timing of its records; and the pods stream counts held lines in its stats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listBody, podObject, replicaSetObject, sendJson, startFakeApiServer, startWatchBody, type FakeApiServer } from '../../e2e/harness/fake-apiserver.ts'
import { pushedBody } from '../../e2e/harness/memory-client.ts'
import { waitFor } from '../../e2e/harness/wait.ts'
import { createModelContext } from '../model/context.ts'
import type { PodMeta } from '../model/types.ts'
import { KubeTransportError } from './errors.ts'
import { podsResource, replicaSetsResource } from './resources.ts'
import { watchPods } from './stream.ts'
import { openWatch, type WatchItem } from './watch.ts'

const spec = podsResource(createModelContext())
/** 200 KiB of annotation: past the 64 KiB a line needs to be held. */
const BIG = 200 * 1024

const pod = (name: string, rv: number, padding = 0) => podObject({ name, rv, ip: '10.0.0.1', padding })
/** What an item says: `name@own rv → resume rv`. */
const show = (i: WatchItem<PodMeta> | null): string =>
  i === null ? 'end' : i.type === 'ERROR' ? 'ERROR' : i.type === 'BOOKMARK' ? `BOOKMARK → ${i.resourceVersion}` : `${i.object?.name}@${i.object?.resourceVersion} → ${i.resourceVersion}`

/** A pods watch over a body the test pushes, and a writer of its lines. */
async function pushedWatch() {
  const body = pushedBody()
  const conn = await openWatch(body.client, spec, { streamingList: false, resourceVersion: '1', timeoutSeconds: 60, idleTimeoutMs: 10_000 })
  const write = (...events: Array<readonly [string, object]>): void => body.push(events.map(([type, object]) => JSON.stringify({ type, object }) + '\n').join(''))
  return { conn, body, write }
}

describe('openWatch: large pod lines', () => {
  it('pods behind a large one come first; it is converted when the input has nothing more', async () => {
    const { conn, body, write } = await pushedWatch()
    write(['ADDED', pod('a', 10)], ['ADDED', pod('big', 11, BIG)], ['ADDED', pod('b', 12)])
    write(['MODIFIED', pod('c', 13)])
    const got = [await conn.next(), await conn.next(), await conn.next(), await conn.next()].map(show)
    expect(got).toStrictEqual(['a@10 → 10', 'b@12 → 10', 'c@13 → 10', 'big@11 → 13'])
    write(['ADDED', pod('d', 14)])
    expect(show(await conn.next())).toBe('d@14 → 14')
    body.end()
    expect(show(await conn.next())).toBe('end')
  })

  it('keeps order per uid and at a bookmark', async () => {
    const { conn, body, write } = await pushedWatch()
    write(['ADDED', pod('x', 11, BIG)], ['MODIFIED', pod('x', 12)], ['ADDED', pod('y', 13)], ['ADDED', pod('z', 14, BIG)])
    body.push(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '15' } } }) + '\n')
    write(['ADDED', pod('w', 16)])
    const got: string[] = []
    for (let i = 0; i < 6; i++) got.push(show(await conn.next()))
    expect(got).toStrictEqual(['y@13 → ', 'x@11 → 11', 'x@12 → 13', 'z@14 → 14', 'BOOKMARK → 15', 'w@16 → 16'])
  })

  // A large line is held by the uid JSON.parse and the scanner read: of duplicated keys, the last.
  it.each([
    ['uid', (t: string) => t.replace('"uid":"uid-x"', '"uid":"uid-decoy","uid":"uid-x"')],
    ['metadata', (t: string) => t.replace('"metadata":', '"metadata":{"uid":"uid-decoy"},"metadata":')],
    ['object', (t: string) => t.replace('"object":', '"object":{"metadata":{"uid":"uid-decoy"}},"object":')],
  ])('a large line with a duplicated %s key: its pod\'s later events stay behind it', async (_key, twice) => {
    const { conn, body, write } = await pushedWatch()
    const big = twice(JSON.stringify({ type: 'ADDED', object: pod('x', 11, BIG) }))
    expect(big).toContain('uid-decoy')
    body.push(big + '\n')
    write(['MODIFIED', pod('x', 12)], ['ADDED', pod('y', 13)], ['MODIFIED', pod('x', 14)])
    const got: string[] = []
    for (let i = 0; i < 4; i++) got.push(show(await conn.next()))
    expect(got).toStrictEqual(['y@13 → ', 'x@11 → 11', 'x@12 → 13', 'x@14 → 14'])
  })

  it('ReplicaSets (the JSON.parse path) hold large lines too', async () => {
    const body = pushedBody()
    const conn = await openWatch(body.client, replicaSetsResource(createModelContext()), { streamingList: false, resourceVersion: '1', timeoutSeconds: 60, idleTimeoutMs: 10_000 })
    const rs = (name: string, rv: number, pad = 0) => ({ ...replicaSetObject({ name, rv }, true), ...(pad ? { pad: 'x'.repeat(pad) } : {}) })
    body.push([['ADDED', rs('big', 11, BIG)], ['ADDED', rs('small', 12)]].map(([type, object]) => JSON.stringify({ type, object }) + '\n').join(''))
    const got = [await conn.next(), await conn.next()].map((i) => (i?.type === 'ADDED' ? `${i.object?.name}@${i.object?.resourceVersion} → ${i.resourceVersion}` : String(i)))
    expect(got).toStrictEqual(['small@12 → ', 'big@11 → 12'])
  })

  it('a body that ends or breaks hands out its held lines first', async () => {
    const ended = await pushedWatch()
    ended.write(['ADDED', pod('big', 11, BIG)])
    ended.body.end()
    expect([show(await ended.conn.next()), show(await ended.conn.next())]).toStrictEqual(['big@11 → 11', 'end'])

    const broken = await pushedWatch()
    broken.write(['ADDED', pod('big1', 11, BIG)], ['ADDED', pod('big2', 12, BIG)], ['ADDED', pod('s', 13)])
    broken.body.push('{"type":"ADDED","object":{"metadata"')
    broken.body.fail(new KubeTransportError('connection reset'))
    const got: string[] = []
    const failure = await (async () => {
      try {
        for (let i = 0; i < 5; i++) got.push(show(await broken.conn.next()))
      } catch (err) {
        return err
      }
    })()
    expect(got).toStrictEqual(['s@13 → ', 'big1@11 → 11', 'big2@12 → 13'])
    expect(failure).toBeInstanceOf(KubeTransportError)
  })
})

describe('over a real HTTPS socket', () => {
  let api: FakeApiServer
  beforeAll(async () => {
    api = await startFakeApiServer()
  })
  afterAll(async () => {
    await api.close()
  })

  it('large and ordinary pods interleaved: each once, in order per uid, the resume point at the last line at the end', async () => {
    // When a large line is converted depends on when TLS records arrive; what holds whatever the timing is checked.
    const written: string[] = []
    api.script('/api/v1/pods', (_r, res) => {
      const w = startWatchBody(res)
      let rv = 10
      for (let i = 0; i < 40; i++) {
        const name = i % 4 === 0 ? `big-${i % 8}` : `p-${i}`
        w.event('MODIFIED', pod(name, rv, name.startsWith('big') ? BIG : 0))
        written.push(`${name}@${rv++}`)
      }
      w.bookmark(rv)
      w.end()
    })
    const conn = await openWatch(api.client(), spec, { streamingList: false, resourceVersion: '1', timeoutSeconds: 60, idleTimeoutMs: 10_000 })
    const items: WatchItem<PodMeta>[] = []
    for (let item = await conn.next(); item; item = await conn.next()) items.push(item)
    const events = items.flatMap((i) => (i.type === 'MODIFIED' ? [`${i.object!.name}@${i.object!.resourceVersion}`] : []))
    expect([...events].sort()).toStrictEqual([...written].sort())
    for (const name of ['big-0', 'big-4']) expect(events.filter((e) => e.startsWith(`${name}@`))).toStrictEqual(written.filter((e) => e.startsWith(`${name}@`)))
    expect(show(items.at(-1)!)).toBe('BOOKMARK → 50')
    // A resume point is exact: every line written up to it has been handed out by then.
    const rvs = written.map((w) => w.split('@')[1])
    for (const [k, i] of items.slice(0, -1).entries()) {
      if (i.type !== 'MODIFIED' || i.resourceVersion === '') continue
      const handedOut = new Set(events.slice(0, k + 1))
      expect(written.slice(0, rvs.indexOf(i.resourceVersion) + 1).filter((w) => !handedOut.has(w)), `resume point ${i.resourceVersion} at item ${k}`).toStrictEqual([])
    }
  })

  it('watchPods counts held lines and stamps their events', async () => {
    api.fallback = (req, res) => {
      if (req.query.get('watch') !== '1') return sendJson(res, 200, listBody('PodList', [], 5))
      const w = startWatchBody(res)
      w.event('ADDED', pod('big', 6, BIG))
      w.event('ADDED', pod('small', 7))
    }
    const client = api.client()
    client.watchList = 'unsupported' // a paginated LIST, then the watch
    const ctrl = new AbortController()
    const stream = watchPods(client, { signal: ctrl.signal })
    const names: string[] = []
    const reading = (async () => {
      // A held line's event carries when it was read (the collector's latency counts from there).
      for await (const ev of stream) if (ev.type === 'apply') names.push(`${ev.object.name}${ev.receivedAt === undefined ? '' : ' (held)'}`)
    })()
    await waitFor('both pods', () => (names.length === 2 ? true : undefined))
    expect(names).toStrictEqual(['small', 'big (held)'])
    expect(stream.stats.heldLines).toBe(1)
    ctrl.abort()
    await reading
  })
})
