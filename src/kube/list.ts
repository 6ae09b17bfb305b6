// One page of a paginated LIST (docs/kube-api.md "LIST"), converted item by item to compact metas:
// by the resource's byte-level scanner (pod-scanner.ts), else by JSON.parse + convert.
import { pageArray } from '../model/records.ts'
import { systemClock, type Clock } from '../util/clock.ts'
import type { KubeClient } from './client.ts'
import { KubeDecodeError } from './errors.ts'
import { isProtobuf } from './pod-proto.ts'
import { ProtoDecodeError } from './proto-wire.ts'
import { acceptOf, type KubeObject, type ResourceSpec } from './resources.ts'
import { JsonScanError } from './json-skip.ts'
import type { ScannedList } from './pod-scanner.ts'
import { responseError } from './status.ts'

/** A converted LIST page. */
export interface ListPage<T> {
  /** Converted items, in the server's order; objects without `metadata.uid` are left out. */
  readonly items: T[]
  /** Items left out because they had no `metadata.uid`. */
  readonly dropped: number
  /** The list's snapshot revision (`metadata.resourceVersion`). */
  readonly resourceVersion: string
  /** `metadata.continue`; '' on the last page. */
  readonly continueToken: string
}

/** A {@link ListPage} born young (a literal's would be pretenured: src/model/records.ts). */
class Page<T> implements ListPage<T> {
  constructor(
    readonly items: T[],
    readonly dropped: number,
    readonly resourceVersion: string,
    readonly continueToken: string,
  ) {}
}

/** What to fetch. */
export interface ListPageRequest {
  /** `limit` (docs/kube-api.md: 500). */
  readonly limit: number
  /** The previous page's `continue` token; unset for the first page. */
  readonly continueToken?: string
  readonly signal?: AbortSignal
  /** No bytes for this long → torn down, {@link KubeIdleTimeoutError} (the silence rule, docs/behaviour.md §12). */
  readonly idleTimeoutMs: number
  /** The clock of `idleTimeoutMs` and of a `Retry-After` date. Default: the system clock. */
  readonly clock?: Clock
  /**
   * A list after the stream's first: its items mostly equal what the consumer keeps and die with
   * their page, so they are allocated as watch events' objects are (src/model/records.ts).
   */
  readonly relist?: boolean
}

type Json = Record<string, unknown>

/**
 * Fetches one page (resourceVersion unset: a consistent read). Throws a KubeApiError for any
 * non-200 status (410 on a continue page means: restart the list), KubeDecodeError for a body
 * that is not a list.
 */
export async function fetchListPage<T extends KubeObject>(
  client: KubeClient,
  spec: ResourceSpec<T>,
  req: ListPageRequest,
): Promise<ListPage<T>> {
  let query = `?limit=${req.limit}`
  if (req.continueToken) query += `&continue=${encodeURIComponent(req.continueToken)}`
  const clock = req.clock ?? systemClock
  const what = `${spec.name} LIST ${req.continueToken ? 'continue page' : 'first page'} (limit ${req.limit})`
  const accept = acceptOf(spec, client.encoding, spec.listAccept)
  const res = await client.get(spec.path + query, { accept, signal: req.signal, idleTimeoutMs: req.idleTimeoutMs, what, clock, bulk: true })
  if (res.status !== 200) throw await responseError(res, clock.now())
  const listed = !req.relist
  if (spec.proto !== undefined && isProtobuf(res.header('content-type'))) {
    const body = await res.bytes()
    try {
      const page = spec.proto.list(body, listed)
      if (!page.resourceVersion) throw new KubeDecodeError(`${spec.name} list: no metadata.resourceVersion in a protobuf body of ${body.length} bytes`)
      return new Page(page.items, page.total - page.items.length, page.resourceVersion, page.continueToken)
    } catch (err) {
      if (err instanceof ProtoDecodeError) throw new KubeDecodeError(`${spec.name} list: protobuf body of ${body.length} bytes cannot be read: ${err.message}`)
      throw err
    } finally {
      res.close()
    }
  }
  if (spec.scan === undefined) return pageOfText(spec, await res.text(), listed)

  // The byte-level path: no decoded text and no object graph for the body. Closing the response
  // once the page is read lets the client reuse the body's buffer.
  const body = await res.bytes()
  let page: ScannedList<T>
  try {
    page = spec.scan.list(body, listed)
  } catch (err) {
    // Anything else (a string past the engine's length limit, a bug) is this body's failure too.
    if (!(err instanceof JsonScanError)) throw new KubeDecodeError(`${spec.name} list: body of ${body.length} bytes cannot be read: ${String(err)}`, { cause: err })
    // JSON.parse gives the error (and its usual message); should it accept what the scanner
    // rejected, its result stands and the disagreement is counted.
    const parsed = pageOfText(spec, new TextDecoder().decode(body), listed)
    spec.scan.stats.fallbacks++
    return parsed
  } finally {
    res.close()
  }
  if (page.items === undefined || !page.resourceVersion) {
    throw new KubeDecodeError(`${spec.name} list: no items or no metadata.resourceVersion`)
  }
  return new Page(page.items, page.total - page.items.length, page.resourceVersion, page.continueToken)
}

/** The JSON.parse path: the decoded body parsed whole, then converted item by item (`listed`: as {@link ResourceSpec.convert}'s). */
function pageOfText<T extends KubeObject>(spec: ResourceSpec<T>, text: string, listed: boolean): ListPage<T> {
  let body: Json
  try {
    body = JSON.parse(text) as Json
  } catch (err) {
    throw new KubeDecodeError(`${spec.name} list: body is not JSON (${text.length} chars): ${(err as Error).message}`)
  }
  const metadata = (typeof body?.metadata === 'object' && body.metadata !== null ? body.metadata : {}) as Json
  const rv = typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : ''
  // `items: null` is an empty list (a Go nil slice: kube-apiserver's metadata-only LIST from etcd).
  const raw = body?.items === null ? [] : body?.items
  if (!Array.isArray(raw) || !rv) {
    throw new KubeDecodeError(`${spec.name} list: no items or no metadata.resourceVersion`)
  }
  const items = pageArray<T>()
  for (let i = 0; i < raw.length; i++) {
    const meta = spec.convert(raw[i], listed)
    if (meta !== undefined) items.push(meta)
  }
  return new Page(items, raw.length - items.length, rv, typeof metadata.continue === 'string' ? metadata.continue : '')
}

