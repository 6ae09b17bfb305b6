// The observing adapter: hooks in order, items unchanged, `end` once however the stream stops.
import { describe, expect, it } from 'vitest'
import { observe } from './observe.ts'

function recording<T>(source: AsyncIterable<T>) {
  const seen: string[] = []
  const stream = observe(source, { pull: () => seen.push('pull'), item: (x) => seen.push(`item ${String(x)}`), end: () => seen.push('end') })
  return { seen, stream }
}

async function* numbers(n: number, fail?: Error): AsyncGenerator<number> {
  for (let i = 1; i <= n; i++) yield i
  if (fail) throw fail
}

describe('observe', () => {
  it('tells each pull and item before passing the item on, and the end once', async () => {
    const { seen, stream } = recording(numbers(2))
    const got: number[] = []
    for await (const x of stream) got.push(x)
    expect(got).toEqual([1, 2])
    expect(seen).toEqual(['pull', 'item 1', 'pull', 'item 2', 'pull', 'end'])
  })

  it('closes the source when closed early, and tells the end', async () => {
    let closed = false
    async function* source(): AsyncGenerator<number> {
      try {
        yield 1
        yield 2
      } finally {
        closed = true
      }
    }
    const { seen, stream } = recording(source())
    for await (const x of stream) if (x === 1) break
    expect(closed).toBe(true)
    expect(seen).toEqual(['pull', 'item 1', 'end'])
  })

  it('passes a failure on and tells the end', async () => {
    const boom = new Error('boom')
    const { seen, stream } = recording(numbers(1, boom))
    await expect(
      (async () => {
        for await (const _ of stream);
      })(),
    ).rejects.toBe(boom)
    expect(seen).toEqual(['pull', 'item 1', 'pull', 'end'])
  })
})
