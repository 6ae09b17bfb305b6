// The watch stream's log, a wrapper around its steps: each failure with what happens next and
// after how long (rate-limited per kind of failure), the switch to paginated LIST, and the first
// object ignored for having no uid.
import type { RateLimitedLog } from '../observe/rate-limit.ts'
import { observe } from '../util/observe.ts'
import type { Retried } from '../util/retry.ts'
import { errorLabel, KubeDecodeError } from './errors.ts'
import type { State, StepResult } from './watcher.ts'

/**
 * Passes the steps on unchanged, logging through `log`: a failure at `warn` (a malformed body or
 * line at `error`: the server sent bad input, docs/behaviour.md §9), keyed by its label, so that
 * a failure repeating without another kind in between writes one line a minute with the count of
 * the others. The first object ignored for lacking `metadata.uid` is logged once (docs/behaviour.md §9);
 * later ones are only counted.
 */
export function logSteps<T>(steps: AsyncIterable<Retried<StepResult<T>>>, log: RateLimitedLog): AsyncIterableIterator<Retried<StepResult<T>>> {
  let previous = ''
  let noUidLogged = false
  return observe(steps, {
    item(r) {
      if (r.dropped && !noUidLogged) {
        noUidLogged = true
        log.log('warn', 'no_uid', 'ignored an object without metadata.uid; later ones are only counted (k8s_collector_watch_objects_without_uid_total)')
      }
      if (r.watchList?.supported === false) log.info('fallback', `streaming lists not supported by this server (${r.watchList.why}); using paginated LIST`)
      const err = r.error
      if (err === undefined) return
      const label = errorLabel(err)
      if (label !== previous) log.forget(label)
      previous = label
      log.log(err instanceof KubeDecodeError ? 'error' : 'warn', label, `${err.message}; ${whatNext(r.next)} in ${r.retryInMs ?? 0} ms`)
    },
  })
}

/** What the watcher does after a failure, as the state it retries from says. */
function whatNext(next: State<unknown>): string {
  switch (next.type) {
    case 'empty':
      return `relisting (${next.cause})`
    case 'listPage':
      return 'retrying the list page'
    case 'listed':
      return `resuming from resourceVersion ${next.resourceVersion}`
    case 'initialEvents':
    case 'watching':
      return 'reading on' // not after a failure: a failure ends the connection
  }
}
