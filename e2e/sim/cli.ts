// `npm run sim -- --kubeconfig-out FILE [--port N] [--nodes N] …`: runs the API simulator until SIGTERM/SIGINT.
import { parseArgs } from 'node:util'
import { startSimulator } from './index.ts'
import type { SimOptions } from './types.ts'

const USAGE = `usage: npm run sim -- --kubeconfig-out FILE [options]
  --kubeconfig-out FILE   write a kubeconfig for the simulator to FILE once it serves (required)
  --host HOST             listen address (default 127.0.0.1)
  --port N                listen port (default 0: any free port)
  --nodes N               simulated nodes (default 3)
  --auth cert|token       credentials the kubeconfig uses (default cert; both are accepted)
  --no-watch-list         answer streaming lists (sendInitialEvents) with 422 like an older server
  --no-controllers        no scheduler/kubelet/controllers: objects stay as written
  --pod-start-delay-ms N  Pending → Running delay (default 50)
  --job-run-ms N          how long a Job's pod runs (default 1000)
  --cron-interval-ms N    every CronJob fires every N ms (default 0: follow the schedules)
  --history-window N      watch events kept per resource (default 1000)
  --bookmark-interval-ms N  bookmark period (default 60000)
Fault controls while it runs: POST /sim/faults/{dropWatches|stallWatches|compact|restart|failRequests|clearFailures|slowResponses|malformedLine}
with a JSON body of options, POST /sim/cronjobs/NS/NAME/run, GET /sim/stats (authenticated like any request).`

function fail(message: string): never {
  process.stderr.write(`sim: ${message}\n${USAGE}\n`)
  process.exit(2)
}

let values: Record<string, string | boolean | undefined>
try {
  values = parseArgs({
    options: {
      'kubeconfig-out': { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, nodes: { type: 'string' },
      auth: { type: 'string' }, 'no-watch-list': { type: 'boolean' }, 'no-controllers': { type: 'boolean' },
      'pod-start-delay-ms': { type: 'string' }, 'job-run-ms': { type: 'string' }, 'cron-interval-ms': { type: 'string' },
      'history-window': { type: 'string' }, 'bookmark-interval-ms': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values
} catch (err) {
  fail((err as Error).message)
}
if (values.help) {
  process.stdout.write(USAGE + '\n')
  process.exit(0)
}
const out = values['kubeconfig-out']
if (typeof out !== 'string' || !out) fail('--kubeconfig-out FILE is required')

const int = (name: string): number | undefined => {
  const v = values[name]
  if (v === undefined) return undefined
  if (typeof v !== 'string' || !/^\d+$/.test(v)) fail(`--${name} needs a non-negative integer, got ${JSON.stringify(v)}`)
  return Number(v)
}
const auth = values.auth
if (auth !== undefined && auth !== 'cert' && auth !== 'token') fail(`--auth must be cert or token, got ${JSON.stringify(auth)}`)
const opts: SimOptions = {
  host: values.host as string | undefined,
  port: int('port'),
  nodes: int('nodes'),
  auth: auth as SimOptions['auth'],
  watchList: values['no-watch-list'] ? false : undefined,
  controllers: values['no-controllers'] ? false : undefined,
  podStartDelayMs: int('pod-start-delay-ms'),
  jobRunMs: int('job-run-ms'),
  cronIntervalMs: int('cron-interval-ms'),
  historyWindow: int('history-window'),
  bookmarkIntervalMs: int('bookmark-interval-ms'),
}
for (const k of Object.keys(opts) as Array<keyof SimOptions>) if (opts[k] === undefined) delete opts[k]

let sim
try {
  sim = await startSimulator(opts)
  await sim.writeKubeconfig(out)
} catch (err) {
  process.stderr.write(`sim: ${(err as Error).message}\n`)
  process.exit(1)
}
process.stdout.write(`sim: serving ${sim.url} (kubeconfig: ${out}); Ctrl-C or SIGTERM stops it\n`)
let stopping = false
const stop = (signal: string) => {
  if (stopping) return
  stopping = true
  process.stdout.write(`sim: ${signal}, stopping\n`)
  sim!.close().then(() => process.exit(0), () => process.exit(1))
}
process.on('SIGTERM', () => stop('SIGTERM'))
process.on('SIGINT', () => stop('SIGINT'))
