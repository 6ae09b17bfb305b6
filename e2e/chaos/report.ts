// The soak's figures as the lines `npm run chaos` prints.
import type { ChaosFigures, Distribution } from './figures.ts'

const dist = (d: Distribution) => `p50 ${d.p50} s, p99 ${d.p99} s, max ${d.max} s (n=${d.n})`
const pairs = (o: Readonly<Record<string, number>>) =>
  Object.entries(o)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k || '-'} ${v}`)
    .join(', ') || 'none'

/** A readable summary of the figures, one fact a line. */
export function formatFigures(f: ChaosFigures): string {
  const o = f.options
  const lines = [
    `chaos soak: seed ${o.seed}, ${o.pods} pods, ${o.runtime}, ${o.replicas} replica(s)${o.replicas > 1 ? ' with --leader-elect' : ''}`,
    `ran ${f.durationMinutes} min after ${f.setupSeconds} s of setup: ${f.cycles} cycles`,
    `faults: ${f.faults.total} — ${pairs(f.faults.byKind)}`,
    `churn: ${pairs(f.churn)}`,
    `checkpoints: ${f.checkpoints.passed} passed, ${f.checkpoints.failed} failed of ${f.checkpoints.total}`,
    `initial sync: ${f.convergeSeconds.initialSync ?? '-'} s; converge after a storm: ${dist(f.convergeSeconds.all)}`,
    ...Object.entries(f.convergeSeconds.byKind).map(([k, d]) => `  after ${k}: ${dist(d)}`),
    `RSS: start ${f.rssMb.start ?? '-'} MB, max ${f.rssMb.max ?? '-'} MB, end ${f.rssMb.end ?? '-'} MB, slope ${f.rssMb.slopePerHour ?? '-'} MB/h`,
    `CPU: ${f.cpu.seconds} s (${f.cpu.meanCores ?? '-'} cores on average)`,
    `processes: ${f.processes.started} started, ${f.processes.killed} killed by the soak, ${f.processes.crashes} crashed; SIGTERM exits: ${f.processes.shutdown.map((s) => `${s.replica} ${s.code ?? s.signal}`).join(', ') || '-'}`,
    `link: ${f.link.connects} sessions, ${f.link.reconnects} reconnects; disconnects ${pairs(f.link.disconnectsByCause)}; connect errors ${pairs(f.link.connectErrorsByCause)}`,
    `epochs: ${f.epochs}`,
    `watch: relists ${pairs(f.watch.relistsByCause)}; API errors ${pairs(f.watch.apiErrorsByStatus)}; disconnects ${pairs(f.watch.disconnectsByCause)}; resumed watches ${f.watch.restarts}; forced relists ${f.watch.forcedRelists}`,
    `logs: ${f.logs.lines} lines, ${f.logs.perMinute ?? '-'} a minute (${pairs(f.logs.byLevel)})`,
    `links torn down as silent: reducer ${f.deadLinks.teardowns.reducer}, API ${f.deadLinks.teardowns.api}; after an unseen reset of the API connection: ${f.deadLinks.afterReset.length}; false alarms (no fault in force): ${f.deadLinks.falseAlarms.length} over ${f.deadLinks.healthyMinutes.reducer} healthy minutes of the reducer link and ${f.deadLinks.healthyMinutes.api} of the API's`,
    ...f.harnessErrors.map((e) => `harness: ${e}`),
    ...f.checkpoints.failures.map((c) => `FAILED checkpoint ${c.cycle} after ${c.after.join(', ')}:\n${c.failure}`),
    f.verdict.passed ? 'verdict: passed' : `verdict: FAILED — ${f.verdict.why.join('; ')}`,
  ]
  return lines.join('\n')
}
