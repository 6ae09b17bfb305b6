// Response bodies as the API server encoded them (`Content-Encoding`), for every transport: gzip
// decoded here member by member (kube-apiserver sends a watch as one gzip member per flush,
// docs/kube-api.md "Compression"), and the bytes received and decoded counted for the metrics.
import { createGunzip } from 'node:zlib'
import { pooledBytes, type BodyBuffers } from './body-buffers.ts'
import { KubeDecodeError } from './errors.ts'
import { bodyReaders, type KubeResponse } from './transport.ts'

/** Response body bytes of one client so far: as received (compressed or not) and as decoded. */
export interface BodyTraffic {
  wire: number
  decoded: number
}

/** How far one gzip body may expand (a gzip bomb must fail, not fill the memory). */
export interface GunzipLimits {
  /** Compressed bytes fed to the decoder at once: a step decodes at most ~1,032× this (deflate's limit). Default 16 KiB. */
  readonly sliceBytes: number
  /** Decoded bytes beyond which `maxRatio` applies. Default 32 MiB. */
  readonly ratioFromBytes: number
  /** Decoded ÷ received at most (pod JSON compresses 10–30× at kube-apiserver's level 1). Default 256. */
  readonly maxRatio: number
}

export const GUNZIP_LIMITS: GunzipLimits = { sliceBytes: 16 * 1024, ratioFromBytes: 32 * 1024 * 1024, maxRatio: 256 }

/**
 * `res` with its body decoded: gzip (every member, in bounded steps) or none, counted into
 * `traffic`. Throws {@link KubeDecodeError} (after closing `res`) for another content encoding,
 * which the client never asks for. `what` names the request in errors.
 */
export function decodedResponse(res: KubeResponse, traffic: BodyTraffic, buffers: BodyBuffers, what = 'request', limits: GunzipLimits = GUNZIP_LIMITS): KubeResponse {
  const encoding = (res.header('content-encoding') ?? '').trim().toLowerCase()
  if (encoding === '' || encoding === 'identity') return countedResponse(res, traffic)
  if (encoding === 'gzip') return gunzipResponse(res, traffic, buffers, what, limits)
  const err = new KubeDecodeError(`${what}: the API server sent a body in Content-Encoding ${JSON.stringify(encoding)}, which the collector did not ask for`)
  res.close(err)
  throw err
}

function countedResponse(res: KubeResponse, traffic: BodyTraffic): KubeResponse {
  const read = async (): Promise<Uint8Array | null> => {
    const chunk = await res.read()
    if (chunk !== null) {
      traffic.wire += chunk.length
      traffic.decoded += chunk.length
    }
    return chunk
  }
  return {
    status: res.status,
    header: (name) => res.header(name),
    read,
    text: bodyReaders(read).text,
    async bytes(maxBytes) {
      const body = await res.bytes(maxBytes)
      traffic.wire += body.length
      traffic.decoded += body.length
      return body
    },
    close: (reason) => res.close(reason),
  }
}

function gunzipResponse(res: KubeResponse, traffic: BodyTraffic, buffers: BodyBuffers, what: string, limits: GunzipLimits): KubeResponse {
  // Large output chunks: a LIST page decodes to megabytes.
  const gz = createGunzip({ chunkSize: 64 * 1024 })
  const out: Uint8Array[] = []
  let failure: Error | undefined
  let over = false
  gz.on('data', (d: Uint8Array) => out.push(d))
  gz.on('error', (err) => (failure ??= err))
  const finished = new Promise<void>((resolve) => {
    gz.once('end', () => {
      over = true
      resolve()
    })
    gz.once('close', () => resolve())
  })
  let wire = 0
  let decoded = 0
  let input: Uint8Array | undefined
  let inputEnded = false
  let closed = false
  const decodeError = (message: string, cause?: unknown): KubeDecodeError => {
    const err = new KubeDecodeError(`${what}: gzip body ${message}`, cause === undefined ? undefined : { cause })
    close(err)
    return err
  }
  // Resolves once the slice is decoded (its output queued), or the decoder failed or was closed.
  const feed = (slice: Uint8Array): Promise<void> => Promise.race([new Promise<void>((resolve) => gz.write(slice, () => resolve())), finished])
  const read = async (): Promise<Uint8Array | null> => {
    for (;;) {
      const chunk = out.shift()
      if (chunk !== undefined) {
        decoded += chunk.length
        traffic.decoded += chunk.length
        if (decoded > limits.ratioFromBytes && decoded > wire * limits.maxRatio) {
          throw decodeError(`expands more than ${limits.maxRatio}× (${decoded} bytes from ${wire}): refused as a gzip bomb`)
        }
        return chunk
      }
      if (failure) throw decodeError(`cannot be decoded after ${wire} bytes: ${failure.message}`, failure)
      if (over) return null
      // Closed: the response's own read says why (aborted, idle timeout, the reason given).
      if (closed) return res.read()
      if (inputEnded) {
        await finished
        // Ended without 'end': destroyed, or the input stopped inside a member.
        if (!over && !failure) failure = new Error('the body ended inside a gzip member')
        continue
      }
      if (input === undefined || input.length === 0) {
        const got = await res.read()
        if (got === null) {
          inputEnded = true
          gz.end()
          continue
        }
        wire += got.length
        traffic.wire += got.length
        input = got
      }
      // A bounded step: at most ~1,032 × sliceBytes decoded before the caller's limits see them.
      const slice = input.subarray(0, limits.sliceBytes)
      input = input.subarray(slice.length)
      await feed(slice)
    }
  }
  const readers = bodyReaders(read)
  const whole = pooledBytes(readers.chunks, buffers)
  const close = (reason?: Parameters<KubeResponse['close']>[0]): void => {
    whole.release()
    if (closed) return
    closed = true
    out.length = 0
    gz.destroy()
    res.close(reason)
  }
  return {
    status: res.status,
    // The body handed out is decoded: its encoding is no longer gzip.
    header: (name) => (name.toLowerCase() === 'content-encoding' ? undefined : res.header(name)),
    read,
    text: readers.text,
    bytes: whole.bytes,
    close,
  }
}
