// The pinned `helm` (issue 32), built from the Go module proxy into the machine-wide cache beside
// the control plane's binaries (e2e/k8s/build.ts): a throw-away Go module under the cache requires
// helm.sh/helm/v3 and builds its cmd/helm with the version stamps of helm's own Makefile.
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { CommandError, exec } from '../harness/exec.ts'

/** helm.sh/helm/v3; change it and the next run builds anew. */
export const HELM_VERSION = 'v3.22.0'

/** The build could not run or failed, or the binary is missing; `message` is one line an operator can act on. */
export class HelmBuildError extends Error {
  override name = 'HelmBuildError'
}

/** `~/.cache/k8s-collector/helm/<version>` (or under `$XDG_CACHE_HOME`); the binary is `bin/helm`. */
export function helmDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'k8s-collector', 'helm', HELM_VERSION)
}

/** The helm binary: K8S_COLLECTOR_HELM (a prebuilt one), else the cache's; throws {@link HelmBuildError} when missing. */
export function resolveHelm(env: NodeJS.ProcessEnv = process.env): string {
  const file = env.K8S_COLLECTOR_HELM || join(helmDir(env), 'bin', 'helm')
  if (!existsSync(file)) {
    const hint = env.K8S_COLLECTOR_HELM ? 'K8S_COLLECTOR_HELM names no file' : 'run `npm run helm -- --build-only` first'
    throw new HelmBuildError(`helm ${HELM_VERSION} missing: no ${file}; ${hint}`)
  }
  return file
}

/** Runs `go args…` in `cwd`; a failure is one line with the tail of its stderr. */
async function go(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    return await exec('go', args, { cwd, env, timeoutMs: 60 * 60_000 })
  } catch (err) {
    if (err instanceof CommandError && err.code === null && /ENOENT/.test(err.stderr)) {
      throw new HelmBuildError('no Go toolchain: `go` is not on PATH (install Go 1.26 or newer, or set K8S_COLLECTOR_HELM to a helm binary)')
    }
    const tail = err instanceof CommandError ? err.stderr.trim().split('\n').slice(-6).join(' | ') : String(err)
    throw new HelmBuildError(`go ${args.slice(0, 2).join(' ')} in ${cwd} failed: ${tail}`)
  }
}

/**
 * Builds helm into {@link helmDir} unless it is there; resolves with the binary's path. The
 * Kubernetes version helm assumes without a cluster (`helm template`, `helm lint`) is stamped as
 * helm's Makefile does, from the k8s.io/client-go it is built with; unstamped it is v1.20.
 */
export async function buildHelm(opts: { log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const log = opts.log ?? ((line: string) => process.stderr.write(line + '\n'))
  const base = opts.env ?? process.env
  const dir = helmDir(base)
  const bin = join(dir, 'bin', 'helm')
  if (existsSync(bin)) {
    log(`helm: ${HELM_VERSION} cached in ${bin}`)
    return bin
  }
  const env: NodeJS.ProcessEnv = { ...base, GOFLAGS: '-mod=mod -buildvcs=false', CGO_ENABLED: '0', GOWORK: 'off' }
  const src = join(dir, 'src')
  mkdirSync(src, { recursive: true })
  writeFileSync(join(src, 'go.mod'), `module k8s-collector.local/helm\n\ngo 1.26.0\n\nrequire helm.sh/helm/v3 ${HELM_VERSION}\n`)
  writeFileSync(join(src, 'tools.go'), '//go:build tools\n\npackage tools\n\nimport (\n\t_ "helm.sh/helm/v3/cmd/helm"\n)\n')
  const started = Date.now()
  log(`helm: building ${HELM_VERSION} into ${dir} (a few minutes on 2 cores)`)
  await go(['mod', 'tidy'], src, env)
  const clientGo = (await go(['list', '-m', '-f', '{{.Version}}', 'k8s.io/client-go'], src, env)).trim()
  const [, minor] = clientGo.slice(1).split('.')
  const info = JSON.parse(await go(['mod', 'download', '-json', `helm.sh/helm/v3@${HELM_VERSION}`], src, env)) as { Origin?: { Hash?: string } }
  const stamps = {
    'helm.sh/helm/v3/internal/version.version': HELM_VERSION,
    'helm.sh/helm/v3/internal/version.gitCommit': info.Origin?.Hash ?? '',
    'helm.sh/helm/v3/internal/version.gitTreeState': 'clean',
    // client-go v0.N is Kubernetes v1.N.
    'helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor': '1',
    'helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor': minor!,
    'helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor': '1',
    'helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor': minor!,
  }
  const ldflags = ['-s', '-w', ...Object.entries(stamps).filter(([, v]) => v).map(([k, v]) => `-X ${k}=${v}`)].join(' ')
  const partial = join(dir, 'bin.partial')
  rmSync(partial, { recursive: true, force: true })
  await go(['build', '-trimpath', '-ldflags', ldflags, '-o', join(partial, 'helm'), 'helm.sh/helm/v3/cmd/helm'], src, env)
  const seconds = Math.round((Date.now() - started) / 1000)
  writeFileSync(join(dir, 'build.json'), JSON.stringify({ helm: HELM_VERSION, clientGo, seconds, builtAt: new Date().toISOString() }, null, 2) + '\n')
  rmSync(join(dir, 'bin'), { recursive: true, force: true })
  renameSync(partial, join(dir, 'bin'))
  log(`helm: built in ${seconds} s (client-go ${clientGo}); cached in ${bin}`)
  return bin
}

/**
 * prometheus-operator's module, for the PrometheusRule CRD its repository ships
 * (`example/prometheus-operator-crd/`): the chart's optional PrometheusRule is installed against it.
 * The newest version the Go module proxy serves here.
 */
export const PROMETHEUS_OPERATOR_VERSION = 'v0.85.0'
const CRD_FILE = 'monitoring.coreos.com_prometheusrules.yaml'

/** Where the PrometheusRule CRD is kept, beside helm in the machine-wide cache. */
export function prometheusRuleCrdPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(helmDir(env), 'crds', `prometheus-operator-${PROMETHEUS_OPERATOR_VERSION}`, CRD_FILE)
}

/**
 * Copies the PrometheusRule CRD of prometheus-operator {@link PROMETHEUS_OPERATOR_VERSION} into the
 * cache (from the Go module proxy, through the machine's Go module cache) unless it is there;
 * resolves with its path.
 */
export async function fetchPrometheusRuleCrd(opts: { log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const log = opts.log ?? ((line: string) => process.stderr.write(line + '\n'))
  const base = opts.env ?? process.env
  const file = prometheusRuleCrdPath(base)
  if (existsSync(file)) return file
  const env: NodeJS.ProcessEnv = { ...base, GOFLAGS: '-mod=mod', GOWORK: 'off' }
  const cwd = join(helmDir(base), 'crds')
  mkdirSync(cwd, { recursive: true })
  const module = `github.com/prometheus-operator/prometheus-operator@${PROMETHEUS_OPERATOR_VERSION}`
  const info = JSON.parse(await go(['mod', 'download', '-json', module], cwd, env)) as { Dir?: string; Error?: string }
  const source = info.Dir && join(info.Dir, 'example', 'prometheus-operator-crd', CRD_FILE)
  if (!source || !existsSync(source)) throw new HelmBuildError(`${module}: no ${CRD_FILE} (${info.Error ?? info.Dir ?? 'no module directory'})`)
  mkdirSync(dirname(file), { recursive: true })
  copyFileSync(source, file)
  log(`helm: the PrometheusRule CRD of prometheus-operator ${PROMETHEUS_OPERATOR_VERSION} cached in ${file}`)
  return file
}
