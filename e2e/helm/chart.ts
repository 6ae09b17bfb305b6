// The chart through the real helm (issue 32): `helm template` of charts/k8s-collector, and
// kind/collector.yaml as its rendering with default values (one source, the chart).
import { join } from 'node:path'
import { exec } from '../harness/exec.ts'
import { root } from '../harness/process.ts'
import { resolveHelm } from './build.ts'

export const CHART_DIR = join(root, 'charts', 'k8s-collector')
/** The release and namespace kind/collector.yaml is rendered for. */
export const RELEASE = 'k8s-collector'
export const NAMESPACE = 'k8s-collector'

/** Runs the pinned helm; resolves with stdout, rejects with a CommandError carrying stderr. */
export function helm(args: readonly string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<string> {
  return exec(resolveHelm(), args, { env: { ...process.env, ...opts.env }, timeoutMs: opts.timeoutMs ?? 60_000 })
}

/** `helm template RELEASE charts/k8s-collector --namespace NAMESPACE` with `args` (`-f file`, `--set k=v`). */
export function template(args: readonly string[] = []): Promise<string> {
  return helm(['template', RELEASE, CHART_DIR, '--namespace', NAMESPACE, ...args])
}

const MANIFEST_HEADER = `# k8s-collector in one file: \`kubectl apply -f kind/collector.yaml\` (README "Deployment").
# GENERATED: charts/k8s-collector rendered with its default values, release and namespace
# k8s-collector, by \`npx tsx scripts/collector-manifest.ts\`; e2e/helm/chart.test.ts fails when this
# file and the chart drift. Edit the chart, then run the script. The Namespace is the one object
# the chart leaves to \`helm install --create-namespace\`.
# Before applying, set the image (\`image: "k8s-collector:<version>"\`) and the reducer's address
# (EBPF_NET_INTAKE_HOST, "reducer" by default); \`npm run e2e\` fills both in itself.
apiVersion: v1
kind: Namespace
metadata:
  name: ${NAMESPACE}
`

/** What kind/collector.yaml must hold: the header, the Namespace, then the chart's default rendering. */
export async function renderCollectorManifest(): Promise<string> {
  return MANIFEST_HEADER + (await template())
}
