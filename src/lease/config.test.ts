// Leader-election timing rules (client-go's) and Lease names.
import { describe, expect, it } from 'vitest'
import { defaultElectionTiming, defaultIdentity, validateElectionTiming, validateLeaseRef } from './config.ts'

describe('validateElectionTiming', () => {
  it.each([
    ['client-go defaults', defaultElectionTiming, undefined],
    ['fractional renew and retry', { leaseDurationMs: 4_000, renewDeadlineMs: 2_500, retryPeriodMs: 500 }, undefined],
    ['duration = deadline', { leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }, 'the lease duration (10 s) must be greater than the renew deadline (10 s)'],
    ['deadline = retry × 1.2', { leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }, 'the renew deadline (2.4 s) must be greater than the retry period × 1.2 (2.4 s)'],
    ['a fractional duration', { leaseDurationMs: 15_500, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }, 'the lease duration must be a whole number of seconds (got 15.5 s)'],
    ['zero retry', { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 }, 'the retry period must be a positive number of seconds (got 0)'],
    ['NaN deadline', { leaseDurationMs: 15_000, renewDeadlineMs: Number.NaN, retryPeriodMs: 2_000 }, 'the renew deadline must be a positive number of seconds (got NaN)'],
  ])('%s', (_label, timing, problem) => {
    expect(validateElectionTiming(timing)).toBe(problem)
  })
})

describe('validateLeaseRef', () => {
  it.each([
    [{ namespace: 'kube-system', name: 'k8s-collector' }, undefined],
    [{ namespace: 'default', name: 'a.b-c' }, undefined],
    [{ namespace: 'Default', name: 'x' }, 'the lease namespace "Default" is not a valid namespace name (RFC 1123 label)'],
    [{ namespace: 'a.b', name: 'x' }, 'the lease namespace "a.b" is not a valid namespace name (RFC 1123 label)'],
    [{ namespace: 'ns', name: 'x_y' }, 'the lease name "x_y" is not a valid object name (RFC 1123 subdomain)'],
    [{ namespace: 'ns', name: '' }, 'the lease name "" is not a valid object name (RFC 1123 subdomain)'],
  ])('%j', (ref, problem) => {
    expect(validateLeaseRef(ref)).toBe(problem)
  })
})

describe('defaultIdentity', () => {
  it('is <hostname>_<uuid>, different per call', () => {
    const a = defaultIdentity('collector-7d9f-x2')
    expect(a).toMatch(/^collector-7d9f-x2_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(defaultIdentity('collector-7d9f-x2')).not.toBe(a)
  })
})
