import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ByteLineFramer } from './lines.ts'

const enc = new TextEncoder()

/** The lines of `f` for the next chunk, decoded. */
function push(f: ByteLineFramer, chunk: Uint8Array): string[] {
  const lines: string[] = []
  f.push(chunk)
  while (f.next()) lines.push(f.text())
  return lines
}

function frame(chunks: Uint8Array[]): { lines: string[]; rest: string } {
  const f = new ByteLineFramer()
  const lines: string[] = []
  for (const c of chunks) lines.push(...push(f, c))
  return { lines, rest: f.rest() }
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = []
  let start = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    out.push(bytes.subarray(start, cut))
    start = cut
  }
  out.push(bytes.subarray(start))
  return out
}

describe('ByteLineFramer', () => {
  const lines = ['{"type":"ADDED","object":{"name":"é-pod"}}', '{"a":"😀 emoji across chunks"}', '', '{"b":"日本語"}', '{"c":1}']
  const body = enc.encode(lines.join('\n') + '\n')

  it('yields the same lines at every single split point', () => {
    for (let cut = 0; cut <= body.length; cut++) {
      const got = frame(splitAt(body, [cut]))
      expect(got.lines, `cut at ${cut}`).toEqual(lines)
      expect(got.rest).toBe('')
    }
  })

  it('yields the same lines at every pair of split points', () => {
    for (let a = 0; a <= body.length; a++) {
      for (let b = a; b <= body.length; b += 3) {
        expect(frame(splitAt(body, [a, b])).lines, `cuts ${a},${b}`).toEqual(lines)
      }
    }
  })

  it('yields the same lines when every byte is its own chunk', () => {
    const chunks = Array.from(body, (_, i) => body.subarray(i, i + 1))
    expect(frame(chunks).lines).toEqual(lines)
  })

  it('matches a plain split for random text and random chunking (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (parts, cutSeeds) => {
        const clean = parts.map((p) => p.replaceAll('\n', ' ').replace(/[\ud800-\udfff]/g, '?'))
        const bytes = enc.encode(clean.map((p) => p + '\n').join(''))
        const cuts = cutSeeds.map((s) => (bytes.length ? s % (bytes.length + 1) : 0))
        const got = frame(splitAt(bytes, cuts))
        expect(got.lines).toEqual(clean)
        expect(got.rest).toBe('')
      }),
    )
  })

  it('joins a long line spread over many chunks once', () => {
    const long = 'x'.repeat(200_000)
    const bytes = enc.encode(`{"v":"${long}"}\n{"w":2}\n`)
    const chunks: Uint8Array[] = []
    for (let i = 0; i < bytes.length; i += 1000) chunks.push(bytes.subarray(i, i + 1000))
    const got = frame(chunks)
    expect(got.lines).toHaveLength(2)
    expect(JSON.parse(got.lines[0]).v).toHaveLength(200_000)
    expect(got.lines[1]).toBe('{"w":2}')
  })

  it('reports a truncated last line through rest()', () => {
    const f = new ByteLineFramer()
    expect(push(f, enc.encode('{"a":1}\n{"b":'))).toEqual(['{"a":1}'])
    expect(f.pendingLength).toBe(5)
    expect(f.rest()).toBe('{"b":')
    expect(f.rest()).toBe('')
  })

  it('keeps a carriage return for JSON.parse to ignore', () => {
    expect(frame([enc.encode('{"a":1}\r\n')]).lines).toEqual(['{"a":1}\r'])
  })
})
