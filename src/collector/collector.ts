// The collector: the watch streams feed the matching core, the core's messages go to the reducer
// link; priming, tick timers, forced relists and readiness (docs/behaviour.md §6–§7).
import type { IngestMessage } from '../ingest/index.ts'
import type { ReducerLink } from '../link/index.ts'
import { createCollectorCore, type CollectorCore, type StreamName } from '../match/index.ts'
import { createModelContext, type ModelContext, type OwnerMeta, type PodMeta, type StreamEvent } from '../model/index.ts'
import { logger } from '../observe/log.ts'
import type { Registry } from '../observe/metrics.ts'

/** One list/watch stream as the collector consumes it. */
export interface CollectorStream<T> extends AsyncIterable<StreamEvent<T>> {
  /** Restarts the stream with a fresh list (init … initDone), aborting its current watch. */
  relist(): void
}

export interface CollectorStreams {
  readonly pods: CollectorStream<PodMeta>
  readonly replicasets: CollectorStream<OwnerMeta>
  readonly jobs: CollectorStream<OwnerMeta>
}

export interface CollectorOptions {
  readonly deleteTtlSecs: number
  readonly deleteCapacity: number
  readonly waitingLimit: number
  readonly primingTimeoutSecs: number
}

export interface CollectorDeps {
  readonly streams: CollectorStreams
  /** Builds the link; the collector passes the session callbacks. */
  readonly createLink: (callbacks: { onSession: () => void; onDisconnect: () => void }) => ReducerLink
  readonly registry: Registry
  /** The model caches, shared with the streams' converters. Default: a fresh set. */
  readonly model?: ModelContext
  /** Wall clock, ms. Default `Date.now`. */
  readonly now?: () => number
}

export interface Collector {
  /** Runs until `signal` aborts; resolves once streams and link are closed. */
  run(signal: AbortSignal): Promise<void>
  /** `/readyz`: primed and connected to the reducer (docs/behaviour.md §6). */
  readiness(): { ready: boolean; reason?: string }
  readonly core: CollectorCore
}

const STREAMS: readonly StreamName[] = ['pods', 'replicasets', 'jobs']

