// Link configuration defaults and validation.
import { describe, expect, it } from 'vitest'
import { LinkConfigError, resolveLinkConfig } from './config.ts'

describe('resolveLinkConfig', () => {
  it('fills in docs/behaviour.md §7 defaults', () => {
    const c = resolveLinkConfig({ host: 'reducer', port: 8000, hostname: 'node-1' })
    expect(c).toMatchObject({
      host: 'reducer',
      port: 8000,
      hostname: 'node-1',
      labels: [],
      version: { major: 0, minor: 11, patch: 0 },
      heartbeatIntervalMs: 2_000,
      flushDelayMs: 100,
      flushBytes: 61_440,
      connectTimeoutMs: 10_000,
      backoffInitialMs: 1_000,
      backoffMaxMs: 30_000,
      backoffResetAfterMs: 120_000,
      peerSilentMs: 20_000,
      maxBufferedBytes: 16 * 1024 * 1024,
    })
    expect(c.cpuCores).toBeGreaterThanOrEqual(1)
  })

  it('keeps given values and ignores undefined ones', () => {
    const c = resolveLinkConfig({ host: 'h', port: 1, hostname: 'x', heartbeatIntervalMs: 50, flushDelayMs: undefined })
    expect(c.heartbeatIntervalMs).toBe(50)
    expect(c.flushDelayMs).toBe(100)
  })

  it.each([
    [{ host: '', port: 8000 }],
    [{ host: 'h', port: 0 }],
    [{ host: 'h', port: 70_000 }],
    [{ host: 'h', port: 8000, heartbeatIntervalMs: 0 }],
    [{ host: 'h', port: 8000, flushDelayMs: -1 }],
    [{ host: 'h', port: 8000, cpuCores: 1.5 }],
  ])('rejects %o', (opts) => {
    expect(() => resolveLinkConfig({ hostname: 'x', ...opts })).toThrow(LinkConfigError)
  })
})
