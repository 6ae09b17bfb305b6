// A kubeconfig user's token file, read again for every request as client-go does (its cached file
// token source), so a rotated token is used. kubectl's key is `tokenFile`, which client-node
// ignores; client-node's own `token-file` it reads once, at load, untrimmed.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { delimiter, dirname, isAbsolute, join } from 'node:path'
import { loadYaml } from '@kubernetes/client-node'

interface RawKubeconfig {
  users?: Array<{ name?: string; user?: { tokenFile?: unknown; 'token-file'?: unknown } }>
}

/**
 * The kubeconfig files kubectl reads, in order: `path` when given, else each of `KUBECONFIG`,
 * else `~/.kube/config`.
 */
export function kubeconfigFiles(path: string | undefined, env: Readonly<Record<string, string | undefined>>): string[] {
  if (path) return [path]
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '')
  return fromEnv.length > 0 ? fromEnv : [join(homedir(), '.kube', 'config')]
}

/**
 * The token file of user `userName` (`tokenFile`, as kubectl spells it, else `token-file`, as
 * client-node does) in the first of `files` that names that user, resolved
 * against that file's directory as kubectl resolves it; undefined when there is none. Files that
 * are missing or unreadable are skipped (the kubeconfig itself was loaded without them).
 */
export function tokenFileOf(files: readonly string[], userName: string): string | undefined {
  for (const file of files) {
    let raw: RawKubeconfig
    try {
      raw = loadYaml<RawKubeconfig>(readFileSync(file, 'utf8'))
    } catch {
      continue
    }
    const user = raw?.users?.find((u) => u?.name === userName)
    if (user === undefined) continue
    const tokenFile = user.user?.tokenFile ?? user.user?.['token-file']
    if (typeof tokenFile !== 'string' || tokenFile === '') return undefined
    return isAbsolute(tokenFile) ? tokenFile : join(dirname(file), tokenFile)
  }
  return undefined
}

/** The token in `file`, trimmed as client-go trims it; rejects when it cannot be read or is empty. */
export async function readTokenFile(file: string): Promise<string> {
  const token = (await readFile(file, 'utf8')).trim()
  if (token === '') throw new Error(`token-file ${file} is empty`)
  return token
}
