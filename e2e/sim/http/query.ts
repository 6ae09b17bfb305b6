// Query-string options of list and watch requests (ListOptions), parsed and checked once.
import { errors } from '../api/errors.ts'
import type { ResourceInfo } from '../api/resources.ts'
import { parseFieldSelector, parseLabelSelector, type Selector } from '../api/selectors.ts'

export interface ListQuery {
  readonly watch: boolean
  /** undefined = unset (consistent read / most recent); a number otherwise (0 = any). */
  readonly resourceVersion?: number
  readonly resourceVersionMatch?: 'NotOlderThan' | 'Exact'
  readonly limit?: number
  readonly continueToken?: string
  readonly allowWatchBookmarks: boolean
  readonly timeoutSeconds?: number
  /** undefined = not sent. */
  readonly sendInitialEvents?: boolean
  /** Label and field selectors combined; undefined when none. */
  readonly selector?: Selector
  readonly hasSelector: boolean
}

const truthy = (v: string | null) => v === 'true' || v === '1'

/** Parses the ListOptions of a request for `r`; malformed values are 400 BadRequest. */
export function parseListQuery(q: URLSearchParams, watchPath: boolean, r: ResourceInfo): ListQuery {
  const int = (name: string): number | undefined => {
    const v = q.get(name)
    if (v === null || v === '') return undefined
    if (!/^\d+$/.test(v)) throw errors.badRequest(`invalid ${name} value: ${JSON.stringify(v)}`)
    return Number(v)
  }
  const rvMatch = q.get('resourceVersionMatch') || undefined
  if (rvMatch !== undefined && rvMatch !== 'NotOlderThan' && rvMatch !== 'Exact') {
    throw errors.badRequest(`invalid resourceVersionMatch: ${rvMatch}`)
  }
  const selectors: Selector[] = []
  const ls = q.get('labelSelector')
  if (ls) selectors.push(parseLabelSelector(ls))
  const fs = q.get('fieldSelector')
  if (fs) selectors.push(parseFieldSelector(fs, r))
  const sie = q.get('sendInitialEvents')
  return {
    watch: watchPath || truthy(q.get('watch')),
    resourceVersion: int('resourceVersion'),
    resourceVersionMatch: rvMatch as ListQuery['resourceVersionMatch'],
    limit: int('limit'),
    continueToken: q.get('continue') || undefined,
    allowWatchBookmarks: truthy(q.get('allowWatchBookmarks')),
    timeoutSeconds: int('timeoutSeconds'),
    sendInitialEvents: sie === null ? undefined : truthy(sie),
    selector: selectors.length === 0 ? undefined : selectors.length === 1 ? selectors[0] : (o) => selectors.every((s) => s(o)),
    hasSelector: selectors.length > 0,
  }
}
