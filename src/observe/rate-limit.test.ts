// Rate-limited logging: one line per key and interval, with the suppressed count.
import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { createRateLimitedLog, type LogSink } from './rate-limit.ts'

function recordingSink(): LogSink & { lines: Array<[string, unknown[]]> } {
  const lines: Array<[string, unknown[]]> = []
  const at = (level: string) => (...args: unknown[]) => void lines.push([level, args])
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') }
}

describe('rate-limited log', () => {
  it('writes a key at most once per interval and reports the repeats it suppressed', async () => {
    const clock = createFakeClock(1_000)
    const sink = recordingSink()
    const rl = createRateLimitedLog(sink, { intervalMs: 100, clock })
    expect(rl.warn('k', 'shortened a field', { uid: 'a' })).toBe(true)
    await clock.advance(10)
    expect(rl.warn('k', 'shortened a field')).toBe(false)
    await clock.advance(89)
    expect(rl.warn('k', 'shortened a field')).toBe(false)
    expect(rl.suppressed('k')).toBe(2)
    await clock.advance(1)
    expect(rl.warn('k', 'shortened a field', 'x')).toBe(true)
    expect(sink.lines).toEqual([
      ['warn', ['shortened a field', { uid: 'a' }]],
      ['warn', ['shortened a field (2 repeats suppressed)', 'x']],
    ])
    expect(rl.suppressed('k')).toBe(0)
  })

  it('limits keys independently and at the requested level', () => {
    const sink = recordingSink()
    const rl = createRateLimitedLog(sink, { intervalMs: 1_000, clock: createFakeClock(0) })
    rl.error('a', 'A')
    rl.info('b', 'B')
    rl.error('a', 'A')
    rl.log('debug', 'c', 'C')
    expect(sink.lines.map(([level, args]) => `${level}:${args[0]}`)).toEqual(['error:A', 'info:B', 'debug:C'])
  })

  it('forgets the least recently written keys beyond maxKeys', () => {
    const sink = recordingSink()
    const rl = createRateLimitedLog(sink, { intervalMs: 1_000, maxKeys: 2, clock: createFakeClock(0) })
    rl.warn('a', 'A')
    rl.warn('b', 'B')
    rl.warn('c', 'C') // evicts a
    expect(rl.warn('a', 'A')).toBe(true)
    expect(rl.warn('c', 'C')).toBe(false)
  })

  it('writes a forgotten key at once, without the count of what it suppressed before', async () => {
    const sink = recordingSink()
    const rl = createRateLimitedLog(sink, { intervalMs: 1_000, clock: createFakeClock(0) })
    rl.warn('a', 'A')
    rl.warn('a', 'A')
    rl.forget('a')
    expect(rl.warn('a', 'A')).toBe(true)
    expect(sink.lines.map(([, args]) => args[0])).toEqual(['A', 'A'])
  })
})
