// A KubeClient without sockets: every GET answers 200 with the given body chunks. For tests and
// benchmarks of the decode path (framing, scanning, converting) alone.
import { bodyReaders, type KubeClient, type KubeResponse } from '../../src/kube/client.ts'
import { fetchListPage, type ListPage } from '../../src/kube/list.ts'
import type { KubeObject, ResourceSpec } from '../../src/kube/resources.ts'
import { openWatch, type WatchItem } from '../../src/kube/watch.ts'

export function memoryClient(chunks: readonly Uint8Array[]): KubeClient {
  return {
    server: 'memory://',
    watchList: 'unknown',
    async get() {
      let at = 0
      const read = async (): Promise<Uint8Array | null> => (at < chunks.length ? chunks[at++]! : null)
      const res: KubeResponse = { status: 200, header: () => undefined, read, ...bodyReaders(read), close: () => {} }
      return res
    },
  }
}

/** A KubeClient whose one GET body the test writes chunk by chunk: a read waits while nothing is pushed. */
export interface PushedBody {
  readonly client: KubeClient
  push(text: string): void
  /** The clean end of the body. */
  end(): void
  /** Pending and later reads reject with `err` (a dropped connection). */
  fail(err: Error): void
}

export function pushedBody(): PushedBody {
  const queue: Array<Uint8Array | null | Error> = []
  let waiting: ((v: Uint8Array | null | Error) => void) | undefined
  const put = (v: Uint8Array | null | Error): void => {
    if (waiting) {
      const w = waiting
      waiting = undefined
      w(v)
    } else queue.push(v)
  }
  const read = async (): Promise<Uint8Array | null> => {
    const v = queue.length > 0 ? queue.shift()! : await new Promise<Uint8Array | null | Error>((resolve) => (waiting = resolve))
    if (v instanceof Error) throw v
    return v
  }
  const enc = new TextEncoder()
  return {
    client: {
      server: 'memory://',
      watchList: 'unknown',
      async get() {
        return { status: 200, header: () => undefined, read, ...bodyReaders(read), close: () => {} }
      },
    },
    push: (text) => put(enc.encode(text)),
    end: () => put(null),
    fail: (err) => put(err),
  }
}

/** `b` cut at the offsets `at` (ascending): the chunks a body may arrive in. */
export function cuts(b: Uint8Array, ...at: number[]): Uint8Array[] {
  const out: Uint8Array[] = []
  let start = 0
  for (const c of at) {
    out.push(b.subarray(start, c))
    start = c
  }
  out.push(b.subarray(start))
  return out
}

/** One LIST page of `spec` read from `chunks` (fetchListPage), or the error it threw as `Name: message`. */
export async function listVia<T extends KubeObject>(spec: ResourceSpec<T>, chunks: Uint8Array[]): Promise<ListPage<T> | { error: string }> {
  try {
    return await fetchListPage(memoryClient(chunks), spec, { limit: 500, idleTimeoutMs: 5000 })
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` }
  }
}

/** Every item of a watch body of `spec` read from `chunks` (openWatch), then the error that ended it, if any. */
export async function watchVia<T extends KubeObject>(spec: ResourceSpec<T>, chunks: Uint8Array[]): Promise<(WatchItem<T> | { error: string })[]> {
  const conn = await openWatch(memoryClient(chunks), spec, { streamingList: false, resourceVersion: '1', timeoutSeconds: 60, idleTimeoutMs: 5000 })
  const out: (WatchItem<T> | { error: string })[] = []
  try {
    for (let item = await conn.next(); item; item = await conn.next()) out.push(item)
  } catch (err) {
    out.push({ error: `${(err as Error).name}: ${(err as Error).message}` })
  }
  return out
}
