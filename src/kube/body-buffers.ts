// Buffers for whole response bodies (LIST pages), reused across requests of one client: a page is
// ~2.5 MB at 500 pods, and a fresh buffer per page left the freed ones in the allocator's heap
// (bench/README.md, "Issue 16: Deno memory").
import { concatBytes } from '../bytes.ts'

/** A client's spare body buffers. */
export interface BodyBuffers {
  /**
   * A buffer of at least `min` bytes: the largest spare when it is large enough (a body of unknown
   * length then fits without growing, as the one before it did), else a new one.
   */
  take(min: number): Uint8Array
  /** Returns a buffer nothing reads any more; the largest few are kept. */
  give(buf: Uint8Array): void
}

/**
 * Creates a pool keeping at most `keep` spare buffers (one per list that may run at a time: pods,
 * replicasets, jobs), the largest ones.
 */
export function createBodyBuffers(keep = 3): BodyBuffers {
  const spare: Uint8Array[] = []
  return {
    take(min) {
      let best = -1
      for (let i = 0; i < spare.length; i++) if (best < 0 || spare[i]!.length > spare[best]!.length) best = i
      if (best < 0 || spare[best]!.length < min) return new Uint8Array(min)
      return spare.splice(best, 1)[0]!
    },
    give(buf) {
      if (buf.byteOffset !== 0 || buf.length !== buf.buffer.byteLength || buf.length === 0) return
      spare.push(buf)
      if (spare.length > keep) {
        spare.sort((a, b) => b.length - a.length)
        spare.length = keep
      }
    },
  }
}

/**
 * A response's `bytes()` over its body's `chunks` reader: one chunk is handed out as it is, more
 * are joined in a buffer of `buffers`, kept until `release()` (the response's close) gives it back.
 */
export function pooledBytes(
  chunks: (maxBytes?: number) => Promise<{ chunks: Uint8Array[]; length: number }>,
  buffers: BodyBuffers,
): { bytes(maxBytes?: number): Promise<Uint8Array>; release(): void } {
  let pooled: Uint8Array | undefined
  return {
    async bytes(maxBytes) {
      const got = await chunks(maxBytes)
      if (got.chunks.length > 1) pooled = buffers.take(got.length)
      return concatBytes(got.chunks, got.length, pooled)
    },
    release() {
      if (pooled) buffers.give(pooled)
      pooled = undefined
    },
  }
}
