// A KubeClient without sockets: every GET answers 200 with the given body chunks. For tests and
// benchmarks of the decode path (framing, scanning, converting) alone.
import { bodyReaders, type KubeClient, type KubeResponse } from '../../src/kube/client.ts'

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
