// The collector: the watch streams feed the matching core, the core's messages go to the reducer
// link; priming, tick timers, forced relists, readiness and leadership terms (docs/behaviour.md §6–§7, §11).
import { httpStatusOf, noEvents, type EventReporter, type Occurrence, type ReducerFailure } from '../events/index.ts'
import type { OutboundMessage } from '../ingest/index.ts'
import type { LinkEvent, ReducerLink } from '../link/index.ts'
import { createCollectorCore, type CollectorCore, type StreamName } from '../match/index.ts'
import { createModelContext, type ModelContext, type OwnerMeta, type PodMeta, type StreamEvent } from '../model/index.ts'
import { logger } from '../observe/log.ts'
import type { Registry } from '../observe/metrics.ts'
import { sleep, systemClock, type Clock, type TimerHandle } from '../util/clock.ts'
import { registerWatchHealth, watchUnreadiness, type StreamHealth, type WatchHealthSource } from './watch-health.ts'
import type { Leadership } from './leadership.ts'

/** One list/watch stream as the collector consumes it. */
export interface CollectorStream<T> extends AsyncIterable<StreamEvent<T>> {
  /** Restarts the stream with a fresh list (init … initDone), aborting its current watch. */
  relist(): void
  /** Its contact with the API server (docs/behaviour.md §15). */
  health(): StreamHealth
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
  /** The reducer link; the collector runs it once primed and follows its sessions. */
  readonly link: ReducerLink
  readonly registry: Registry
  /**
   * With leader election (§11): the link runs only during this replica's leadership terms, one
   * `run` per term; without, it runs from priming to shutdown.
   */
  readonly leadership?: Leadership
  /** The model caches, shared with the streams' converters. Default: a fresh set. */
  readonly model?: ModelContext
  /** Clock and timers (event times, the priming timeout, the tick timer). Default: the system's. */
  readonly clock?: Clock
  /** Where the link's, the streams' and the epochs' news go as Kubernetes Events (docs/events.md). Default: nowhere. */
  readonly events?: EventReporter
}

export interface Collector {
  /** Runs until `signal` aborts; resolves once streams and link are closed. */
  run(signal: AbortSignal): Promise<void>
  /** `/readyz`: primed, the watches reaching the API server, and connected to the reducer or standing by (docs/behaviour.md §6, §11, §15). */
  readiness(): { ready: boolean; reason?: string }
  readonly core: CollectorCore
}

const STREAMS: readonly StreamName[] = ['pods', 'replicasets', 'jobs']
/** The `type` label of k8s_collector_watch_events_total: the event vocabulary in snake_case, as Prometheus label values go. */
const EVENT_TYPE_LABEL: Record<StreamEvent<unknown>['type'], string> = {
  init: 'init',
  initApply: 'init_apply',
  initDone: 'init_done',
  apply: 'apply',
  delete: 'delete',
  unavailable: 'unavailable',
}

