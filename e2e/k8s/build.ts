// Builds the pinned control plane from the Go module proxy into the machine-wide cache (issue 30
// item 2): kube-apiserver, kube-controller-manager and kube-scheduler from k8s.io/kubernetes with
// its staging modules pinned to their published versions, etcd from go.etcd.io, kwok from
// sigs.k8s.io. Each is its own throw-away Go module under the cache, so their dependency graphs
// never meet; nothing of theirs is written into the repository.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BINARIES, ETCD_VERSION, KUBERNETES_VERSION, KWOK_VERSION, pinnedDir } from './versions.ts'

/** The build could not run or failed; `message` is one line an operator can act on. */
export class ControlPlaneBuildError extends Error {
  override name = 'ControlPlaneBuildError'
}

/** What `build.json` in the cache folder records. */
export interface BuildRecord {
  readonly kubernetes: string
  readonly kubernetesCommit: string
  readonly etcd: string
  readonly kwok: string
  readonly go: string
  /** Seconds per step, and in all. */
  readonly seconds: Record<string, number>
  readonly builtAt: string
}

export interface BuildOptions {
  /** Progress lines (default: stderr). */
  readonly log?: (line: string) => void
  readonly env?: NodeJS.ProcessEnv
}

/** One Go module of ours that requires the upstream one and names the packages to build. */
interface GoStep {
  readonly name: string
  readonly module: string
  readonly version: string
  readonly packages: readonly string[]
  /** Output: a folder for several packages, a file name for one. */
  readonly out: (bin: string) => string
  readonly ldflags: string
  readonly replace?: readonly string[]
}

/** Runs `go args…` in `cwd`; resolves with stdout; a failure carries the tail of stderr. */
function go(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      if (err.length > 64_000) err = err.slice(-32_000)
    })
    child.once('error', (cause) =>
      reject(new ControlPlaneBuildError((cause as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'no Go toolchain: `go` is not on PATH (install Go 1.26 or newer, or set K8S_COLLECTOR_CONTROL_PLANE_BIN to prebuilt binaries)'
        : `go ${args[0]}: ${String(cause)}`, { cause })))
    child.once('close', (code) => {
      if (code === 0) return resolve(out)
      const tail = err.trim().split('\n').slice(-6).join(' | ')
      reject(new ControlPlaneBuildError(`go ${args.slice(0, 2).join(' ')} in ${cwd} exited ${code}: ${tail}`))
    })
  })
}

/** Version stamps as Kubernetes' own build writes them (hack/lib/version.sh's variables). */
function kubeLdflags(version: string, commit: string, buildDate: string): string {
  const [major, minor] = version.slice(1).split('.')
  // The proxy's record names the commit only when it has it; an unknown one stays unstamped (""), as in a source build.
  const vars = { gitVersion: version, gitMajor: major!, gitMinor: minor!, ...(commit === 'unknown' ? {} : { gitCommit: commit }), gitTreeState: 'clean', buildDate }
  const pkgs = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']
  return ['-s', '-w', ...pkgs.flatMap((p) => Object.entries(vars).map(([k, v]) => `-X ${p}.${k}=${v}`))].join(' ')
}

/**
 * The staging modules k8s.io/kubernetes replaces with its own folders (`k8s.io/api =>
 * ./staging/src/k8s.io/api`), each pinned here to its published tag, `v0.<minor>.<patch>`.
 */
export function stagingReplaces(goMod: string, kubernetesVersion: string): string[] {
  const tag = `v0.${kubernetesVersion.slice(1).split('.').slice(1).join('.')}`
  const required = new Set([...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+) v0\.0\.0\b/gm)].map((m) => m[1]!))
  return [...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s*=>\s*\.\/staging\//gm)]
    .map((m) => m[1]!)
    .filter((m) => required.has(m))
    .map((m) => `${m} => ${m} ${tag}`)
}

function writeModule(dir: string, step: GoStep): void {
  mkdirSync(dir, { recursive: true })
  const replace = step.replace?.length ? `\nreplace (\n${step.replace.map((r) => `\t${r}\n`).join('')})\n` : ''
  writeFileSync(join(dir, 'go.mod'), `module k8s-collector.local/${step.name}\n\ngo 1.26.0\n\nrequire ${step.module} ${step.version}\n${replace}`)
  const imports = step.packages.map((p) => `\t_ "${p}"\n`).join('')
  writeFileSync(join(dir, 'tools.go'), `//go:build tools\n\npackage tools\n\nimport (\n${imports})\n`)
}

/** The cached record when every binary of the pinned set is there, else undefined. */
export function readBuildRecord(dir = pinnedDir()): BuildRecord | undefined {
  if (!BINARIES.every((b) => existsSync(join(dir, 'bin', b)))) return undefined
  try {
    return JSON.parse(readFileSync(join(dir, 'build.json'), 'utf8')) as BuildRecord
  } catch {
    return undefined
  }
}

