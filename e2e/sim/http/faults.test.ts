// FaultState on a controlled clock: failures end by count or by time window, whichever comes first,
// and the log records each injection and healing.
import { describe, expect, it } from 'vitest'
import { resourceByPlural } from '../api/resources.ts'
import { FaultState } from './faults.ts'

const pods = resourceByPlural('pods')!
const jobs = resourceByPlural('jobs')!

describe('FaultState', () => {
  it('a time window heals at its end, a count at its last request', () => {
    let now = 1_000_000
    const f = new FaultState(() => now)
    f.failRequests({ resource: 'pods', status: 403, durationMs: 5000 })
    f.failRequests({ resource: 'jobs', status: 429, count: 2, durationMs: 60_000 })
    expect(f.takeFailure(pods, 'list', undefined)?.code).toBe(403)
    now += 4999
    expect(f.takeFailure(pods, 'watch', 'default')?.code).toBe(403)
    expect(f.activeFailures()).toHaveLength(2)
    now += 1
    expect(f.takeFailure(pods, 'list', undefined)).toBeUndefined()
    expect(f.takeFailure(jobs, 'list', undefined)?.code).toBe(429)
    expect(f.takeFailure(jobs, 'list', undefined)?.details?.retryAfterSeconds).toBe(1)
    expect(f.takeFailure(jobs, 'list', undefined)).toBeUndefined()
    expect(f.log.map((r) => [r.fault, (r.options as any)?.by, (r.options as any)?.failed])).toEqual([
      ['failRequests', undefined, undefined], ['failRequests', undefined, undefined],
      ['failRequests healed', 'duration', 2], ['failRequests healed', 'count', 2],
    ])
    expect(f.log[2].at).toBe(new Date(1_005_000).toISOString())
  })

  it('matches a qualified resource name and the given verbs only', () => {
    const f = new FaultState(() => 0)
    f.failRequests({ resource: 'jobs.batch', verbs: ['create'], status: 500 })
    expect(f.takeFailure(jobs, 'list', undefined)).toBeUndefined()
    expect(f.takeFailure(pods, 'create', undefined)).toBeUndefined()
    expect(f.takeFailure(jobs, 'create', 'default')?.reason).toBe('InternalError')
  })
})
