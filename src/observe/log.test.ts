import { afterEach, describe, expect, it, vi } from 'vitest'
import { configureLogger, logger } from './log.ts'

const capture = (isTTY: boolean) => {
  const lines: string[] = []
  return { lines, stream: { isTTY, write: (s: string) => lines.push(s) } }
}

describe('configureLogger', () => {
  afterEach(() => {
    configureLogger({ level: 'info', format: 'json' })
    vi.unstubAllEnvs()
  })

  it('pretty: one line per entry, time, level, tag, message; no escapes off a terminal', () => {
    const { lines, stream } = capture(false)
    configureLogger({ level: 'info', format: 'pretty', stream })
    const log = logger.withTag('run')
    log.info('hello', { n: 1 })
    log.warn('careful')
    log.error(new Error('broken'))
    log.debug('not shown at info')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  \[run\] hello \{"n":1\}\n$/)
    expect(lines[1]).toMatch(/ WARN  \[run\] careful\n$/)
    expect(lines[2]).toMatch(/ ERROR \[run\] broken\n$/)
    expect(lines.join('')).not.toContain('\x1b')
  })

  it('pretty on a terminal: coloured, unless NO_COLOR', () => {
    vi.stubEnv('NO_COLOR', '')
    const { lines, stream } = capture(true)
    configureLogger({ level: 'info', format: 'pretty', stream })
    logger.warn('careful')
    expect(lines[0]).toContain('\x1b[33mWARN \x1b[0m')
    vi.stubEnv('NO_COLOR', '1')
    configureLogger({ level: 'info', format: 'pretty', stream })
    logger.warn('careful')
    expect(lines[1]).not.toContain('\x1b')
  })

  it('json: one object per line', () => {
    const { lines, stream } = capture(true)
    configureLogger({ level: 'debug', format: 'json', stream })
    logger.withTag('tap').debug('x')
    expect(JSON.parse(lines[0]!)).toEqual({ time: expect.any(String), level: 'debug', component: 'tap', msg: 'x' })
  })
})
