// MicroTime: the six-digit form written, every RFC 3339 form a server, kubectl or client may write read.
import { describe, expect, it } from 'vitest'
import { formatMicroTime, normaliseMicroTime, parseMicroTime } from './micro-time.ts'

const T = Date.UTC(2024, 0, 2, 3, 4, 5) * 1000 // 2024-01-02T03:04:05Z in µs

describe('parseMicroTime', () => {
  it.each([
    ['2024-01-02T03:04:05.123456Z', T + 123_456],
    ['2024-01-02T03:04:05.123Z', T + 123_000],
    ['2024-01-02T03:04:05Z', T],
    ['2024-01-02T03:04:05.1Z', T + 100_000],
    ['2024-01-02T03:04:05.123456789Z', T + 123_456],
    ['2024-01-02T05:04:05.000001+02:00', T + 1],
    ['2024-01-01T22:34:05-04:30', T],
    ['2024-01-02t03:04:05z', T],
  ])('%s', (text, micros) => {
    expect(parseMicroTime(text)).toBe(micros)
  })

  it.each(['', 'yesterday', '2024-01-02 03:04:05Z', '2024-01-02T03:04:05', '2024-13-02T03:04:05Z', '2023-02-29T00:00:00Z', '2024-01-02T24:00:00Z', '2024-01-02T03:04:60Z', '2024-01-02T03:04:05.Z', '2024-01-02T03:04:05+2:00'])(
    'rejects %j',
    (text) => {
      expect(parseMicroTime(text)).toBeUndefined()
    },
  )
})

describe('formatMicroTime', () => {
  it.each([
    [T + 123_456, '2024-01-02T03:04:05.123456Z'],
    [T, '2024-01-02T03:04:05.000000Z'],
    [T + 7, '2024-01-02T03:04:05.000007Z'],
    [T + 999_999.75, '2024-01-02T03:04:05.999999Z'],
  ])('%d → %s', (micros, text) => {
    expect(formatMicroTime(micros)).toBe(text)
    expect(parseMicroTime(text)).toBe(Math.floor(micros))
  })
})

describe('normaliseMicroTime', () => {
  it('rewrites parsable times in the six-digit UTC form and keeps anything else as it is', () => {
    expect(normaliseMicroTime('2024-01-02T05:04:05.5+02:00')).toBe('2024-01-02T03:04:05.500000Z')
    expect(normaliseMicroTime('garbage')).toBe('garbage')
    // Exact beyond the safe-integer range of microseconds, and for years below 100.
    expect(normaliseMicroTime('2999-12-31T23:59:59.999999Z')).toBe('2999-12-31T23:59:59.999999Z')
    expect(normaliseMicroTime('0050-06-01T00:00:00.000001+01:00')).toBe('0050-05-31T23:00:00.000001Z')
  })
})
