// A failed response as a KubeApiError: the Status object, and Retry-After in both of its forms.
import { describe, expect, it } from 'vitest'
import { bodyReaders, type KubeResponse } from './client.ts'
import { responseError } from './status.ts'

function response(status: number, body: string, retryAfter?: string): KubeResponse {
  const chunks = [new TextEncoder().encode(body)]
  const read = async (): Promise<Uint8Array | null> => chunks.shift() ?? null
  return { status, header: (name) => (name === 'retry-after' ? retryAfter : undefined), read, ...bodyReaders(read), close: () => {} }
}

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0)
const status429 = JSON.stringify({ kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'slow down' })

describe('responseError', () => {
  it('takes status, reason and message from the Status body', async () => {
    const err = await responseError(response(429, status429), NOW)
    expect(err).toMatchObject({ status: 429, reason: 'TooManyRequests', message: 'HTTP 429 TooManyRequests: slow down', retryAfterMs: undefined })
  })

  it.each([
    ['delta-seconds', '3', 3000],
    ['an HTTP date, counted from the caller’s clock', 'Wed, 25 Nov 2026 12:00:07 GMT', 7000],
    ['a date already past', 'Wed, 25 Nov 2026 11:59:00 GMT', 0],
    ['neither', 'soon', undefined],
  ])('reads Retry-After given as %s', async (_form, header, ms) => {
    expect((await responseError(response(503, status429, header), NOW)).retryAfterMs).toBe(ms)
  })

  it('falls back to the HTTP status when the body is no Status object', async () => {
    expect(await responseError(response(502, '<html>bad gateway</html>'), NOW)).toMatchObject({ status: 502, reason: '' })
  })
})
