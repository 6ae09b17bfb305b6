// The watch stream's log: one line per failure with what follows, repeats of one kind limited.
import { describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { createRateLimitedLog } from '../observe/rate-limit.ts'
import type { Retried } from '../util/retry.ts'
import { KubeApiError, KubeDecodeError, KubeIdleTimeoutError } from './errors.ts'
import { logSteps } from './watch-log.ts'
import type { StepResult } from './watcher.ts'

/** The lines `logSteps` writes for `steps`, the clock moving `gapMs` between two steps. */
async function logged(steps: Retried<StepResult<never>>[], gapMs = 0): Promise<string[]> {
  const lines: string[] = []
  const at = (level: string) => (msg: unknown) => void lines.push(`${level}: ${String(msg)}`)
  const clock = createFakeClock(0)
  const log = createRateLimitedLog({ error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') }, { clock })
  async function* source() {
    for (const step of steps) {
      yield step
      await clock.advance(gapMs)
    }
  }
  for await (const _ of logSteps(source(), log));
  return lines
}

const listed = { type: 'listed', resourceVersion: '7' } as const
const idle = (): Retried<StepResult<never>> => ({ events: [], next: listed, error: new KubeIdleTimeoutError('pods watch from resourceVersion 7 (timeoutSeconds 17) torn down (peer_silent): the API server sent nothing for 30.0 s'), retryInMs: 50 })

describe('logSteps', () => {
  it('says what follows a failure and after how long; bad input at error level', async () => {
    expect(
      await logged([
        idle(),
        { events: [], next: { type: 'empty', cause: 'gone' }, error: new KubeApiError({ status: 410, reason: 'Expired' }), retryInMs: 100 },
        { events: [], next: { type: 'listPage', continueToken: 't' }, error: new KubeApiError({ status: 500 }), retryInMs: 200 },
        { events: [], next: listed, error: new KubeDecodeError('pods watch: malformed line'), retryInMs: 300 },
        { events: [], next: { type: 'empty', cause: 'fallback' }, watchList: { supported: false, why: 'HTTP 422' } },
      ]),
    ).toEqual([
      'warn: pods watch from resourceVersion 7 (timeoutSeconds 17) torn down (peer_silent): the API server sent nothing for 30.0 s; resuming from resourceVersion 7 in 50 ms',
      'warn: HTTP 410 Expired; relisting (gone) in 100 ms',
      'warn: HTTP 500; retrying the list page in 200 ms',
      'error: pods watch: malformed line; resuming from resourceVersion 7 in 300 ms',
      'info: streaming lists not supported by this server (HTTP 422); using paginated LIST',
    ])
  })

  it('limits a failure repeating without another kind in between, and writes it again after one', async () => {
    const gone: Retried<StepResult<never>> = { events: [], next: { type: 'empty', cause: 'gone' }, error: new KubeApiError({ status: 410 }), retryInMs: 100 }
    const lines = await logged([idle(), idle(), idle(), gone, idle()])
    const silent = 'warn: pods watch from resourceVersion 7 (timeoutSeconds 17) torn down (peer_silent): the API server sent nothing for 30.0 s'
    expect(lines.map((l) => l.split(';')[0])).toEqual([silent, 'warn: HTTP 410', silent])
  })

  it('logs the first object without a uid once, however long it runs', async () => {
    const dropped = (n: number): Retried<StepResult<never>> => ({ events: [], next: listed, dropped: n })
    const lines = await logged([dropped(2), dropped(1), idle(), dropped(3)], 10 * 60_000)
    expect(lines.filter((l) => l.includes('metadata.uid'))).toEqual([
      'warn: ignored an object without metadata.uid; later ones are only counted (k8s_collector_watch_objects_without_uid_total)',
    ])
  })
})
