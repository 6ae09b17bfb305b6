// WATCH: resume from a resourceVersion (in-stream 410 when too old), synthetic ADDED for RV unset/0, and
// streaming lists with the end-of-snapshot bookmark or a 422 when WatchList is off (docs/kube-api.md WATCH, Streaming lists).
import type { ServerResponse } from 'node:http'
import { errors } from '../api/errors.ts'
import type { ResourceInfo } from '../api/resources.ts'
import { viewEntry } from '../api/views.ts'
import type { ServerContext } from './context.ts'
import type { Representation } from './negotiate.ts'
import { PROTOBUF_WATCH_CONTENT_TYPE } from './protobuf-encode.ts'
import type { ListQuery } from './query.ts'
import { startStream } from './respond.ts'
import { WatchStream } from './watch-stream.ts'

/** Serves one WATCH request; returns once the stream is set up (it then lives on its own). */
export function handleWatch(
  ctx: ServerContext, res: ServerResponse, r: ResourceInfo, namespace: string | undefined, q: ListQuery, rep: Representation, gzip = false,
): void {
  validateWatch(ctx, q)
  const timeoutMs = q.timeoutSeconds !== undefined && q.timeoutSeconds > 0
    ? q.timeoutSeconds * 1000
    : (1800 + Math.random() * 1800) * 1000
  const stream = new WatchStream(res, {
    resource: r, namespace, selector: q.selector, meta: rep === 'meta', protobuf: rep === 'protobuf', bookmarks: q.allowWatchBookmarks, timeoutMs,
    bookmarkIntervalMs: ctx.config.bookmarkIntervalMs, clock: ctx.config.clock, view: (e) => viewEntry(r, e), gzip,
  }, ctx.store, ctx.faults, (w) => {
    ctx.store.removeSink(r, w)
    ctx.watches.delete(w)
  })
  startStream(res, 200, { ...(gzip ? { 'Content-Encoding': 'gzip' } : {}), ...(rep === 'protobuf' ? { 'Content-Type': PROTOBUF_WATCH_CONTENT_TYPE } : {}) })
  ctx.watches.add(stream)

  const current = ctx.store.resourceVersion
  const initial = () => {
    const entries = ctx.store.entries(r, namespace)
    stream.sendInitial(q.selector ? entries.filter((e) => q.selector!(e.obj)) : entries)
  }
  if (q.sendInitialEvents === true) {
    // Streaming list: the snapshot as ADDED, then the annotated bookmark at the snapshot RV.
    initial()
    stream.bookmark(true, current)
  } else if (q.sendInitialEvents === false && (q.resourceVersion === undefined || q.resourceVersion === 0)) {
    // "Start at most recent" without the synthetic events.
  } else if (q.resourceVersion === undefined || q.resourceVersion === 0) {
    initial()
  } else {
    const history = ctx.store.history(r)
    const events = history.since(q.resourceVersion)
    if (!events) {
      stream.fail(errors.tooOldResourceVersion(q.resourceVersion, history.startRv + 1))
      return
    }
    for (const ev of events) stream.deliver(ev)
  }
  ctx.store.addSink(r, stream)
}

/** ListOptions validation of a watch (apimachinery ValidateListOptions): 422 Invalid. */
function validateWatch(ctx: ServerContext, q: ListQuery): void {
  const invalid = errors.listOptions
  if (q.sendInitialEvents !== undefined) {
    if (!ctx.config.watchList) {
      throw invalid('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled')
    }
    if (q.resourceVersionMatch !== 'NotOlderThan') {
      throw invalid('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan')
    }
    if (q.sendInitialEvents && !q.allowWatchBookmarks) {
      throw invalid('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true')
    }
  } else if (q.resourceVersionMatch !== undefined) {
    throw invalid('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided')
  }
}
