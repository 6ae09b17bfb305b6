// `npm run control-plane -- --kubeconfig-out FILE [--nodes N] [--state-dir DIR] [--feature-gates G]`
// runs the real control plane until SIGTERM/SIGINT; `--build-only` builds (or finds) its binaries.
import { readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { watchLauncher } from '../sim/launcher.ts'
import { binaryDir, ControlPlaneBinariesError, resolveBinaries } from './binaries.ts'
import { buildControlPlane, ControlPlaneBuildError, readBuildRecord } from './build.ts'
import { startControlPlane } from './control-plane.ts'
import { KUBERNETES_VERSION, pinnedDir } from './versions.ts'

const FLAGS = {
  'kubeconfig-out': { type: 'string', arg: 'FILE', help: 'write the admin kubeconfig to FILE once every node is Ready (required unless --build-only)' },
  nodes: { type: 'string', arg: 'N', help: 'fake nodes, 1–100 (default 3)' },
  'state-dir': { type: 'string', arg: 'DIR', help: 'keep certificates, etcd data and logs in DIR (default: a temporary folder, removed at exit)' },
  'feature-gates': { type: 'string', arg: 'G', help: 'feature gates of every component, e.g. WatchList=false' },
  'build-only': { type: 'boolean', help: `build the ${KUBERNETES_VERSION} binaries into ${pinnedDir()} (or find them there) and exit` },
  help: { type: 'boolean', help: 'this text' },
} as const

const USAGE = [
  'usage: npm run control-plane -- --kubeconfig-out FILE [options]',
  '       npm run control-plane -- --build-only',
  ...Object.entries(FLAGS).map(([name, f]) => `  ${`--${name}${'arg' in f ? ' ' + f.arg : ''}`.padEnd(22)} ${f.help}`),
  'Binaries: K8S_COLLECTOR_CONTROL_PLANE_BIN=DIR or KUBEBUILDER_ASSETS=DIR use prebuilt ones (etcd, kube-apiserver,',
  'kube-controller-manager, kube-scheduler, kwok); otherwise they are built from the Go module proxy once per machine.',
].join('\n')

/** Prints one line per problem and exits 2. */
function usageError(problems: readonly string[]): never {
  for (const p of problems) process.stderr.write(`control-plane: ${p}\n`)
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}

let values: { [K in keyof typeof FLAGS]?: (typeof FLAGS)[K]['type'] extends 'boolean' ? boolean : string }
try {
  values = parseArgs({ options: Object.fromEntries(Object.entries(FLAGS).map(([k, f]) => [k, { type: f.type }])), strict: true, allowPositionals: false }).values as typeof values
} catch (err) {
  usageError([(err as Error).message])
}
if (values.help) {
  process.stdout.write(USAGE + '\n')
  process.exit(0)
}
const problems: string[] = []
const nodes = values.nodes === undefined ? 3 : Number(values.nodes)
if (!Number.isInteger(nodes) || nodes < 1 || nodes > 100) problems.push(`--nodes=${JSON.stringify(values.nodes)} is not a whole number from 1 to 100`)
if (!values['build-only'] && !values['kubeconfig-out']) problems.push('--kubeconfig-out FILE is required')
if (values['feature-gates'] !== undefined && !/^([A-Za-z0-9]+=(true|false))(,[A-Za-z0-9]+=(true|false))*$/.test(values['feature-gates'])) {
  problems.push(`--feature-gates=${JSON.stringify(values['feature-gates'])} is not a list of Name=true|false`)
}
if (problems.length) usageError(problems)

const fail = (message: string): never => {
  process.stderr.write(`control-plane: ${message}\n`)
  process.exit(2)
}

// Prebuilt binaries (an override) are used as they are; otherwise build into the cache when missing.
if (binaryDir().source === 'the build cache' && (values['build-only'] || !readBuildRecord())) {
  await buildControlPlane().catch((err) => fail(err instanceof ControlPlaneBuildError ? err.message : String(err)))
}
if (values['build-only']) {
  // Prebuilt binaries are checked, not built: say which are missing, where.
  try {
    resolveBinaries()
  } catch (err) {
    fail((err as Error).message)
  }
  process.stderr.write(`control-plane: binaries in ${binaryDir().dir} (${binaryDir().source})\n`)
  process.exit(0)
}

let stopping: Promise<void> | undefined
const plane = await startControlPlane({
  nodes,
  stateDir: values['state-dir'],
  featureGates: values['feature-gates'],
  log: (line) => process.stderr.write(line + '\n'),
}).catch((err) => fail(err instanceof ControlPlaneBinariesError ? err.message : `did not start: ${(err as Error).message}`))
// Self-contained (certificate data, not file names): usable from anywhere while the plane runs.
const admin = plane.pki.clients.admin
writeFileSync(values['kubeconfig-out']!, plane.kubeconfigFor({ certPem: readFileSync(admin.cert, 'utf8'), keyPem: readFileSync(admin.key, 'utf8') }), { mode: 0o600 })
process.stdout.write(`control-plane: Kubernetes ${plane.version} ready at ${plane.url} with ${plane.nodeNames.length} nodes; kubeconfig in ${values['kubeconfig-out']} (logs in ${plane.dir}/logs)\n`)

const stop = (why: string) => {
  stopping ??= (async () => {
    process.stderr.write(`control-plane: ${why}: stopping\n`)
    await plane.stop()
    process.exit(0)
  })()
}
process.on('SIGTERM', () => stop('SIGTERM'))
process.on('SIGINT', () => stop('SIGINT'))
watchLauncher(() => stop('launcher gone'))
