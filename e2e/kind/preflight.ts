// The kind suite's preflight: docker (with a reachable engine), kind and kubectl must be present;
// otherwise one line says what is missing and how to get it. Fast: a PATH lookup and one
// `docker info` with a short deadline.
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { exec } from '../harness/exec.ts'

/** The tools `npm run e2e` needs, with where to get each. */
export const TOOLS = [
  { name: 'docker', get: 'https://docs.docker.com/engine/install/' },
  { name: 'kind', get: 'v0.27+ from https://kind.sigs.k8s.io/docs/user/quick-start/#installation or `go install sigs.k8s.io/kind@v0.27.0`' },
  { name: 'kubectl', get: 'https://kubernetes.io/docs/tasks/tools/' },
] as const

/** How long `docker info` may take before the engine counts as unreachable, ms. */
export const DOCKER_INFO_TIMEOUT_MS = 10_000

/** The executable called `name` on `pathEnv` (a PATH value), or undefined. */
export function findOnPath(name: string, pathEnv: string | undefined): string | undefined {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) continue
    const file = join(dir, name)
    try {
      if (!statSync(file).isFile()) continue
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not here (or not executable): try the next directory
    }
  }
  return undefined
}

/**
 * Checks the prerequisites with `env` (its PATH, DOCKER_HOST…). Resolves with undefined when all
 * is there, else with the one line to print before exiting 1.
 */
export async function preflight(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const problems: string[] = []
  const missing = TOOLS.filter((t) => !findOnPath(t.name, env.PATH))
  if (missing.length > 0) problems.push(`missing ${missing.map((t) => `${t.name} (${t.get})`).join(', ')}`)
  if (!missing.some((t) => t.name === 'docker')) {
    try {
      await exec('docker', ['info', '--format', '{{.ServerVersion}}'], { env, timeoutMs: DOCKER_INFO_TIMEOUT_MS })
    } catch (err) {
      const why = err instanceof Error && 'stderr' in err ? String(err.stderr) : String(err)
      const first = why.split('\n').map((l) => l.trim()).find(Boolean) ?? 'no answer'
      problems.push(`docker is installed but no Docker engine answers (\`docker info\`: ${first.slice(0, 200)}); start one or set DOCKER_HOST`)
    }
  }
  if (problems.length === 0) return undefined
  return `npm run e2e needs Docker, kind and kubectl: ${problems.join('; ')} (npm run e2e:sim needs none of them)`
}
