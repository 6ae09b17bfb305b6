// A response whose body is a Node readable's chunks, as node:http(s) (node-transport.ts) and
// node:http2 (h2-transport.ts) hand it over: read, read whole into a pooled buffer, close.
import { pooledBytes, type BodyBuffers } from './body-buffers.ts'
import { KubeAbortedError, transportError } from './errors.ts'
import type { RequestGuard } from './request-guard.ts'
import { bodyReaders, type KubeResponse } from './transport.ts'

/** What differs between the transports around one body. */
export interface StreamBody {
  readonly status: number
  header(name: string): string | undefined
  /** The body's chunks (the readable's async iterator: paused mode, bounded by its buffering). */
  readonly chunks: AsyncIterator<Uint8Array>
  readonly guard: RequestGuard
  readonly buffers: BodyBuffers
  /** At the body's end, unless closed: throws when it was not a clean end (a reset, a cut connection). */
  checkEnd(): void
  /** Whether an iterator failure is the clean end after all (a runtime's quirk). Default: never. */
  cleanEnd?(err: unknown): boolean
  /** On every chunk received. */
  onChunk?(): void
  /** Once, when the body is over or closed. */
  onFinish?(): void
}

/** The {@link KubeResponse} of `body`: reads kick its guard, failures say why the request was closed first. */
export function streamResponse(body: StreamBody): KubeResponse {
  const { chunks, guard, buffers } = body
  let done = false
  const finish = (): void => {
    done = true
    body.onFinish?.()
    guard.cleanup()
  }
  const read = async (): Promise<Uint8Array | null> => {
    if (done) {
      const reason = guard.closedBy()
      if (reason) throw reason
      return null
    }
    guard.kick()
    let r: IteratorResult<Uint8Array>
    try {
      r = await chunks.next()
    } catch (err) {
      if (!body.cleanEnd?.(err)) {
        finish()
        throw guard.closedBy() ?? transportError('response body', err)
      }
      r = { done: true, value: undefined }
    }
    if (r.done) {
      finish()
      const reason = guard.closedBy()
      if (reason) throw reason
      body.checkEnd()
      return null
    }
    body.onChunk?.()
    guard.kick()
    return r.value
  }
  const readers = bodyReaders(read)
  const whole = pooledBytes(readers.chunks, buffers)
  return {
    status: body.status,
    header: (name) => body.header(name),
    read,
    text: readers.text,
    bytes: whole.bytes,
    close(reason = new KubeAbortedError('closed')) {
      whole.release()
      if (done) return
      finish()
      guard.close(reason)
    },
  }
}
