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

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False'])

/** Parses the ListOptions of a request for `r`; malformed values are 400 BadRequest. */
export function parseListQuery(q: URLSearchParams, watchPath: boolean, r: ResourceInfo): ListQuery {
  // Go's strconv.ParseBool, as the API server's parameter codec: the Python client sends "True".
  const bool = (name: string): boolean | undefined => {
    const v = q.get(name)
    if (v === null || v === '') return undefined
    if (TRUE.has(v)) return true
    if (FALSE.has(v)) return false
    throw errors.badRequest(`invalid ${name} value: ${JSON.stringify(v)}: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`)
  }
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
  return {
    watch: watchPath || bool('watch') === true,
    resourceVersion: int('resourceVersion'),
    resourceVersionMatch: rvMatch as ListQuery['resourceVersionMatch'],
    limit: int('limit'),
    continueToken: q.get('continue') || undefined,
    allowWatchBookmarks: bool('allowWatchBookmarks') === true,
    timeoutSeconds: int('timeoutSeconds'),
    sendInitialEvents: bool('sendInitialEvents'),
    selector: selectors.length === 0 ? undefined : selectors.length === 1 ? selectors[0] : (o) => selectors.every((s) => s(o)),
    hasSelector: selectors.length > 0,
  }
}
