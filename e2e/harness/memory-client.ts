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
