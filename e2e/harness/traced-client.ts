// Test support: a KubeWriteClient that notes what it sends (when, on a given clock) and how many
// answers it has read to the end, so a test on fake time can wait for real HTTP to settle.
import type { KubeWriteClient } from '../../src/kube/client.ts'

export interface TracedClient extends KubeWriteClient {
  /** Requests in the order sent, with `now()` at the moment of sending (before any network delay). */
  readonly sent: Array<{ readonly method: string; readonly path: string; readonly at: number }>
  /** Answers read to the end (failures included). */
  readonly answered: number
}

/** Wraps `inner`; `now` stamps the requests (a fake clock's, typically). */
export function traceClient(inner: KubeWriteClient, now: () => number): TracedClient {
  let answered = 0
  const sent: TracedClient['sent'] = []
  const counted = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    try {
      return await f(...a)
    } finally {
      answered++
    }
  }
  return {
    ...inner,
    sent,
    get answered() {
      return answered
    },
    async send(path, opts) {
      sent.push({ method: opts.method, path, at: now() })
      const res = await inner.send(path, opts)
      return { ...res, status: res.status, header: res.header, text: counted(res.text), bytes: counted(res.bytes) }
    },
  }
}
