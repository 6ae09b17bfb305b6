// Where the control plane's binaries come from: K8S_COLLECTOR_CONTROL_PLANE_BIN, then envtest's
// KUBEBUILDER_ASSETS (prebuilt, e.g. Kubernetes' release binaries), then the machine-wide cache
// that `npm run control-plane -- --build-only` fills.
import { accessSync, constants } from 'node:fs'
import { join } from 'node:path'
import { BINARIES, pinnedDir, type BinaryName } from './versions.ts'

/** The path of each binary. */
export type Binaries = Record<BinaryName, string>

/** A binary is missing; the message says which, where it was looked for, and what to run. */
export class ControlPlaneBinariesError extends Error {
  override name = 'ControlPlaneBinariesError'
}

const executable = (file: string) => {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The folder the binaries are taken from, and which setting chose it. */
export function binaryDir(env: NodeJS.ProcessEnv = process.env): { dir: string; source: string } {
  if (env.K8S_COLLECTOR_CONTROL_PLANE_BIN) return { dir: env.K8S_COLLECTOR_CONTROL_PLANE_BIN, source: 'K8S_COLLECTOR_CONTROL_PLANE_BIN' }
  if (env.KUBEBUILDER_ASSETS) return { dir: env.KUBEBUILDER_ASSETS, source: 'KUBEBUILDER_ASSETS' }
  return { dir: join(pinnedDir(env), 'bin'), source: 'the build cache' }
}

/** Every binary's path; throws {@link ControlPlaneBinariesError} naming the missing ones. */
export function resolveBinaries(env: NodeJS.ProcessEnv = process.env): Binaries {
  const { dir, source } = binaryDir(env)
  const missing = BINARIES.filter((b) => !executable(join(dir, b)))
  if (missing.length) {
    const hint = source === 'the build cache' ? 'run `npm run control-plane -- --build-only` first' : `put them in ${source}`
    throw new ControlPlaneBinariesError(`control plane binaries missing in ${dir} (${source}): ${missing.join(', ')}; ${hint}`)
  }
  return Object.fromEntries(BINARIES.map((b) => [b, join(dir, b)])) as Binaries
}