/**
 * Builds the pinned set into {@link pinnedDir} unless it is there already; returns its record.
 * Progress goes to `log`, with a line every 30 s while the Go compiler works.
 */
export async function buildControlPlane(opts: BuildOptions = {}): Promise<BuildRecord> {
  const log = opts.log ?? ((line: string) => process.stderr.write(line + '\n'))
  const base = opts.env ?? process.env
  const dir = pinnedDir(base)
  const cached = readBuildRecord(dir)
  if (cached) {
    log(`control-plane: ${KUBERNETES_VERSION} binaries cached in ${dir}/bin (built in ${cached.seconds.total} s)`)
    return cached
  }
  // GOFLAGS=-mod=mod: our modules are made here and have no vendor folder; no VCS stamping of a module cache.
  const env: NodeJS.ProcessEnv = { ...base, GOFLAGS: '-mod=mod -buildvcs=false', CGO_ENABLED: '0', GOWORK: 'off' }
  mkdirSync(dir, { recursive: true })
  const goVersion = (await go(['env', 'GOVERSION'], dir, env)).trim()
  const started = Date.now()
  const seconds: Record<string, number> = {}
  const tmpBin = join(dir, 'bin.partial')
  rmSync(tmpBin, { recursive: true, force: true })
  mkdirSync(tmpBin, { recursive: true })
  log(`control-plane: building Kubernetes ${KUBERNETES_VERSION}, etcd ${ETCD_VERSION}, kwok ${KWOK_VERSION} with ${goVersion} into ${dir} (a cold build takes ~15–30 min on 2 cores)`)

  // Which commit the release is: the proxy's origin record, stamped into the binaries like a release build.
  const info = JSON.parse(await go(['mod', 'download', '-json', `k8s.io/kubernetes@${KUBERNETES_VERSION}`], dir, env)) as { GoMod: string; Origin?: { Hash?: string } }
  const commit = info.Origin?.Hash ?? 'unknown'
  const buildDate = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
  const steps: GoStep[] = [
    {
      name: 'kubernetes',
      module: 'k8s.io/kubernetes',
      version: KUBERNETES_VERSION,
      packages: ['k8s.io/kubernetes/cmd/kube-apiserver', 'k8s.io/kubernetes/cmd/kube-controller-manager', 'k8s.io/kubernetes/cmd/kube-scheduler'],
      out: (bin) => bin + '/',
      ldflags: kubeLdflags(KUBERNETES_VERSION, commit, buildDate),
      replace: stagingReplaces(readFileSync(info.GoMod, 'utf8'), KUBERNETES_VERSION),
    },
    { name: 'etcd', module: 'go.etcd.io/etcd/server/v3', version: ETCD_VERSION, packages: ['go.etcd.io/etcd/server/v3'], out: (bin) => join(bin, 'etcd'), ldflags: '-s -w' },
    { name: 'kwok', module: 'sigs.k8s.io/kwok', version: KWOK_VERSION, packages: ['sigs.k8s.io/kwok/cmd/kwok'], out: (bin) => join(bin, 'kwok'), ldflags: `-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION}` },
  ]
  for (const [i, step] of steps.entries()) {
    const t0 = Date.now()
    const src = join(dir, 'src', step.name)
    writeModule(src, step)
    log(`control-plane: [${i + 1}/${steps.length}] ${step.name}: resolving modules`)
    await go(['mod', 'tidy'], src, env)
    log(`control-plane: [${i + 1}/${steps.length}] ${step.name}: go build ${step.packages.map((p) => p.split('/').pop()).join(', ')}`)
    const ticker = setInterval(() => log(`control-plane: [${i + 1}/${steps.length}] ${step.name}: still compiling (${Math.round((Date.now() - t0) / 1000)} s)`), 30_000)
    try {
      await go(['build', '-trimpath', '-ldflags', step.ldflags, '-o', step.out(tmpBin), ...step.packages], src, env)
    } finally {
      clearInterval(ticker)
    }
    seconds[step.name] = Math.round((Date.now() - t0) / 1000)
    log(`control-plane: [${i + 1}/${steps.length}] ${step.name}: done in ${seconds[step.name]} s`)
  }
  seconds.total = Math.round((Date.now() - started) / 1000)
  const record: BuildRecord = { kubernetes: KUBERNETES_VERSION, kubernetesCommit: commit, etcd: ETCD_VERSION, kwok: KWOK_VERSION, go: goVersion, seconds, builtAt: new Date().toISOString() }
  writeFileSync(join(tmpBin, '..', 'build.json'), JSON.stringify(record, null, 2) + '\n')
  rmSync(join(dir, 'bin'), { recursive: true, force: true })
  renameSync(tmpBin, join(dir, 'bin'))
  log(`control-plane: built in ${seconds.total} s (${steps.map((s) => `${s.name} ${seconds[s.name]} s`).join(', ')}); cached in ${dir}/bin`)
  return record
}
