// `npm run sim -- --kubeconfig-out FILE [--port N] [--nodes N] …`: runs the API simulator until SIGTERM/SIGINT.
import { parseArgs } from 'node:util'
import { FAULT_NAMES } from './http/admin.ts'
import { startSimulator } from './index.ts'
import { watchLauncher } from './launcher.ts'
import type { SimOptions } from './types.ts'

/** One command-line flag: its SimOptions field, how its value is read, and its help line. */
interface Flag {
  readonly name: string
  readonly option?: keyof SimOptions
  readonly kind: 'string' | 'int' | 'true' | 'false'
  readonly arg?: string
  readonly help: string
}

const FLAGS: readonly Flag[] = [
  { name: 'kubeconfig-out', kind: 'string', arg: 'FILE', help: 'write a kubeconfig for the simulator to FILE once it serves (required)' },
  { name: 'host', option: 'host', kind: 'string', arg: 'HOST', help: 'listen address (default 127.0.0.1)' },
  { name: 'port', option: 'port', kind: 'int', arg: 'N', help: 'listen port (default 0: any free port)' },
  { name: 'nodes', option: 'nodes', kind: 'int', arg: 'N', help: 'simulated nodes (default 3)' },
  { name: 'auth', option: 'auth', kind: 'string', arg: 'cert|token', help: 'credentials the kubeconfig uses (default cert; both are accepted)' },
  { name: 'state-dir', option: 'stateDir', kind: 'string', arg: 'DIR', help: 'keep the CA, certificates, token and objects in DIR across restarts' },
  { name: 'fresh-pki', option: 'freshPki', kind: 'true', help: 'with --state-dir: a new CA, certificates and token' },
  { name: 'fresh-state', option: 'freshState', kind: 'true', help: 'with --state-dir: start without the stored objects' },
  { name: 'http1-only', option: 'http1Only', kind: 'true', help: 'serve HTTP/1.1 only (no h2 by ALPN), like kubectl proxy' },
  { name: 'no-watch-list', option: 'watchList', kind: 'false', help: 'answer streaming lists (sendInitialEvents) with 422 like an older server' },
  { name: 'no-protobuf', option: 'protobuf', kind: 'false', help: "answer pods' lists and watches as JSON even to a client asking for protobuf first (kube-apiserver answers protobuf)" },
  { name: 'no-controllers', option: 'controllers', kind: 'false', help: 'no scheduler/kubelet/controllers: objects stay as written' },
  { name: 'pod-start-delay-ms', option: 'podStartDelayMs', kind: 'int', arg: 'N', help: 'Pending → Running delay (default 50)' },
  { name: 'job-run-ms', option: 'jobRunMs', kind: 'int', arg: 'N', help: "how long a Job's pod runs (default 1000)" },
  { name: 'cron-interval-ms', option: 'cronIntervalMs', kind: 'int', arg: 'N', help: 'every CronJob fires every N ms (default 0: follow the schedules)' },
  { name: 'history-window', option: 'historyWindow', kind: 'int', arg: 'N', help: 'watch events kept per resource (default 1000)' },
  { name: 'bookmark-interval-ms', option: 'bookmarkIntervalMs', kind: 'int', arg: 'N', help: 'bookmark period (default 60000)' },
]

const USAGE = [
  'usage: npm run sim -- --kubeconfig-out FILE [options]',
  ...FLAGS.map((f) => `  ${`--${f.name}${f.arg ? ' ' + f.arg : ''}`.padEnd(26)} ${f.help}`),
  `Fault controls while it runs: POST /sim/faults/{${FAULT_NAMES.join('|')}}`,
  'with a JSON body of options, POST /sim/cronjobs/NS/NAME/run, GET /sim/stats (authenticated like any request).',
].join('\n')

function fail(message: string): never {
  process.stderr.write(`sim: ${message}\n${USAGE}\n`)
  process.exit(2)
}

let values: Record<string, string | boolean | undefined>
try {
  const options = Object.fromEntries(FLAGS.map((f) => [f.name, { type: f.kind === 'true' || f.kind === 'false' ? 'boolean' as const : 'string' as const }]))
  values = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true }).values
} catch (err) {
  fail((err as Error).message)
}
if (values.help) {
  process.stdout.write(USAGE + '\n')
  process.exit(0)
}
const out = values['kubeconfig-out']
if (typeof out !== 'string' || !out) fail('--kubeconfig-out FILE is required')

const opts: Record<string, unknown> = {}
for (const f of FLAGS) {
  const v = values[f.name]
  if (v === undefined || !f.option) continue
  if (f.kind === 'int' && !/^\d+$/.test(String(v))) fail(`--${f.name} needs a non-negative integer, got ${JSON.stringify(v)}`)
  opts[f.option] = f.kind === 'int' ? Number(v) : f.kind === 'true' ? true : f.kind === 'false' ? false : v
}
if (opts.auth !== undefined && opts.auth !== 'cert' && opts.auth !== 'token') fail(`--auth must be cert or token, got ${JSON.stringify(opts.auth)}`)

let sim
try {
  sim = await startSimulator(opts as SimOptions)
  await sim.writeKubeconfig(out)
} catch (err) {
  process.stderr.write(`sim: ${(err as Error).message}\n`)
  process.exit(1)
}
process.stdout.write(`sim: serving ${sim.url} (kubeconfig: ${out}); Ctrl-C or SIGTERM stops it\n`)
// The launcher may be gone with its pipes: a failed log line must not stop the shutdown.
process.stdout.on('error', () => {})
let stopping = false
const stop = (why: string) => {
  if (stopping) return
  stopping = true
  process.stdout.write(`sim: ${why}, stopping\n`)
  sim!.close().then(() => process.exit(0), () => process.exit(1))
}
process.on('SIGTERM', () => stop('SIGTERM'))
process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGHUP', () => stop('SIGHUP'))
watchLauncher(() => stop('launcher gone (npm run passes SIGTERM to sh only)'))
