import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { createBodyBuffers } from './body-buffers.ts'
import { KubeDecodeError } from './errors.ts'
import { decodedResponse, GUNZIP_LIMITS, type BodyTraffic } from './response-encoding.ts'
import { bodyReaders, type KubeResponse } from './transport.ts'

/** A response whose body is `chunks`, with `headers`; records close(). */
function responseOf(chunks: Uint8Array[], headers: Record<string, string> = {}): KubeResponse & { closed: boolean } {
  let at = 0
  const read = async (): Promise<Uint8Array | null> => (at < chunks.length ? chunks[at++]! : null)
  const res = {
    status: 200,
    closed: false,
    header: (name: string) => headers[name.toLowerCase()],
    read,
    ...bodyReaders(read),
    close() {
      res.closed = true
    },
  }
  return res
}

/** `bytes` cut into pieces of `size` bytes. */
const cut = (bytes: Uint8Array, size: number): Uint8Array[] => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))

const concat = (parts: Uint8Array[]): Uint8Array => Buffer.concat(parts)
const lines = Array.from({ length: 200 }, (_, i) => `{"type":"ADDED","object":{"metadata":{"name":"pod-${i}"}}}\n`)
const members = concat(lines.map((l) => gzipSync(l)))
const text = lines.join('')

describe('decodedResponse', () => {
  it.each([1, 7, 4096, members.length])('decodes every gzip member, the body cut in pieces of %i bytes, and counts both sizes', async (size) => {
    const traffic: BodyTraffic = { wire: 0, decoded: 0 }
    const res = decodedResponse(responseOf(cut(members, size), { 'content-encoding': 'gzip' }), traffic, createBodyBuffers())
    expect(res.header('content-encoding')).toBeUndefined()
    expect(await res.text()).toBe(text)
    expect(traffic).toEqual({ wire: members.length, decoded: text.length })
  })

  it('reads bytes() of a gzip body whole', async () => {
    const res = decodedResponse(responseOf(cut(members, 1000), { 'content-encoding': 'gzip' }), { wire: 0, decoded: 0 }, createBodyBuffers())
    expect(new TextDecoder().decode(await res.bytes())).toBe(text)
  })

  it('counts an uncompressed body once each way', async () => {
    const traffic: BodyTraffic = { wire: 0, decoded: 0 }
    const body = new TextEncoder().encode(text)
    const res = decodedResponse(responseOf(cut(body, 100)), traffic, createBodyBuffers())
    expect(await res.text()).toBe(text)
    expect(traffic).toEqual({ wire: body.length, decoded: body.length })
  })

  it.each([
    ['a body cut inside a member', members.subarray(0, members.length - 3), /gzip body cannot be decoded.*ended inside a gzip member|unexpected end/],
    ['a member with a wrong CRC', (() => { const m = Buffer.from(members); m[m.length - 6] ^= 0xff; return m })(), /gzip body cannot be decoded/],
    ['bytes that are not gzip', new TextEncoder().encode(text), /gzip body cannot be decoded/],
  ])('fails %s with KubeDecodeError and closes the response', async (_what, body, message) => {
    const inner = responseOf(cut(body, 512), { 'content-encoding': 'gzip' })
    const res = decodedResponse(inner, { wire: 0, decoded: 0 }, createBodyBuffers(), 'pods watch')
    const err = await res.text().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KubeDecodeError)
    expect((err as Error).message).toMatch(/^pods watch: /)
    expect((err as Error).message).toMatch(message)
    expect(inner.closed).toBe(true)
  })

  it('refuses a gzip bomb once past the limits, having decoded a bounded amount', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024), { level: 9 })
    const limits = { ...GUNZIP_LIMITS, ratioFromBytes: 1024 * 1024 }
    const traffic: BodyTraffic = { wire: 0, decoded: 0 }
    const res = decodedResponse(responseOf([bomb], { 'content-encoding': 'gzip' }), traffic, createBodyBuffers(), 'pods LIST', limits)
    const err = await res.bytes().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KubeDecodeError)
    expect((err as Error).message).toMatch(/pods LIST: gzip body expands more than 256× .*gzip bomb/)
    // One slice of input at most past the limit: ~1,032 × 16 KiB.
    expect(traffic.decoded).toBeLessThan(limits.ratioFromBytes + 1032 * GUNZIP_LIMITS.sliceBytes + 64 * 1024)
  })

  it('rejects a pending read with the reason the response was closed for', async () => {
    // The first member, then a body that waits until closed (a watch between events).
    let closedWith: Error | undefined
    let wake = (): void => {}
    let sent = false
    const inner: KubeResponse = {
      status: 200,
      header: (name) => (name === 'content-encoding' ? 'gzip' : undefined),
      async read() {
        if (!sent) {
          sent = true
          return members.subarray(0, gzipSync(lines[0]!).length)
        }
        if (!closedWith) await new Promise<void>((resolve) => (wake = resolve))
        throw closedWith
      },
      text: async () => '',
      bytes: async () => new Uint8Array(0),
      close(reason) {
        closedWith = reason ?? new Error('closed')
        wake()
      },
    }
    const res = decodedResponse(inner, { wire: 0, decoded: 0 }, createBodyBuffers())
    expect(new TextDecoder().decode((await res.read())!)).toBe(lines[0])
    const pending = res.read()
    const reason = new KubeDecodeError('closed by the test')
    res.close(reason)
    await expect(pending).rejects.toBe(reason)
    await expect(res.read()).rejects.toBe(reason)
  })

  it('refuses a content encoding it did not ask for', () => {
    const inner = responseOf([new Uint8Array(3)], { 'content-encoding': 'br' })
    expect(() => decodedResponse(inner, { wire: 0, decoded: 0 }, createBodyBuffers())).toThrow(/Content-Encoding "br"/)
    expect(inner.closed).toBe(true)
  })
})
