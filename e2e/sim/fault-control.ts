// The simulator's fault hooks (`sim.faults`, `POST /sim/faults/NAME`): what each does to open watches,
// the listener, the store and the fault state, each recorded in the fault log with its healing.
import { objectKey, resourceByPlural } from './api/resources.ts'
import type { ServerContext } from './http/context.ts'
import type { SimListener } from './http/listener.ts'
import type { ActiveFaults, RestartOptions, SimFaults } from './types.ts'

const PODS = resourceByPlural('pods')!
const OVERSIZED_DEFAULT = 1_500_000
/** One annotation value at most this long (the total is what matters). */
const ANNOTATION_CHUNK = 250_000

/** What restart() needs besides the context. */
export interface RestartHooks {
  readonly listener: SimListener
  /** Replaces the CA, certificates and token (restart with freshPki). */
  renewCredentials(): Promise<void>
}

/** The fault hooks over one simulator's context, and the state they report. */
export function createFaults(ctx: ServerContext, hooks: RestartHooks): { faults: SimFaults; active(): ActiveFaults } {
  const state = ctx.faults
  const oversized = new Map<string, string>() // namespace/name → uid
  let down = false

  const dropAll = (abrupt: boolean) => {
    for (const w of [...ctx.watches]) w.end(abrupt)
  }
  const forgetHistory = () => {
    ctx.store.compact()
    ctx.snapshots.clear()
  }
  const liveOversized = () => [...oversized].filter(([key, uid]) => {
    const [ns, name] = key.split('/')
    return ctx.store.get(PODS, objectKey(PODS, ns, name))?.uid === uid
  })

  const faults: SimFaults = {
    dropWatches(o) {
      state.record('dropWatches', { abrupt: o?.abrupt === true, watches: ctx.watches.size })
      dropAll(o?.abrupt === true)
    },
    stallWatches(on) {
      state.record(on ? 'stallWatches' : 'stallWatches healed')
      state.stalled = on
      if (!on) for (const w of [...ctx.watches]) w.resume()
    },
    compact() {
      state.record('compact', { resourceVersion: ctx.store.resourceVersion })
      ctx.store.compact()
    },
    async restart(o: RestartOptions = {}) {
      const downMs = o.downMs ?? 0
      if (!(downMs >= 0)) throw new RangeError(`restart needs downMs ≥ 0, got ${downMs}`)
      state.record('restart', { downMs, freshPki: o.freshPki === true, resourceVersion: ctx.store.resourceVersion })
      dropAll(true)
      if (downMs > 0) {
        down = true
        await hooks.listener.stop()
        state.record('restart down')
        await new Promise((r) => setTimeout(r, downMs))
      }
      if (o.freshPki) await hooks.renewCredentials()
      // Like a real API server's watch cache, the restarted server starts its history at the current RV.
      forgetHistory()
      if (down) {
        await hooks.listener.relisten()
        down = false
        state.record('restart up', { resourceVersion: ctx.store.resourceVersion })
      }
    },
    failRequests: (o) => state.failRequests(o),
    clearFailures: () => state.clearFailures(),
    slowResponses(ms) {
      if (!(ms >= 0)) throw new RangeError(`slowResponses needs a delay ≥ 0 ms, got ${ms}`)
      state.record(ms > 0 ? 'slowResponses' : 'slowResponses healed', { delayMs: ms })
      state.delayMs = ms
    },
    malformedLine: (resource) => state.malformedLine(resource),
    oversizedObject(o = {}) {
      const bytes = o.bytes ?? OVERSIZED_DEFAULT
      if (!(Number.isInteger(bytes) && bytes > 0)) throw new RangeError(`oversizedObject needs bytes > 0, got ${bytes}`)
      const namespace = o.namespace ?? 'default'
      const annotations: Record<string, string> = {}
      for (let i = 0, left = bytes; left > 0; i++, left -= ANNOTATION_CHUNK) {
        annotations[`sim.k8s-collector.io/padding-${i}`] = 'x'.repeat(Math.min(left, ANNOTATION_CHUNK))
      }
      const entry = ctx.api.create(PODS, {
        metadata: { ...(o.name ? { name: o.name } : { generateName: 'oversized-' }), namespace, annotations },
        spec: { containers: [{ name: 'app', image: 'registry.example.com/oversized:1' }] },
      })
      oversized.set(`${namespace}/${entry.name}`, entry.uid)
      state.record('oversizedObject', { namespace, name: entry.name, bytes, objectBytes: entry.itemBytes.byteLength })
      return { namespace, name: entry.name, bytes }
    },
    heal() {
      for (const [key] of liveOversized()) {
        const [ns, name] = key.split('/')
        ctx.api.delete(PODS, ns, name, { gracePeriodSeconds: 0 })
      }
      oversized.clear()
      const wasStalled = state.stalled
      state.reset()
      if (wasStalled) for (const w of [...ctx.watches]) w.resume()
      state.record('heal')
    },
  }

  const active = (): ActiveFaults => ({
    stalled: state.stalled,
    delayMs: state.delayMs,
    failures: state.activeFailures(),
    malformedLine: state.malformedPending,
    down,
    oversized: liveOversized().map(([key]) => key),
  })
  return { faults, active }
}
