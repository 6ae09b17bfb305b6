// LIST: consistent reads, RV=0 ignoring limit, limit/continue pagination over snapshots with expiring tokens, metadata-only and Table output (docs/kube-api.md LIST).
import type { ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import { errors } from '../api/errors.ts'
import type { ResourceInfo } from '../api/resources.ts'
import { viewEntry } from '../api/views.ts'
import type { Entry } from '../store/entry.ts'
import { decodeContinue, encodeContinue } from '../store/snapshots.ts'
import type { ServerContext } from './context.ts'
import type { Representation } from './negotiate.ts'
import type { ListQuery } from './query.ts'
import { podItem, podListBody } from './protobuf-encode.ts'
import { PROTOBUF_CONTENT_TYPE } from './protobuf.ts'
import { GZIP_THRESHOLD_BYTES, sendJson, streamItems } from './respond.ts'
import { renderTable } from './table.ts'

/** Serves one LIST request. */
export async function handleList(
  ctx: ServerContext, res: ServerResponse, r: ResourceInfo, namespace: string | undefined, q: ListQuery, rep: Representation, gzip = false,
): Promise<void> {
  // apimachinery ValidateListOptions for a LIST: streaming lists are watches only.
  if (q.sendInitialEvents !== undefined) throw errors.listOptions('sendInitialEvents', 'sendInitialEvents is forbidden for list')
  const current = ctx.store.resourceVersion
  let entries: readonly Entry[]
  let rv: number
  let startIndex = 0
  if (q.continueToken !== undefined) {
    if (q.resourceVersion !== undefined) throw errors.badRequest('specifying resource version is not allowed when using continue')
    const token = decodeContinue(q.continueToken)
    if (!token) throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)')
    const snap = ctx.snapshots.get(r.plural, namespace, token.rv)
    if (!snap) throw errors.expiredContinue()
    entries = snap.entries
    rv = snap.rv
    startIndex = firstAtOrAfter(entries, token.start)
  } else {
    if (q.resourceVersion !== undefined && q.resourceVersion > current) throw errors.tooLargeResourceVersion(q.resourceVersion, current)
    if (q.resourceVersionMatch === 'Exact' && q.resourceVersion !== current) {
      throw errors.expiredResourceVersion()
    }
    entries = ctx.store.entries(r, namespace)
    rv = current
  }
  // RV=0 means "any, possibly stale": served from the cache, whole collection, limit ignored.
  const limit = q.resourceVersion === 0 && q.continueToken === undefined ? undefined : q.limit || undefined
  const items: Entry[] = []
  let i = startIndex
  for (; i < entries.length; i++) {
    if (limit !== undefined && items.length >= limit) break
    const e = entries[i]
    if (!q.selector || q.selector(e.obj)) items.push(e)
  }
  const listMeta: Record<string, unknown> = { resourceVersion: String(rv) }
  if (limit !== undefined && i < entries.length) {
    ctx.snapshots.put(r.plural, namespace, rv, entries)
    listMeta.continue = encodeContinue({ rv, start: items[items.length - 1].key + '\u0000' })
    if (!q.hasSelector) listMeta.remainingItemCount = entries.length - i
  }
  if (rep === 'protobuf') {
    // A PodList as kube-apiserver encodes it for a protobuf client; gzip past 128 KiB as for JSON.
    const body = podListBody(listMeta, items.map((e) => podItem(e)))
    const compress = gzip && body.length > GZIP_THRESHOLD_BYTES
    sendJson(res, 200, compress ? gzipSync(body) : body, { 'Content-Type': PROTOBUF_CONTENT_TYPE, ...(compress ? { 'Content-Encoding': 'gzip' } : {}) })
    return
  }
  if (rep === 'table') {
    sendJson(res, 200, renderTable(r.kind, items, listMeta))
    return
  }
  // kube-apiserver encodes an empty metadata-only list's items as a Go nil slice: null (seen on
  // v1.37.2, e2e/k8s/differential.test.ts); full-object lists keep [].
  if (rep === 'meta' && items.length === 0) {
    sendJson(res, 200, JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, items: null }))
    return
  }
  const head = rep === 'meta'
    ? `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(listMeta)},"items":[`
    : `{"kind":"${r.kind}List","apiVersion":"${r.apiVersion}","metadata":${JSON.stringify(listMeta)},"items":[`
  const bytes = rep === 'meta' ? (k: number) => viewEntry(r, items[k]).metaBytes : (k: number) => viewEntry(r, items[k]).itemBytes
  await streamItems(res, head, items.length, bytes, ']}', gzip)
}

/** Index of the first entry whose key is ≥ `key` (entries are in key order). */
function firstAtOrAfter(entries: readonly Entry[], key: string): number {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (entries[mid].key < key) lo = mid + 1
    else hi = mid
  }
  return lo
}
