// The three list/watch streams of the collector, restartable on request (the waiting limit's
// forced relist, docs/behaviour.md §6), with their statistics exported as metrics.
import { createKubeClient, watchJobs, watchPods, watchReplicaSets, type KubeClient, type WatchStats, type WatchStream } from '../kube/index.ts'
import type { StreamName } from '../match/index.ts'
import type { ModelContext, StreamEvent } from '../model/index.ts'
import type { Registry } from '../observe/metrics.ts'
import type { Clock } from '../util/clock.ts'
import type { CollectorStream, CollectorStreams } from './collector.ts'

interface Restartable<T> extends CollectorStream<T> {
  /** Stats of every generation of the stream (a relist request starts a new one). */
  generations(): readonly WatchStats[]
}

/** A stream that a relist request restarts from a fresh list (init … initDone). */
function restartable<T>(start: (signal: AbortSignal) => WatchStream<T>, signal: AbortSignal): Restartable<T> {
  const all: WatchStats[] = []
  let current: AbortController | undefined
  let relistPending = false
  return {
    relist() {
      relistPending = true
      current?.abort()
    },
    generations: () => all,
    health() {
      // The last contact of any generation (a relist starts a new one); reachable as the current one says.
      let lastContactMs: number | undefined
      for (const g of all) if (g.lastContactMs !== undefined && !(g.lastContactMs <= (lastContactMs ?? -Infinity))) lastContactMs = g.lastContactMs
      return { lastContactMs, reachable: !(all.at(-1)?.failing ?? false) }
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<StreamEvent<T>> {
      while (!signal.aborted) {
        const ctrl = new AbortController()
        const stop = () => ctrl.abort()
        signal.addEventListener('abort', stop, { once: true })
        current = ctrl
        const stream = start(ctrl.signal)
        all.push(stream.stats)
        try {
          for await (const ev of stream) yield ev
        } finally {
          signal.removeEventListener('abort', stop)
          ctrl.abort()
        }
        if (!relistPending) return
        relistPending = false
      }
    },
  }
}

const sum = (stats: readonly WatchStats[], read: (s: WatchStats) => number): number => stats.reduce((n, s) => n + read(s), 0)

function registerWatchMetrics(registry: Registry, streams: Record<StreamName, Restartable<unknown>>): void {
  const entries = Object.entries(streams) as Array<[StreamName, Restartable<unknown>]>
  const byKey = (read: (s: WatchStats) => Record<string, number>) => () => {
    const out: Array<readonly [readonly string[], number]> = []
    for (const [name, s] of entries) {
      const totals = new Map<string, number>()
      for (const g of s.generations()) for (const [k, v] of Object.entries(read(g))) totals.set(k, (totals.get(k) ?? 0) + v)
      for (const [k, v] of totals) out.push([[name, k], v])
    }
    return out
  }
  const perStream = (read: (s: WatchStats) => number) => () => entries.map(([name, s]) => [[name], sum(s.generations(), read)] as const)
  /** A counter by stream and one more label, whose values are the keys `read` returns. */
  const keyed = (name: string, label: string, help: string, read: (s: WatchStats) => Record<string, number>) =>
    registry.counter({ name, help, labelNames: ['stream', label], collect: byKey(read) })
  const counted = (name: string, help: string, read: (s: WatchStats) => number) => registry.counter({ name, help, labelNames: ['stream'], collect: perStream(read) })
  keyed(
    'k8s_collector_watch_relists_total',
    'cause',
    'List requests made (a streaming list or the first page of a LIST), failed ones included, by stream and cause: ' +
      'initial (the first list, also after a forced relist), gone (410: the revision or continue token was too old), ' +
      'unavailable (retrying after 403/404, docs/behaviour.md §3), fallback (LIST after the server refused streaming lists), ' +
      'error (the previous streaming list broke midway). docs/kube-api.md "Recovery algorithm".',
    (s) => s.relists,
  )
  keyed(
    'k8s_collector_watch_api_errors_total',
    'status',
    'Failed list and watch requests, by stream and status: the HTTP status code (403, 410, 429, 500 …, in-stream ERROR events included) ' +
      'or the transport failure\'s reason (tls_unknown_authority, tls_expired, tls_wrong_name, tls_ca_as_server, tls_handshake, dns, refused, reset, timeout, ' +
      'unreachable, proxy, ping_timeout, credentials, network: docs/kube-api.md "Transport failures"), peer_silent (nothing received for the silence limit, docs/behaviour.md §12), ' +
      'malformed (a body or line that is not JSON, docs/behaviour.md §9), short_watch (a watch ended at once without a line), ' +
      'initial_events_timeout (a streaming list without its end bookmark in time).',
    (s) => s.errors,
  )
  keyed(
    'k8s_collector_watch_disconnects_total',
    'cause',
    'Watch connections ended, by stream and cause: peer_closed (the API server ended the body, e.g. its timeoutSeconds), ' +
      'error (reset, malformed line, ERROR event), peer_silent (a list or watch request torn down because the API server ' +
      'sent nothing for the silence limit, or failed because its HTTP/2 connection did not answer a PING: docs/behaviour.md §12).',
    (s) => s.disconnects,
  )
  counted('k8s_collector_watch_restarts_total', 'Watches that ended (cleanly or not) and were resumed from their last resourceVersion without a relist.', (s) => s.watchRestarts)
  counted('k8s_collector_watch_requests_total', 'Watch requests opened successfully, streaming lists included.', (s) => s.watchesOpened)
  counted('k8s_collector_watch_list_pages_total', 'LIST pages answered (paginated lists: --api-list pages, or where the server has no streaming lists; --api-page-size objects each).', (s) => s.listPages)
  counted('k8s_collector_watch_bookmarks_total', 'BOOKMARK events received, the end bookmark of each streaming list included.', (s) => s.events.bookmark)
  counted('k8s_collector_watch_objects_without_uid_total', 'Listed or watched objects ignored because they had no metadata.uid (docs/behaviour.md §9).', (s) => s.droppedNoUid)
  counted(
    'k8s_collector_watch_malformed_lines_total',
    'Lines of a watch or streaming list that were not valid JSON; each ended its connection (docs/behaviour.md §9).',
    (s) => s.malformedLines,
  )
  counted(
    'k8s_collector_watch_lines_held_total',
    'Watch lines of 64 KiB or more held apart and converted when the input was idle, so that ordinary pods do not wait behind them (docs/behaviour.md §14).',
    (s) => s.heldLines,
  )
  registry.gauge({
    name: 'k8s_collector_watch_streaming_list',
    help: '1 when the last successful list of the stream was a streaming list (sendInitialEvents), 0 for paginated LIST or before the first list.',
    labelNames: ['stream'],
    collect: () => entries.map(([name, s]) => [[name], s.generations().at(-1)?.listMode === 'streaming' ? 1 : 0] as const),
  })
}

/** The API connection's own metrics: its protocol and, over HTTP/2, its PINGs (docs/dead-links.md §2). */
function registerApiMetrics(registry: Registry, client: KubeClient): void {
  registry.gauge({
    name: 'k8s_collector_api_http2',
    help: '1 when the API server requests go over one shared HTTP/2 connection checked by PING (watches of 5 to 10 minutes), 0 over HTTP/1.1 (watches of 15 to 20 s; the log says why) or before the first connection.',
    collect: () => (client.protocol === 'h2' ? 1 : 0),
  })
  registry.counter({
    name: 'k8s_collector_api_pings_total',
    help: 'HTTP/2 PINGs sent to the API server after the silence limit without a frame, by outcome: answered, unanswered (no answer within half the limit: the connection was closed as dead, or it closed first).',
    labelNames: ['outcome'],
    collect: () => [
      [['answered'], client.pings?.answered ?? 0],
      [['unanswered'], client.pings?.unanswered ?? 0],
    ],
  })
  registry.counter({
    name: 'k8s_collector_api_response_wire_bytes_total',
    help: 'Response body bytes received from the API server as sent: gzip-compressed when the collector asked for it (--api-compression) and the server compressed them. Divide k8s_collector_api_response_decoded_bytes_total by it for the compression ratio.',
    collect: () => client.traffic?.wire ?? 0,
  })
  registry.counter({
    name: 'k8s_collector_api_response_decoded_bytes_total',
    help: 'Response body bytes received from the API server after decompression: the JSON the collector read.',
    collect: () => client.traffic?.decoded ?? 0,
  })
}

/**
 * Builds the pod, ReplicaSet and Job streams from the kubeconfig (throws on a bad configuration).
 * `silenceLimitMs`: the API silence limit (docs/behaviour.md §12; default the watch layer's, 30 s).
 * `model`: the collector's model context, which every stream's converters intern through.
 * `clock`: the streams' timeouts and backoffs (default: the system clock).
 * `pageSize`: objects per LIST page (default the watch layer's, 500).
 */
export function createKubeStreams(opts: {
  kubeconfig?: string
  registry: Registry
  signal: AbortSignal
  model: ModelContext
  client?: KubeClient
  silenceLimitMs?: number
  clock?: Clock
  pageSize?: number
}): CollectorStreams {
  const client = opts.client ?? createKubeClient(opts.kubeconfig ? { kubeconfigPath: opts.kubeconfig } : {})
  const { silenceLimitMs, model, clock, pageSize } = opts
  const pods = restartable((signal) => watchPods(client, { signal, silenceLimitMs, model, clock, pageSize }), opts.signal)
  const replicasets = restartable((signal) => watchReplicaSets(client, { signal, silenceLimitMs, model, clock, pageSize }), opts.signal)
  const jobs = restartable((signal) => watchJobs(client, { signal, silenceLimitMs, model, clock, pageSize }), opts.signal)
  registerWatchMetrics(opts.registry, { pods, replicasets, jobs } as Record<StreamName, Restartable<unknown>>)
  registerApiMetrics(opts.registry, client)
  return { pods, replicasets, jobs }
}
