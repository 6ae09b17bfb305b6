// `npm run helm -- --build-only` builds (or finds) the pinned helm in the machine-wide cache, and
// fetches prometheus-operator's PrometheusRule CRD beside it; `npm run helm -- ARGS…` runs that helm
// with ARGS (building it first when missing).
import { spawnSync } from 'node:child_process'
import { buildHelm, fetchPrometheusRuleCrd, HelmBuildError, resolveHelm } from './build.ts'

const args = process.argv.slice(2)
const fail = (message: string): never => {
  process.stderr.write(`helm: ${message}\n`)
  process.exit(2)
}

// A prebuilt helm (K8S_COLLECTOR_HELM) is used as it is: checked, never built.
const helm = process.env.K8S_COLLECTOR_HELM
  ? (() => { try { return resolveHelm() } catch (err) { return fail((err as Error).message) } })()
  : await buildHelm({ log: args[0] === '--build-only' ? undefined : () => {} }).catch((err) => fail(err instanceof HelmBuildError ? err.message : String(err)))
if (args[0] === '--build-only') {
  // The tests install the chart's PrometheusRule against prometheus-operator's CRD (e2e/helm/install.test.ts).
  await fetchPrometheusRuleCrd().catch((err) => fail(err instanceof HelmBuildError ? err.message : String(err)))
  process.exit(0)
}
const run = spawnSync(helm, args, { stdio: 'inherit' })
process.exit(run.status ?? 1)
