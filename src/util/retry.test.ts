// The retry wrapper on fake time: it waits after a failure before pulling the source again.
import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { retryAfterFailures, type Retried } from './retry.ts'

type Attempt = { readonly n: number; readonly failed?: boolean }

describe('retryAfterFailures', () => {
  it('passes items on and pulls the source again only once the delay after a failure has passed', async () => {
    const clock = createFakeClock(0)
    const pulled: number[] = []
    async function* attempts(): AsyncGenerator<Attempt> {
      for (const a of [{ n: 1 }, { n: 2, failed: true }, { n: 3 }]) {
        pulled.push(clock.now())
        yield a
      }
    }
    const seen: Retried<Attempt>[] = []
    const done = (async () => {
      for await (const a of retryAfterFailures(attempts(), { delayAfter: (a) => (a.failed ? 500 : undefined), clock })) seen.push(a)
    })()
    await clock.advance(499)
    expect(seen).toEqual([{ n: 1 }, { n: 2, failed: true, retryInMs: 500 }])
    expect(pulled).toEqual([0, 0])
    await clock.advance(1)
    await done
    expect(seen.at(-1)).toEqual({ n: 3 })
    expect(pulled).toEqual([0, 0, 500])
  })

  it('cuts the wait short when the signal aborts', async () => {
    const clock = createFakeClock(0)
    const ctrl = new AbortController()
    async function* attempts(): AsyncGenerator<Attempt> {
      yield { n: 1, failed: true }
      if (!ctrl.signal.aborted) yield { n: 2 }
    }
    const seen: number[] = []
    const done = (async () => {
      for await (const a of retryAfterFailures(attempts(), { delayAfter: () => 60_000, clock, signal: ctrl.signal })) seen.push(a.n)
    })()
    await clock.settle()
    expect(clock.pending).toBe(1)
    ctrl.abort()
    await done
    expect(seen).toEqual([1])
    expect(clock.pending).toBe(0)
  })
})
