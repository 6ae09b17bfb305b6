// Event bodies as the API server takes them: MicroTime with six digits, no deprecated* field through
// events.k8s.io, the core/v1 names and legacy fields, notes and names within their limits.
import { describe, expect, it } from 'vitest'
import { createBody, eventName, eventsPath, seriesPatch, type EventObject } from './wire.ts'

const regarding = { apiVersion: 'v1', kind: 'Pod', namespace: 'obs', name: 'collector-7f9c', uid: 'u-1' }
const t0 = Date.UTC(2026, 0, 2, 3, 4, 5, 678)
const ev = (over: Partial<EventObject> = {}): EventObject => ({
  spec: { regarding, type: 'Warning', reason: 'ReducerUnreachable', action: 'Connect', note: 'Cannot connect' },
  name: 'collector-7f9c.1a',
  firstAt: t0,
  count: 1,
  lastAt: t0,
  ...over,
})
const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/

describe('event wire bodies', () => {
  it('events.k8s.io/v1: the fields the strict validation wants, eventTime as MicroTime, no deprecated field', () => {
    const body = createBody('events.k8s.io/v1', ev(), 'collector-7f9c')
    expect(body).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'collector-7f9c.1a', namespace: 'obs' },
      eventTime: '2026-01-02T03:04:05.678000Z',
      reportingController: 'k8s-collector',
      reportingInstance: 'collector-7f9c',
      action: 'Connect',
      reason: 'ReducerUnreachable',
      regarding,
      note: 'Cannot connect',
      type: 'Warning',
    })
    expect(Object.keys(body).filter((k) => k.startsWith('deprecated'))).toEqual([])
  })

  it('a series from two observations on, its lastObservedTime a MicroTime', () => {
    const body = createBody('events.k8s.io/v1', ev({ count: 3, lastAt: t0 + 61_000 }), 'c')
    expect(body.series).toEqual({ count: 3, lastObservedTime: '2026-01-02T03:05:06.678000Z' })
    expect(seriesPatch('events.k8s.io/v1', 4, t0)).toEqual({ series: { count: 4, lastObservedTime: '2026-01-02T03:04:05.678000Z' } })
    expect(String((seriesPatch('events.k8s.io/v1', 2, 1.5) as any).series.lastObservedTime)).toMatch(MICRO)
  })

  it('core/v1: the same content under core names, plus count, timestamps and source for older readers', () => {
    const body = createBody('v1', ev({ count: 2, lastAt: t0 + 1_000 }), 'collector-7f9c')
    expect(body).toMatchObject({
      apiVersion: 'v1',
      involvedObject: regarding,
      message: 'Cannot connect',
      reportingComponent: 'k8s-collector',
      reportingInstance: 'collector-7f9c',
      eventTime: '2026-01-02T03:04:05.678000Z',
      series: { count: 2, lastObservedTime: '2026-01-02T03:04:06.678000Z' },
      source: { component: 'k8s-collector' },
      firstTimestamp: '2026-01-02T03:04:05Z',
      lastTimestamp: '2026-01-02T03:04:06Z',
      count: 2,
    })
    expect(seriesPatch('v1', 5, t0)).toEqual({ series: { count: 5, lastObservedTime: '2026-01-02T03:04:05.678000Z' }, count: 5, lastTimestamp: '2026-01-02T03:04:05Z' })
    expect(eventsPath('v1', 'obs')).toBe('/api/v1/namespaces/obs/events')
    expect(eventsPath('events.k8s.io/v1', 'obs')).toBe('/apis/events.k8s.io/v1/namespaces/obs/events')
  })

  it('cuts the note to 1024 bytes and the reportingInstance to 128, on character boundaries', () => {
    const body = createBody('events.k8s.io/v1', ev({ spec: { ...ev().spec, note: 'é'.repeat(600) } }), 'p'.repeat(300))
    expect(Buffer.byteLength(String(body.note))).toBe(1024)
    expect(String(body.note)).toBe('é'.repeat(512))
    expect(body.reportingInstance).toBe('p'.repeat(128))
  })

  it('names objects <regarding>.<hex of time and sequence>, unique, within 253 characters', () => {
    expect(eventName('collector-7f9c', t0, 0)).toBe(`collector-7f9c.${(BigInt(t0) * 1_000_000n).toString(16)}`)
    expect(eventName('collector-7f9c', t0, 1)).not.toBe(eventName('collector-7f9c', t0, 0))
    // Cut where a '-' would end the prefix: trimmed, so the name stays a DNS subdomain.
    const long = eventName(`${'a'.repeat(235)}-${'b'.repeat(17)}`, t0, 7)
    expect(long).toBe(`${'a'.repeat(235)}.${(BigInt(t0) * 1_000_000n + 7n).toString(16)}`)
    expect(long.length).toBeLessThanOrEqual(253)
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/)
  })
})