export function createCollector(opts: CollectorOptions, deps: CollectorDeps): Collector {
  const log = logger.withTag('collector')
  const now = deps.now ?? Date.now
  const core = createCollectorCore(
    {
      deleteTtlMs: opts.deleteTtlSecs * 1000,
      deleteCapacity: opts.deleteCapacity,
      waitingLimit: opts.waitingLimit,
    },
    deps.model ?? createModelContext(),
  )
  const link = deps.createLink({
    onSession: () => {
      const msgs = core.connect()
      log.info(`reducer session: epoch ${core.stats().epoch}, announcing ${core.stats().podsAnnounced} pods`)
      send(msgs, now())
    },
    onDisconnect: () => core.disconnect(),
  })

  const events = deps.registry.counter({
    name: 'k8s_collector_watch_events_total',
    help: 'Watch stream events consumed by the matching core, by stream and event type.',
    labelNames: ['stream', 'type'],
  })
  const relists = deps.registry.counter({
    name: 'k8s_collector_forced_relists_total',
    help: 'Owner relists requested because the waiting limit was reached (docs/behaviour.md §6).',
  })
  registerCoreMetrics(deps.registry, core)

  let primedResolve: () => void = () => {}
  const primed = new Promise<void>((resolve) => (primedResolve = resolve))
  let tickTimer: ReturnType<typeof setTimeout> | undefined
  let tickAt = Infinity
  let stopped = false

  function send(msgs: IngestMessage[], at: number): void {
    if (msgs.length > 0) link.send(msgs, at)
  }

  /** After every event: serve relist requests, re-arm the tick timer, notice priming. */
  function after(): void {
    if (core.takeRelistRequest()) {
      relists.inc()
      log.warn(`${core.stats().podsWaiting} pods wait for their owners: relisting ReplicaSets and Jobs`)
      deps.streams.replicasets.relist()
      deps.streams.jobs.relist()
    }
    const deadline = core.nextDeadline()
    if (deadline !== undefined && deadline < tickAt && !stopped) {
      if (tickTimer) clearTimeout(tickTimer)
      tickAt = deadline
      tickTimer = setTimeout(onTick, Math.max(0, deadline - now()))
    }
    if (core.primed) primedResolve()
  }

  function onTick(): void {
    tickTimer = undefined
    tickAt = Infinity
    core.tick(now())
    after()
  }

  async function consume<T>(name: StreamName, stream: AsyncIterable<StreamEvent<T>>, feed: (ev: StreamEvent<T>, t: number) => IngestMessage[]): Promise<void> {
    const byType = new Map<string, { inc(): void }>()
    for await (const ev of stream) {
      let c = byType.get(ev.type)
      if (!c) byType.set(ev.type, (c = events.labels(name, ev.type)))
      c.inc()
      const t = now()
      if (ev.type === 'unavailable') log.warn(`${name}: unavailable (${ev.reason})`)
      send(feed(ev, t), t)
      after()
    }
  }

  return {
    core,
    readiness() {
      if (!core.primed) {
        const missing = STREAMS.filter((s) => !core.stats().primed[s])
        return { ready: false, reason: `initial list pending: ${missing.join(', ')}` }
      }
      if (link.state !== 'connected') return { ready: false, reason: `reducer link ${link.state}` }
      return { ready: true }
    },
    async run(signal) {
      const consumers = [
        consume('pods', deps.streams.pods, (ev, t) => core.pods(ev, t)),
        consume('replicasets', deps.streams.replicasets, (ev, t) => core.owners('ReplicaSet', ev, t)),
        consume('jobs', deps.streams.jobs, (ev, t) => core.owners('Job', ev, t)),
      ].map((p, i) =>
        p.catch((err: unknown) => {
          if (!signal.aborted) log.error(`${STREAMS[i]} stream failed:`, err)
        }),
      )

      // Priming (§6): connect only once the three initial lists are in, or after the timeout.
      let primingTimer: ReturnType<typeof setTimeout> | undefined
      const timedOut = new Promise<'timeout'>((resolve) => (primingTimer = setTimeout(() => resolve('timeout'), opts.primingTimeoutSecs * 1000)))
      const aborted = new Promise<'aborted'>((resolve) => signal.addEventListener('abort', () => resolve('aborted'), { once: true }))
      const outcome = await Promise.race([primed.then(() => 'primed' as const), timedOut, aborted])
      clearTimeout(primingTimer)
      if (outcome === 'timeout') {
        const missing = STREAMS.filter((s) => !core.stats().primed[s])
        log.warn(`priming timeout (${opts.primingTimeoutSecs}s): connecting without the initial list of ${missing.join(', ')}`)
        for (const s of missing) send(core.markUnavailable(s), now())
        after()
      } else if (outcome === 'primed') {
        const s = core.stats()
        log.info(`primed: ${s.podsStored} pods, ${s.replicaSetsStored} replicasets, ${s.jobsStored} jobs`)
      }

      const linkDone = signal.aborted ? Promise.resolve() : link.run(signal)
      await Promise.all([linkDone, ...consumers])
      stopped = true
      if (tickTimer) clearTimeout(tickTimer)
    },
  }
}

function registerCoreMetrics(registry: Registry, core: CollectorCore): void {
  const gauge = (name: string, help: string, read: (s: ReturnType<CollectorCore['stats']>) => number) =>
    registry.gauge({ name, help, collect: () => read(core.stats()) })
  gauge('k8s_collector_pods_stored', 'Pods held in the pod store.', (s) => s.podsStored)
  gauge('k8s_collector_pods_announced', 'Pods announced on the current reducer connection.', (s) => s.podsAnnounced)
  gauge('k8s_collector_pods_waiting', 'Pods waiting for their ReplicaSet or Job (the waiting index).', (s) => s.podsWaiting)
  gauge('k8s_collector_pods_without_ip', 'Pods held back because they have no IP yet.', (s) => s.podsWithoutIp)
  gauge('k8s_collector_owners_stored', 'ReplicaSets and Jobs held in the owner stores.', (s) => s.replicaSetsStored + s.jobsStored)
  gauge('k8s_collector_owner_tombstones', 'Deleted owners kept resolvable (docs/behaviour.md §4).', (s) => s.tombstones)
  gauge('k8s_collector_epoch', 'The current epoch: pod_resync count of this process.', (s) => s.epoch)
  gauge('k8s_collector_forced_resyncs', 'Epochs started because of the waiting limit.', (s) => s.forcedResyncs)
  registry.gauge({
    name: 'k8s_collector_stream_available',
    help: '1 when the API server serves the stream, 0 after 403/404 (docs/behaviour.md §3).',
    labelNames: ['stream'],
    collect: () => STREAMS.map((s) => [[s], core.stats().available[s] ? 1 : 0] as const),
  })
  registry.gauge({
    name: 'k8s_collector_stream_primed',
    help: '1 once the stream delivered its first complete list (or was declared unavailable).',
    labelNames: ['stream'],
    collect: () => STREAMS.map((s) => [[s], core.stats().primed[s] ? 1 : 0] as const),
  })
}
