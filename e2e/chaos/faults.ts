// The soak's fault catalogue (issue 18, issue 24 item 5): what each fault does to the API server,
// the reducer or the collector process, the parameters it draws, and how it heals by itself.
import type { TcpProxy } from '../harness/tcp-proxy.ts'
import type { Simulator } from '../sim/index.ts'
import type { Random } from './random.ts'
import type { Replica } from './replica.ts'
import type { ReducerPath, ReducerPathMode } from './reducer-path.ts'

/** Everything a fault can act on. */
export interface FaultTargets {
  readonly sim: Simulator
  readonly replicas: readonly Replica[]
  /** Each replica's own path to the API server (same index). */
  readonly apiPaths: readonly TcpProxy[]
  readonly reducerPath: ReducerPath
  /** Stops the tap (every connection closed, its state gone) and starts it again after `downMs`. */
  restartTap(downMs: number, signal: AbortSignal): Promise<void>
  /** Kills replica `index` and starts it again after `downMs` (sooner when `signal` aborts). */
  killReplica(index: number, downMs: number, signal: AbortSignal): Promise<void>
  /** The index of the replica connected to the reducer now, if any. */
  leader(): number | undefined
  /** Who last changed a shared switch: a fault heals it only while it still owns it. */
  readonly owners: Map<string, object>
}

/** The switches of the soak that faults take turns on. */
type Switch = 'reducer' | 'stall' | 'slow' | `api-path-${number}`

/** What the soak may switch on beyond the always-on faults. */
export interface FaultScope {
  readonly replicas: number
}

