// The `/sim/…` admin endpoints: fault injection, CronJob run-now and stats, for tools that drive the
// simulator from another process (authenticated like any request).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { errors } from '../api/errors.ts'
import type { SimFaults, SimStats } from '../types.ts'
import { readJsonBody, sendJson } from './respond.ts'

/** What the admin endpoints drive. */
export interface AdminHooks {
  readonly faults: SimFaults
  runCronJobNow(namespace: string, name: string): void
  stats(): SimStats
}

type Body = Record<string, any>

/**
 * Each fault's call from a JSON body; an object it returns is sent back (besides `ok` and the fault's
 * name), a function it returns runs once the response is out.
 */
const FAULTS: Record<string, (f: SimFaults, body: Body) => unknown> = {
  dropWatches: (f, b) => f.dropWatches({ abrupt: b.abrupt === true }),
  stallWatches: (f, b) => f.stallWatches(b.on !== false),
  compact: (f) => f.compact(),
  // Answered before the listener goes down.
  restart: (f, b) => {
    const opts = { downMs: num(b.downMs), freshPki: b.freshPki === true }
    return () => f.restart(opts).catch((err) => console.error(`sim: restart failed: ${(err as Error).message}`))
  },
  failRequests: (f, b) => f.failRequests(b as Parameters<SimFaults['failRequests']>[0]),
  clearFailures: (f) => f.clearFailures(),
  slowResponses: (f, b) => f.slowResponses(Number(b.delayMs ?? 0)),
  malformedLine: (f, b) => {
    if (typeof b.resource !== 'string') throw new RangeError('malformedLine needs {"resource": PLURAL}')
    f.malformedLine(b.resource)
  },
  oversizedObject: (f, b) => f.oversizedObject({ namespace: str(b.namespace), name: str(b.name), bytes: num(b.bytes) }),
  heal: (f) => f.heal(),
}

/** Names of the faults `POST /sim/faults/NAME` accepts. */
export const FAULT_NAMES = Object.keys(FAULTS)

/**
 * `POST /sim/faults/NAME` (JSON body: the method's options), `POST /sim/cronjobs/NS/NAME/run`,
 * `GET /sim/stats` (counters, faults in force, the fault log).
 */
export async function handleAdmin(admin: AdminHooks, method: string, segs: readonly string[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (method === 'GET' && segs.length === 1 && segs[0] === 'stats') return sendJson(res, 200, JSON.stringify(admin.stats()))
  if (method !== 'POST') throw errors.methodNotAllowed()
  const body: Body = (await readJsonBody(req)) ?? {}
  const fault = segs[0] === 'faults' && segs.length === 2 ? FAULTS[segs[1]] : undefined
  if (fault) {
    let result: unknown
    try {
      result = fault(admin.faults, body)
    } catch (err) {
      if (err instanceof RangeError || err instanceof TypeError) throw errors.badRequest(err.message)
      throw err
    }
    if (typeof result === 'function') res.once('finish', result as () => void)
    return sendJson(res, 200, JSON.stringify({ ok: true, fault: segs[1], ...(result && typeof result === 'object' ? result : {}) }))
  }
  if (segs[0] === 'cronjobs' && segs.length === 4 && segs[3] === 'run') {
    admin.runCronJobNow(segs[1], segs[2])
    return sendJson(res, 200, JSON.stringify({ ok: true }))
  }
  throw errors.resourceNotFound()
}

function num(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'number') throw new RangeError(`expected a number, got ${JSON.stringify(v)}`)
  return v
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') throw new RangeError(`expected a string, got ${JSON.stringify(v)}`)
  return v
}
