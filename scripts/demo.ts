// `npm run demo`: the collector against an embedded simulated cluster, showing what the reducer
// receives as it happens. No cluster, no network, no Docker.
//
//   npm run demo [-- --duration SECONDS] [-- --nodes N]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createEveryOwnerShape } from '../e2e/collector/workload.ts'
import { startSimulator } from '../e2e/sim/index.ts'
import { formatRecord, isKeepAlive, startTap, type ConnectionSnapshot } from '../src/tap/index.ts'

const root = resolve(fileURLToPath(import.meta.url), '..', '..')
const argv = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const at = argv.indexOf(`--${name}`)
  return at >= 0 ? argv[at + 1] : undefined
}
const durationSecs = Number(option('duration') ?? 0)
const nodes = Number(option('nodes') ?? 3)
const color = process.stdout.isTTY === true && !process.env.NO_COLOR
const paint = (code: number, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s)
const say = (text: string) => process.stdout.write(`${paint(36, '[demo]')} ${text}\n`)

const dir = mkdtempSync(join(tmpdir(), 'k8s-collector-demo-'))
const kubeconfig = join(dir, 'kubeconfig')
const sim = await startSimulator({ nodes, podStartDelayMs: 300, jobRunMs: 8_000 })
await sim.writeKubeconfig(kubeconfig)
say(`simulated API server at ${sim.url} with ${nodes} nodes`)
createEveryOwnerShape(sim)
say('workload: Deployment web, bare ReplicaSet, Job, CronJob (run now), DaemonSets (one hostNetwork), StatefulSet, bare pods')

const startDemoTap = (port: number, httpPort: number) =>
  startTap({
    listen: { host: '127.0.0.1', port },
    http: { host: '127.0.0.1', port: httpPort },
    onRecord: (record) => {
      if (!isKeepAlive(record)) process.stdout.write(`${paint(90, '[reducer]')} ${formatRecord(record, { color })}\n`)
    },
  })
let tap = await startDemoTap(0, 0)
say(`tap (fake reducer) on 127.0.0.1:${tap.tcpPort}, state at http://127.0.0.1:${tap.httpPort}/state`)

// The collector reports about its own pod as Kubernetes Events (docs/events.md): a stand-in pod for
// it, its identity passed as the downward API would, and each event printed as it is written.
const self = sim.create('pods', { metadata: { name: 'k8s-collector-demo', namespace: 'default' }, spec: { containers: [{ name: 'collector', image: 'k8s-collector' }] } })
const eventsSeen = new Map<string, number>()
const eventsTimer = setInterval(() => {
  for (const e of sim.list('events', 'default')) {
    if (e.reportingComponent !== 'k8s-collector') continue
    const count = e.series?.count ?? 1
    if (eventsSeen.get(e.metadata.name) === count) continue
    eventsSeen.set(e.metadata.name, count)
    const line = `${e.type} ${e.reason} pod/${e.involvedObject.name}${count > 1 ? ` (x${count})` : ''}: ${e.message}`
    process.stdout.write(`${paint(e.type === 'Warning' ? 31 : 32, '[event]')} ${line}\n`)
  }
}, 500)

const collector = spawn(
  process.execPath,
  ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), 'run', '--kubeconfig', kubeconfig, '--intake-port', String(tap.tcpPort), '--http-listen', '127.0.0.1:0', '--hostname', 'demo', '--log-format', 'pretty', '--log-level', 'info'],
  {
    cwd: root,
    stdio: ['ignore', 'inherit', 'pipe'],
    env: { ...process.env, KUBECONFIG: '', POD_NAME: self.metadata.name, POD_NAMESPACE: 'default', POD_UID: self.metadata.uid },
  },
)
collector.stderr!.on('data', (d: Buffer) => {
  for (const line of d.toString().split('\n')) if (line.trim()) process.stderr.write(`${paint(33, '[collector]')} ${line}\n`)
})

function summary(): void {
  const open = [...tap.state().connections].reverse().find((c: ConnectionSnapshot) => c.open)
  if (!open) {
    say('summary: no collector connected yet')
    return
  }
  const byKind = new Map<string, number>()
  for (const p of open.pods) byKind.set(p.ownerKindName, (byKind.get(p.ownerKindName) ?? 0) + 1)
  const kinds = [...byKind].map(([k, n]) => `${k} ${n}`).join(', ')
  const c = open.counters
  say(
    paint(1, `summary: ${open.pods.length} pods (${kinds}); epoch ${open.epochs.at(-1) ?? '-'}; ` +
      `${c.messages} messages, ${c.bytesCompressed} bytes on the wire (${c.bytesRaw} before LZ4)`),
  )
}

// A lively cluster: a rollout, scaling, a CronJob run, a deleted pod, a reducer restart.
const steps: Array<[string, () => void | Promise<void>]> = [
  ['rolling out web: nginx:1.25 → nginx:1.26', () => void sim.patch('deployments', 'default', 'web', { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26' }, { name: 'sidecar', image: 'busybox:1.36' }] } } } })],
  ['stopping the tap (the reducer) for 3 s: kubectl describe pod k8s-collector-demo shows ReducerUnreachable', async () => {
    const { tcpPort, httpPort } = tap
    await tap.close()
    await new Promise((r) => setTimeout(r, 3_000))
    tap = await startDemoTap(tcpPort, httpPort ?? 0)
  }],
  ['scaling web to 4 replicas', () => void sim.patch('deployments', 'default', 'web', { spec: { replicas: 4 } })],
  ['running CronJob nightly now', () => sim.runCronJobNow('default', 'nightly')],
  ['deleting pod bare', () => void sim.delete('pods', 'default', 'bare')],
  ['scaling web back to 2 replicas', () => void sim.patch('deployments', 'default', 'web', { spec: { replicas: 2 } })],
]
let step = 0
const summaryTimer = setInterval(summary, 10_000)
// The story starts once the collector has announced the cluster (its start takes a few seconds).
let stepTimer: ReturnType<typeof setInterval> | undefined
const waitForCollector = setInterval(() => {
  if (!tap.state().connections.some((c: ConnectionSnapshot) => c.open && c.epochs.length > 0)) return
  clearInterval(waitForCollector)
  stepTimer = setInterval(nextStep, 6_000)
}, 200)
const nextStep = async (): Promise<void> => {
  if (step >= steps.length) return
  const [what, action] = steps[step++]!
  say(paint(35, what))
  try {
    await action()
  } catch (err) {
    say(`(${what} failed: ${(err as Error).message})`)
  }
}

let stopping = false
async function stop(code = 0): Promise<never> {
  if (stopping) process.exit(code)
  stopping = true
  clearInterval(summaryTimer)
  clearInterval(waitForCollector)
  clearInterval(stepTimer)
  clearInterval(eventsTimer)
  summary()
  say('stopping')
  const exited = new Promise((r) => collector.once('exit', r))
  collector.kill('SIGTERM')
  await Promise.race([exited, new Promise((r) => setTimeout(r, 6_000))])
  await tap.close()
  await sim.close()
  rmSync(dir, { recursive: true, force: true })
  process.exit(code)
}
process.on('SIGINT', () => void stop(0))
process.on('SIGTERM', () => void stop(0))
collector.once('exit', (code) => {
  if (!stopping) {
    say(`the collector exited (${code}) unexpectedly`)
    void stop(1)
  }
})
if (durationSecs > 0) setTimeout(() => void stop(0), durationSecs * 1000)
say('press Ctrl-C to stop')