export interface FaultKind {
  readonly name: string
  readonly side: 'api' | 'reducer' | 'process'
  /** Draws one injection's parameters. */
  draw(rng: Random, scope: FaultScope): Record<string, number | string | boolean>
  /**
   * Injects the fault and resolves once it is over by itself (its duration passed) or `signal`
   * aborted (a checkpoint heals everything then).
   */
  run(t: FaultTargets, params: Record<string, number | string | boolean>, signal: AbortSignal): Promise<void>
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

/** Turns `sw` on, holds it for `ms`, and turns it off unless another fault took it meanwhile. */
async function hold(t: FaultTargets, sw: Switch, on: () => unknown, off: () => unknown, ms: number, signal: AbortSignal): Promise<void> {
  const token = {}
  t.owners.set(sw, token)
  await on()
  await pause(ms, signal)
  if (!signal.aborted && t.owners.get(sw) === token) {
    t.owners.delete(sw)
    await off()
  }
}

const reducerMode = (t: FaultTargets, mode: ReducerPathMode, ms: number, signal: AbortSignal) =>
  hold(t, 'reducer', () => t.reducerPath.set(mode), () => t.reducerPath.set('pass'), ms, signal)

const num = (v: unknown) => Number(v)
const STREAM_RESOURCES = ['pods', 'replicasets', 'jobs'] as const

export const FAULT_KINDS: readonly FaultKind[] = [
  {
    name: 'api-restart',
    side: 'api',
    draw: (rng) => ({ downMs: rng.chance(0.3) ? 0 : rng.int(500, 8_000) }),
    run: (t, p) => t.sim.faults.restart({ downMs: num(p.downMs) }),
  },
  {
    name: 'api-drop-watches',
    side: 'api',
    draw: (rng) => ({ abrupt: rng.chance(0.5) }),
    run: async (t, p) => t.sim.faults.dropWatches({ abrupt: p.abrupt === true }),
  },
  {
    // History compacted, then the watches end: their resume gets a 410 and a relist follows.
    name: 'api-compact',
    side: 'api',
    draw: () => ({}),
    run: async (t) => {
      t.sim.faults.compact()
      t.sim.faults.dropWatches({ abrupt: false })
    },
  },
  {
    name: 'api-throttle',
    side: 'api',
    draw: (rng) => ({ retryAfterSeconds: rng.int(1, 5), durationMs: rng.int(5_000, 20_000) }),
    run: async (t, p, signal) => {
      t.sim.faults.failRequests({ status: 429, retryAfterSeconds: num(p.retryAfterSeconds), durationMs: num(p.durationMs) })
      t.sim.faults.dropWatches({ abrupt: true })
      await pause(num(p.durationMs), signal)
    },
  },
  {
    name: 'api-errors',
    side: 'api',
    draw: (rng) => ({ status: rng.pick([500, 503]), durationMs: rng.int(3_000, 15_000) }),
    run: async (t, p, signal) => {
      t.sim.faults.failRequests({ status: num(p.status) as 500 | 503, durationMs: num(p.durationMs) })
      t.sim.faults.dropWatches({ abrupt: true })
      await pause(num(p.durationMs), signal)
    },
  },
  {
    name: 'api-slow',
    side: 'api',
    draw: (rng) => ({ delayMs: rng.int(200, 3_000), durationMs: rng.int(10_000, 30_000) }),
    run: (t, p, signal) => hold(t, 'slow', () => t.sim.faults.slowResponses(num(p.delayMs)), () => t.sim.faults.slowResponses(0), num(p.durationMs), signal),
  },
  {
    name: 'api-stall',
    side: 'api',
    draw: (rng) => ({ durationMs: rng.int(5_000, 45_000) }),
    run: (t, p, signal) => hold(t, 'stall', () => t.sim.faults.stallWatches(true), () => t.sim.faults.stallWatches(false), num(p.durationMs), signal),
  },
  {
    // RBAC taken away from one resource for a while; the watches end so that the next request sees it.
    name: 'api-forbidden',
    side: 'api',
    draw: (rng) => ({ resource: rng.pick(STREAM_RESOURCES), durationMs: rng.int(10_000, 30_000) }),
    run: async (t, p, signal) => {
      t.sim.faults.failRequests({ resource: String(p.resource), status: 403, durationMs: num(p.durationMs) })
      t.sim.faults.dropWatches({ abrupt: false })
      await pause(num(p.durationMs), signal)
    },
  },
  {
    name: 'api-partition',
    side: 'api',
    draw: (rng, scope) => ({ replica: rng.int(0, scope.replicas - 1), durationMs: rng.int(5_000, 40_000) }),
    run: (t, p, signal) => {
      const path = t.apiPaths[num(p.replica)]!
      return hold(t, `api-path-${num(p.replica)}`, () => path.setMode('blackhole'), () => path.setMode('pass'), num(p.durationMs), signal)
    },
  },
  {
    name: 'api-oversized',
    side: 'api',
    draw: (rng) => ({ durationMs: rng.int(10_000, 30_000) }),
    run: async (t, p, signal) => {
      const { namespace, name } = t.sim.faults.oversizedObject({ namespace: 'chaos-a' })
      await pause(num(p.durationMs), signal)
      if (!signal.aborted && t.sim.get('pods', namespace, name)) t.sim.delete('pods', namespace, name)
    },
  },
  {
    name: 'api-malformed',
    side: 'api',
    draw: (rng) => ({ resource: rng.pick(STREAM_RESOURCES) }),
    run: async (t, p) => t.sim.faults.malformedLine(String(p.resource)),
  },
  {
    // Issue 24: the API server dies hard: every open connection frozen, new ones served.
    name: 'api-silent',
    side: 'api',
    draw: (rng, scope) => ({ replica: rng.int(0, scope.replicas - 1) }),
    run: async (t, p) => {
      const path = t.apiPaths[num(p.replica)]!
      await path.setMode('freeze')
      await path.setMode('pass')
    },
  },
  {
    name: 'reducer-restart',
    side: 'reducer',
    draw: (rng) => ({ downMs: rng.chance(0.3) ? 0 : rng.int(500, 5_000) }),
    run: (t, p, signal) => t.restartTap(num(p.downMs), signal),
  },
  {
    // Longer than the link's 20 s silence limit (and some past the reducer's own 30 s).
    name: 'reducer-stall',
    side: 'reducer',
    draw: (rng) => ({ durationMs: rng.int(25_000, 45_000) }),
    run: (t, p, signal) => reducerMode(t, 'stall', num(p.durationMs), signal),
  },
  {
    name: 'reducer-slow',
    side: 'reducer',
    draw: (rng) => ({ bytesPerSecond: rng.int(2_000, 50_000), durationMs: rng.int(10_000, 30_000) }),
    run: (t, p, signal) => reducerMode(t, { slow: num(p.bytesPerSecond) }, num(p.durationMs), signal),
  },
  {
    name: 'reducer-refuse',
    side: 'reducer',
    draw: (rng) => ({ durationMs: rng.int(5_000, 30_000) }),
    run: (t, p, signal) => reducerMode(t, 'refuse', num(p.durationMs), signal),
  },
  {
    name: 'reducer-close-early',
    side: 'reducer',
    draw: (rng) => ({ durationMs: rng.int(10_000, 30_000) }),
    run: (t, p, signal) => reducerMode(t, 'close-early', num(p.durationMs), signal),
  },
  {
    // Issue 24: the reducer dies hard: its open connection frozen for good, a replacement serves new ones.
    name: 'reducer-silent',
    side: 'reducer',
    draw: () => ({}),
    run: async (t) => {
      await t.reducerPath.set('freeze')
    },
  },
  {
    // As an orchestrator would: SIGKILL (a node lost, an OOM kill), then a new process.
    name: 'collector-kill',
    side: 'process',
    draw: (rng, scope) => ({ leader: scope.replicas > 1 && rng.chance(0.7), replica: rng.int(0, scope.replicas - 1), downMs: rng.int(0, 3_000) }),
    run: (t, p, signal) => t.killReplica(p.leader === true ? (t.leader() ?? num(p.replica)) : num(p.replica), num(p.downMs), signal),
  },
]