export function createCollector(opts: CollectorOptions, deps: CollectorDeps): Collector {
  const log = logger.withTag('collector')
  const clock = deps.clock ?? systemClock
  const link = deps.link
  const reporter = deps.events ?? noEvents
  const core = createCollectorCore(
    {
      deleteTtlMs: opts.deleteTtlSecs * 1000,
      deleteCapacity: opts.deleteCapacity,
      waitingLimit: opts.waitingLimit,
    },
    deps.model ?? createModelContext(),
  )

  const events = deps.registry.counter({
    name: 'k8s_collector_watch_events_total',
    help:
      'Watch stream events consumed by the matching core, by stream and type: init (a list begins), init_apply (an object of the list), ' +
      'init_done (the list is complete), apply (added or modified), delete, unavailable (403/404, docs/behaviour.md §3).',
    labelNames: ['stream', 'type'],
  })
  const relists = deps.registry.counter({
    name: 'k8s_collector_forced_relists_total',
    help: 'Relists of both owner streams (ReplicaSets and Jobs) requested because the waiting limit was reached (docs/behaviour.md §6).',
  })
  registerCoreMetrics(deps.registry, core)
  /** Streams the priming timeout connected without, until their first list completes (§15). */
  const listPending = new Set<StreamName>()
  const health: WatchHealthSource = { streams: deps.streams, startedAt: clock.now(), now: () => clock.now(), core: () => core.stats(), listPending }
  registerWatchHealth(deps.registry, health)

  /** Aborted once the core is primed: ends the priming wait. */
  const primed = new AbortController()
  let tickTimer: TimerHandle | undefined
  let tickAt = Infinity
  let stopped = false
  /** The reducer outage under way: each failed attempt repeats its first report, one Event series (docs/events.md). */
  let outage: Occurrence | undefined
  /** Where the reducer link's current session is connected, `ip:port`. */
  let connectedTo = ''
  /** Streams reported unavailable (403/404) and not yet listed again. */
  const unavailable = new Set<StreamName>()
  /** A forced relist was requested: its epoch, if one starts, is reported when its pod_resync goes out. */
  let forcedResyncPending = false

  function send(msgs: OutboundMessage[], at: number): void {
    if (msgs.length === 0) return
    if (forcedResyncPending && msgs.some((m) => m.type === 'pod_resync')) {
      forcedResyncPending = false
      reporter.record({ reason: 'Resync', cause: { kind: 'waitingLimit', limit: opts.waitingLimit } })
    }
    link.send(msgs, at)
  }

  /** After every event: serve relist requests, re-arm the tick timer, notice priming. */
  function after(): void {
    if (core.takeRelistRequest()) {
      relists.inc()
      forcedResyncPending = true
      log.warn(`${core.stats().podsWaiting} pods wait for their owners: relisting ReplicaSets and Jobs`)
      deps.streams.replicasets.relist()
      deps.streams.jobs.relist()
    }
    const deadline = core.nextDeadline()
    if (deadline !== undefined && deadline < tickAt && !stopped) {
      clock.clearTimeout(tickTimer)
      tickAt = deadline
      tickTimer = clock.setTimeout(onTick, Math.max(0, deadline - clock.now()))
    }
    if (core.primed) primed.abort()
  }

  function onTick(): void {
    tickTimer = undefined
    tickAt = Infinity
    core.tick(clock.now())
    after()
  }

  /** A link event: each session starts a new epoch with its snapshot (docs/behaviour.md §6). */
  function onLinkEvent(ev: LinkEvent): void {
    switch (ev.type) {
      case 'connected': {
        const t = clock.now()
        const msgs = core.connect()
        log.info(`reducer session: epoch ${core.stats().epoch}, announcing ${core.stats().podsAnnounced} pods`)
        ev.session.send(msgs, t)
        outage = undefined
        connectedTo = `${ev.address}:${ev.port}`
        reporter.record({ reason: 'ReducerConnected', address: connectedTo })
        reporter.record({ reason: 'Resync', cause: { kind: 'reconnect' } })
        return
      }
      case 'disconnected':
        core.disconnect()
        if (ev.reason.cause !== 'shutdown') unreachable({ kind: 'lost', address: connectedTo, cause: ev.reason.cause })
        return
      case 'connectFailed':
        unreachable({ kind: 'connect', target: ev.target, cause: ev.cause })
        return
      default: {
        const never: never = ev
        throw new Error(`unknown link event ${JSON.stringify(never)}`)
      }
    }
  }

  /** Reports the reducer unreachable: the first failure of an outage sets the note its later failures repeat. */
  function unreachable(failure: ReducerFailure): void {
    outage ??= { reason: 'ReducerUnreachable', failure }
    reporter.record(outage)
  }

  /** A stream's 403/404 and its recovery (its next initDone), each reported once; either ends a list pending since the priming timeout. */
  function availability(name: StreamName, ev: StreamEvent<unknown>): void {
    listPending.delete(name)
    if (ev.type === 'unavailable') {
      unavailable.add(name)
      reporter.record({ reason: 'ResourceUnavailable', resource: name, status: httpStatusOf(ev.reason) })
    } else if (ev.type === 'initDone' && unavailable.delete(name)) {
      reporter.record({ reason: 'ResourceAvailable', resource: name })
    }
  }

  /** Runs the link until `signal` aborts, following its sessions; a failure handling one is logged, the link goes on. */
  async function follow(signal: AbortSignal): Promise<void> {
    for await (const ev of link.run(signal)) {
      try {
        onLinkEvent(ev)
      } catch (err) {
        log.error(`handling the link's ${ev.type} event failed:`, err)
      }
    }
  }

  async function consume<T>(name: StreamName, stream: AsyncIterable<StreamEvent<T>>, feed: (ev: StreamEvent<T>, t: number) => OutboundMessage[]): Promise<void> {
    const byType = new Map<string, { inc(): void }>()
    for await (const ev of stream) {
      let c = byType.get(ev.type)
      if (!c) byType.set(ev.type, (c = events.labels(name, EVENT_TYPE_LABEL[ev.type])))
      c.inc()
      const t = clock.now()
      if (ev.type === 'unavailable') log.warn(`${name}: unavailable (${ev.reason})`)
      // A watch line held for its size (docs/behaviour.md §14) counts its latency from when it was read.
      const receivedAt = (ev.type === 'apply' || ev.type === 'delete') && ev.receivedAt !== undefined ? ev.receivedAt : t
      send(feed(ev, t), receivedAt)
      if (ev.type === 'unavailable' || ev.type === 'initDone') availability(name, ev)
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
      const watches = watchUnreadiness(health)
      if (watches) return { ready: false, reason: watches }
      // A primed standby is ready, so that a rolling update of two replicas goes on (§11).
      if (deps.leadership && !deps.leadership.leading) return { ready: true, reason: 'standby' }
      if (link.state !== 'connected') return { ready: false, reason: `reducer link ${link.state}` }
      return deps.leadership ? { ready: true, reason: 'leader' } : { ready: true }
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

      // Priming (§6): connect (or stand for election, §11) only once the three initial lists are in, or after the timeout.
      await sleep(clock, opts.primingTimeoutSecs * 1000, AbortSignal.any([signal, primed.signal]))
      if (primed.signal.aborted) {
        const s = core.stats()
        log.info(`primed: ${s.podsStored} pods, ${s.replicaSetsStored} replicasets, ${s.jobsStored} jobs`)
      } else if (!signal.aborted) {
        const missing = STREAMS.filter((s) => !core.stats().primed[s])
        log.warn(`priming timeout (${opts.primingTimeoutSecs}s): connecting without the initial list of ${missing.join(', ')}`)
        for (const s of missing) {
          listPending.add(s)
          send(core.markUnavailable(s), clock.now())
        }
        after()
      }

      const linkDone = signal.aborted ? Promise.resolve() : deps.leadership ? deps.leadership.run(signal, follow) : follow(signal)
      await Promise.all([linkDone, ...consumers])
      stopped = true
      clock.clearTimeout(tickTimer)
    },
  }
}

