// Ordinary pods' latency through the real collector (dist/cli.mjs in its own process, on Node or
// Deno) while 50 hostile pods of 1,000 distinct images arrive in the same pod watch (issue 22):
// the replay server's 10k-pod cluster, synced, then churn at 1,000 events/s for 5 s, quiet and
// with the burst one second in, three rounds each; latency = the server writing a pod's event →
// the tap decoding that pod's message (as the churn section). Usage (from the repo root, after
// `npm run build`):
//   tsx --expose-gc bench/burst-e2e.ts [node|deno]
// Prints p50 / p99 / max ms per phase (bench/README.md, issue 22).
import { cluster } from './cluster.ts'
import { copies } from './hostile-path.ts'
import { shapes } from './hostile-shapes.ts'
import { runCollector } from './replay/collector.ts'
import { percentile, sleep } from './replay/proc.ts'
import { startReplayServer } from './replay/server.ts'

const runtime = process.argv[2] === 'deno' ? 'deno' : 'node'
const c = cluster(10_000)
const server = await startReplayServer(c)
const run = await runCollector(c, server, { runtime })
await run.synced(90_000)
await server.waitPodWatchers(1, 30_000)
await sleep(1_000)

// The hostile pod without an owner, so that it is announced at once (every pod_container encoded).
const event = JSON.parse(shapes.find((s) => s.name.startsWith('many containerStatuses (distinct'))!.line(1_000)) as { object: { metadata: Record<string, unknown> } }
delete event.object.metadata.ownerReferences
const hostileText = JSON.stringify(event)
const hostileUids = new Set<string>()
const lastSent = new Map<string, number>()
let latencies: number[] = []
run.onPodMessage = (uid, _type, at) => {
  const t = lastSent.get(uid)
  if (t !== undefined && !hostileUids.has(uid)) latencies.push(at - t)
}
const churn = c.newChurn()
const dec = new TextDecoder()
for (let round = 0; round < 3; round++) {
  for (const burst of [false, true]) {
    const events = churn.take(5_000)
    if (burst) {
      const lines = copies(hostileText, 50, 0x30000000 + round * 0x1000).map((b) => {
        const uid = /"uid":"([^"]*)"/.exec(dec.decode(b.subarray(0, 2_000)))![1]!
        hostileUids.add(uid)
        return { uid, line: Buffer.concat([b, Buffer.from('\n')]) }
      })
      events.splice(1_000, 0, ...lines)
    }
    latencies = []
    await server.stream(events, 1_000, (uid, at) => lastSent.set(uid, at))
    await sleep(3_000)
    const [p50, p99, max] = [50, 99, 100].map((p) => percentile(latencies, p))
    console.log(`${runtime} round ${round + 1} ${burst ? 'burst' : 'quiet'}: p50 ${p50} ms, p99 ${p99} ms, max ${max} ms (${latencies.length} messages)`)
  }
}
await run.stop()
await server.close()
