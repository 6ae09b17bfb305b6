// A quiescent checkpoint of the soak: with faults healed and churn paused, the tap's state of the
// one live connection equals the simulator's truth pod by pod and field by field, and every replica
// says it is ready with its watches available.
import type { ConnectionSnapshot } from '../../src/tap/index.ts'
import { diffPods, expectedPods, heldPods } from '../harness/expect.ts'
import { parseSamples } from './prom.ts'
import type { Stage } from './stage.ts'
import { truth } from './workload.ts'

/** A connection counts as live when the tap heard from it this recently (heartbeats: every 2 s). */
const LIVE_MS = 10_000

export interface CheckpointOutcome {
  readonly passed: boolean
  /** From the heal to the moment everything held (or to the deadline). */
  readonly ms: number
  /** The connection that matched: tap id, replica, epochs seen on it. */
  readonly connection?: { readonly id: number; readonly replica: string; readonly epochs: readonly number[] }
  readonly pods: number
  /** Why it failed: the last difference seen. */
  readonly failure?: string
  /** What it waited for last before it held (the first two lines of the last difference), if anything. */
  readonly waitedOn?: string
}

/** The live connections of the replicas at the tap (open, heard from within LIVE_MS). */
function liveConnections(stage: Stage): ConnectionSnapshot[] {
  const names = new Set(stage.replicas.map((r) => r.name))
  const now = Date.now()
  return stage
    .tap()
    .state()
    .connections.filter((c) => c.open && c.hostname !== null && names.has(c.hostname) && now - Date.parse(c.lastDataAt ?? c.openedAt) < LIVE_MS)
}

/** What is still wrong ('' when nothing): the pods, then the replicas' health. */
async function problems(stage: Stage): Promise<{ text: string; conn?: ConnectionSnapshot; pods: number }> {
  const want = expectedPods(truth(stage.sim))
  const live = liveConnections(stage)
  if (live.length !== 1) return { text: `${live.length} live connections (${live.map((c) => `#${c.id} ${c.hostname}`).join(', ')}), want 1`, pods: want.length }
  const conn = live[0]!
  const diff = diffPods(want, heldPods(conn))
  if (diff) return { text: `connection #${conn.id} of ${conn.hostname}, ${conn.pods.length} pods held, ${want.length} expected:\n${diff.split('\n').slice(0, 30).join('\n')}`, conn, pods: want.length }
  for (const r of stage.replicas) {
    const ready = await r.readyz()
    if (ready.status !== 200) return { text: `${r.name} /readyz: ${ready.status} ${ready.body}`, conn, pods: want.length }
    const unavailable = parseSamples(await r.scrape()).filter((s) => s.name === 'k8s_collector_stream_available' && s.value !== 1)
    if (unavailable.length) return { text: `${r.name}: stream_available 0 for ${unavailable.map((s) => s.labels.stream).join(', ')}`, conn, pods: want.length }
  }
  return { text: '', conn, pods: want.length }
}

/** Waits up to `timeoutMs` for the checkpoint to hold; `from` is when the faults were healed. */
export async function checkpoint(stage: Stage, from: number, timeoutMs: number, pollMs: number): Promise<CheckpointOutcome> {
  const deadline = from + timeoutMs
  let last: Awaited<ReturnType<typeof problems>> = { text: 'not checked', pods: 0 }
  let waitedOn: string | undefined
  for (;;) {
    last = await problems(stage)
    if (last.text === '' && last.conn) {
      const { id, hostname, epochs } = last.conn
      return { passed: true, ms: Date.now() - from, connection: { id, replica: hostname ?? '', epochs: epochs.map(Number) }, pods: last.pods, ...(waitedOn ? { waitedOn } : {}) }
    }
    waitedOn = last.text.split('\n').slice(0, 2).join(' ')
    if (Date.now() > deadline) return { passed: false, ms: Date.now() - from, pods: last.pods, failure: last.text }
    await new Promise((r) => setTimeout(r, pollMs))
  }
}