function registerCoreMetrics(registry: Registry, core: CollectorCore): void {
  const gauge = (name: string, help: string, read: (s: ReturnType<CollectorCore['stats']>) => number) =>
    registry.gauge({ name, help, collect: () => read(core.stats()) })
  gauge('k8s_collector_pods_stored', 'Pods held in the pod store (announced or not).', (s) => s.podsStored)
  gauge('k8s_collector_pods_announced', 'Pods announced on the current reducer connection (0 while disconnected).', (s) => s.podsAnnounced)
  gauge('k8s_collector_pods_waiting', 'Pods not announced yet because their ReplicaSet or Job is not known yet (the waiting index, docs/behaviour.md §6).', (s) => s.podsWaiting)
  gauge('k8s_collector_pods_without_ip', 'Pods not announced yet because they have no IP yet.', (s) => s.podsWithoutIp)
  gauge('k8s_collector_owners_stored', 'ReplicaSets and Jobs held in the owner stores (tombstones not included).', (s) => s.replicaSetsStored + s.jobsStored)
  gauge('k8s_collector_owner_tombstones', 'Deleted ReplicaSets and Jobs kept resolvable until the delete TTL or the capacity removes them (docs/behaviour.md §4).', (s) => s.tombstones)
  gauge('k8s_collector_epoch', 'The current epoch: pod_resync messages sent by this process, one per reducer connection and per forced resync (docs/behaviour.md §6).', (s) => s.epoch)
  registry.counter({
    name: 'k8s_collector_forced_resyncs_total',
    help: 'Epochs started because the waiting limit forced an owner relist (docs/behaviour.md §6); reconnects to the reducer are not counted.',
    collect: () => core.stats().forcedResyncs,
  })
}
