// Length-prefixed framing: a real protobuf watch body (testdata/, kube-apiserver v1.37.2) cut into
// chunks at every byte gives the frames of the whole body; a body cut inside a frame says so.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ByteFrameFramer } from './frames.ts'

const body = new Uint8Array(readFileSync(join(import.meta.dirname, 'testdata', 'pods-streaming-list.pb')))

/** The frames as hex (a string compares in one step where 10k cuts of number arrays took 18 s). */
function framesOf(chunks: Uint8Array[]): { frames: string[]; rest: string } {
  const f = new ByteFrameFramer()
  const frames: string[] = []
  for (const c of chunks) {
    f.push(c)
    while (f.next()) frames.push(Buffer.from(f.buf.buffer, f.buf.byteOffset + f.start, f.end - f.start).toString('hex'))
  }
  return { frames, rest: f.rest() }
}

describe('ByteFrameFramer', () => {
  const whole = framesOf([body])

  it('frames a whole body: 5 frames, each its prefix long, nothing left', () => {
    expect(whole.frames.map((f) => f.length / 2)).toEqual([2299, 2600, 2600, 2600, 145])
    expect(whole.rest).toBe('')
  })

  it('gives the same frames for a body cut into two chunks at every byte, and into 1-byte chunks', () => {
    for (let cut = 0; cut <= body.length; cut++) {
      expect(framesOf([body.subarray(0, cut), body.subarray(cut)])).toEqual(whole)
    }
    expect(framesOf(Array.from(body, (_, i) => body.subarray(i, i + 1)))).toEqual(whole)
  })

  it('says what is unfinished when the body ends inside a prefix or a frame', () => {
    expect(framesOf([body.subarray(0, 2)]).rest).toBe('2 bytes of a length prefix')
    expect(framesOf([body.subarray(0, 104)]).rest).toBe('100 of a 2299-byte frame')
    expect(framesOf([body.subarray(0, 4 + 2299)]).frames.length).toBe(1)
  })
})
