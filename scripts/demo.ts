// `npm run demo`: a guided tour of the collector against an embedded simulated cluster, printing what
// the reducer receives as it happens: the snapshot (epoch 1), a rollout, scaling, a CronJob run, a
// deleted pod, a reducer restart and the complete resend of epoch 2. No cluster, no network, no Docker.
// It ends by itself once the tour is done; `--forever` keeps it running until Ctrl-C.
//
//   npm run demo [-- --forever] [-- --nodes N]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createEveryOwnerShape } from '../e2e/collector/workload.ts'
import { converged, expectedPods } from '../e2e/harness/expect.ts'
import { waitFor } from '../e2e/harness/wait.ts'
import { startSimulator } from '../e2e/sim/index.ts'
import { formatRecord, isKeepAlive, startTap, type ConnectionSnapshot } from '../src/tap/index.ts'

/** How long one step may take to show in the reducer: generous, a busy machine is slow, not broken. */
const STEP_LIMIT_MS = 90_000
/** A breath between steps, for a reader to follow (nothing waits on it). */
const PAUSE_MS = 1_000
const HOSTNAME = 'demo'

const root = resolve(fileURLToPath(import.meta.url), '..', '..')
const argv = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const at = argv.indexOf(`--${name}`)
  return at >= 0 ? argv[at + 1] : undefined
}
const forever = argv.includes('--forever')
const nodes = Number(option('nodes') ?? 3)
const color = process.stdout.isTTY === true && !process.env.NO_COLOR
const paint = (code: number, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s)
const say = (text: string) => process.stdout.write(`${paint(36, '[demo]')} ${text}\n`)
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

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
const reasonsSeen = new Set<string>()
function printEvents(): void {
  for (const e of sim.list('events', 'default')) {
    if (e.reportingComponent !== 'k8s-collector') continue
    const count = e.series?.count ?? 1
    if (eventsSeen.get(e.metadata.name) === count) continue
    eventsSeen.set(e.metadata.name, count)
    reasonsSeen.add(e.reason)
    const line = `${e.type} ${e.reason} pod/${e.involvedObject.name}${count > 1 ? ` (x${count})` : ''}: ${e.message}`
    process.stdout.write(`${paint(e.type === 'Warning' ? 31 : 32, '[event]')} ${line}\n`)
  }
}
const eventsTimer = setInterval(printEvents, 500)

const collector = spawn(
  process.execPath,
  ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), 'run', '--kubeconfig', kubeconfig, '--intake-port', String(tap.tcpPort), '--http-listen', '127.0.0.1:0', '--hostname', HOSTNAME, '--log-format', 'pretty', '--log-level', 'info'],
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
    say('summary: no collector connected')
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

const cluster = () => ({ pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') })
/** The running pods (with an IP) whose name starts with `prefix`, as the reducer should hold them. */
const podsNamed = (prefix: string) => expectedPods(cluster()).filter((p) => p.podName.startsWith(prefix))
const uidsOf = (prefix: string) => new Set(podsNamed(prefix).map((p) => p.uid))

/** Waits until the reducer holds exactly the cluster's pods (the e2e quiescence check) and says so. */
async function settled(): Promise<ConnectionSnapshot> {
  const conn = await converged(async () => ({ cluster: cluster(), tap: tap.state() }), HOSTNAME, STEP_LIMIT_MS)
  say(`✓ the reducer holds exactly the cluster's ${conn.pods.length} pods (epoch ${conn.epochs.at(-1)})`)
  return conn
}

/** Stops the tap until the collector has reported the outage, then starts it at the same address. */
async function restartReducer(): Promise<void> {
  const { tcpPort, httpPort } = tap
  await tap.close()
  reasonsSeen.delete('ReducerUnreachable')
  await waitFor('the ReducerUnreachable event', () => (reasonsSeen.has('ReducerUnreachable') ? true : undefined), { timeoutMs: STEP_LIMIT_MS })
  say('starting the tap again at the same address: the collector reconnects and resends everything in a new epoch')
  tap = await startDemoTap(tcpPort, httpPort ?? 0)
}

/** One step of the tour: what it does, and when the cluster shows it done (the reducer is checked after). */
interface Step {
  readonly what: string
  /** Acts; returns the cluster's condition for the step being done. */
  act(): (() => boolean) | Promise<() => boolean>
}

const steps: Step[] = [
  {
    what: 'rolling out web: nginx:1.25 → nginx:1.26',
    act() {
      const old = uidsOf('web-')
      sim.patch('deployments', 'default', 'web', { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26' }, { name: 'sidecar', image: 'busybox:1.36' }] } } } })
      return () => podsNamed('web-').length === 2 && podsNamed('web-').every((p) => !old.has(p.uid) && p.version.includes('nginx:1.26'))
    },
  },
  {
    what: 'scaling web to 4 replicas',
    act() {
      sim.patch('deployments', 'default', 'web', { spec: { replicas: 4 } })
      return () => podsNamed('web-').length === 4
    },
  },
  {
    what: 'running CronJob nightly now',
    act() {
      const old = uidsOf('nightly-')
      sim.runCronJobNow('default', 'nightly')
      return () => podsNamed('nightly-').some((p) => !old.has(p.uid))
    },
  },
  {
    what: 'deleting pod bare',
    act() {
      sim.delete('pods', 'default', 'bare')
      return () => !podsNamed('bare').some((p) => p.podName === 'bare')
    },
  },
  {
    what: 'stopping the tap (the reducer): kubectl describe pod k8s-collector-demo shows ReducerUnreachable',
    async act() {
      await restartReducer()
      return () => true
    },
  },
  {
    what: 'scaling web back to 2 replicas',
    act() {
      sim.patch('deployments', 'default', 'web', { spec: { replicas: 2 } })
      return () => podsNamed('web-').length === 2
    },
  },
]

// The tour: each step acts on the cluster (or the reducer), waits until the cluster shows it, then
// until the reducer holds exactly what the cluster implies.
async function tour(): Promise<void> {
  say('waiting for the collector to connect and announce the cluster (epoch 1)')
  let epoch = (await settled()).epochs.at(-1) ?? 0
  summary()
  for (const step of steps) {
    await pause(PAUSE_MS)
    say(paint(35, step.what))
    const done = await step.act()
    await waitFor(`${step.what} in the cluster`, () => (done() ? true : undefined), { timeoutMs: STEP_LIMIT_MS })
    const conn = await settled()
    const now = conn.epochs.at(-1) ?? 0
    if (now !== epoch) say(paint(1, `epoch ${now}: a new reducer connection began with pod_resync ${now}, then every pod again`))
    epoch = now
  }
  printEvents()
  summary()
  if (epoch !== 2) throw new Error(`the tour should end in epoch 2, it ends in epoch ${epoch}`)
}

let stopping = false
let summaryTimer: ReturnType<typeof setInterval> | undefined
async function stop(code = 0): Promise<never> {
  if (stopping) process.exit(code)
  stopping = true
  clearInterval(eventsTimer)
  clearInterval(summaryTimer)
  printEvents()
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

say(forever ? 'a tour of six steps, then it keeps running: press Ctrl-C to stop' : 'a tour of six steps; it ends by itself (--forever keeps it running)')
try {
  await tour()
} catch (err) {
  say(`the tour stopped: ${(err as Error).message}`)
  await stop(1)
}
if (forever) {
  say('tour done; still running with a summary every 10 s: press Ctrl-C to stop')
  summaryTimer = setInterval(summary, 10_000)
} else {
  say('tour done')
  await stop(0)
}
