// The three list/watch streams of the collector, restartable on request (the waiting limit's
// forced relist, docs/behaviour.md §6), with their statistics exported as metrics.
import { createKubeClient, watchJobs, watchPods, watchReplicaSets, type KubeClient, type WatchStats, type WatchStream } from '../kube/index.ts'
import type { StreamName } from '../match/index.ts'
import type { StreamEvent } from '../model/index.ts'
import type { Registry } from '../observe/metrics.ts'
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
  registry.counter({ name: 'k8s_collector_watch_relists_total', help: 'Lists started, by stream and cause (initial, gone, unavailable, fallback, error).', labelNames: ['stream', 'cause'], collect: byKey((s) => s.relists) })
  registry.counter({ name: 'k8s_collector_watch_api_errors_total', help: 'Failed list/watch requests, by stream and HTTP status or failure kind (network, peer_silent, malformed …).', labelNames: ['stream', 'status'], collect: byKey((s) => s.errors) })
  registry.counter({
    name: 'k8s_collector_watch_disconnects_total',
    help: 'Watch connections ended, by stream and cause (peer_closed, error), and list/watch requests torn down because the API server sent nothing for the silence limit (peer_silent).',
    labelNames: ['stream', 'cause'],
    collect: byKey((s) => s.disconnects),
  })
  registry.counter({ name: 'k8s_collector_watch_restarts_total', help: 'Watches resumed from their last resourceVersion without a relist.', labelNames: ['stream'], collect: perStream((s) => s.watchRestarts) })
  registry.counter({ name: 'k8s_collector_watch_requests_total', help: 'Watch requests opened (streaming lists included).', labelNames: ['stream'], collect: perStream((s) => s.watchesOpened) })
  registry.counter({ name: 'k8s_collector_watch_bookmarks_total', help: 'Bookmarks received.', labelNames: ['stream'], collect: perStream((s) => s.events.bookmark) })
  registry.counter({ name: 'k8s_collector_watch_objects_without_uid_total', help: 'Objects ignored because they had no metadata.uid (docs/behaviour.md §9).', labelNames: ['stream'], collect: perStream((s) => s.droppedNoUid) })
  registry.counter({ name: 'k8s_collector_watch_malformed_lines_total', help: 'Watch lines that were not valid JSON (each ended its watch).', labelNames: ['stream'], collect: perStream((s) => s.malformedLines) })
  registry.gauge({
    name: 'k8s_collector_watch_streaming_list',
    help: '1 when the last list of the stream was a streaming list (sendInitialEvents), 0 for paginated LIST.',
    labelNames: ['stream'],
    collect: () => entries.map(([name, s]) => [[name], s.generations().at(-1)?.listMode === 'streaming' ? 1 : 0] as const),
  })
}

/**
 * Builds the pod, ReplicaSet and Job streams from the kubeconfig (throws on a bad configuration).
 * `silenceLimitMs`: the API silence limit (docs/behaviour.md §12; default the watch layer's, 30 s).
 */
export function createKubeStreams(opts: { kubeconfig?: string; registry: Registry; signal: AbortSignal; client?: KubeClient; silenceLimitMs?: number }): CollectorStreams {
  const client = opts.client ?? createKubeClient(opts.kubeconfig ? { kubeconfigPath: opts.kubeconfig } : {})
  const silenceLimitMs = opts.silenceLimitMs
  const pods = restartable((signal) => watchPods(client, { signal, silenceLimitMs }), opts.signal)
  const replicasets = restartable((signal) => watchReplicaSets(client, { signal, silenceLimitMs }), opts.signal)
  const jobs = restartable((signal) => watchJobs(client, { signal, silenceLimitMs }), opts.signal)
  registerWatchMetrics(opts.registry, { pods, replicasets, jobs } as Record<StreamName, Restartable<unknown>>)
  return { pods, replicasets, jobs }
}
