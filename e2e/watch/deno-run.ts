// Runs a verdict script of this folder under `deno run --allow-all` and returns its verdict: the
// JSON object on the last line of its stdout (an error with the whole output when there is none).
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const deno = join(root, 'node_modules', '.bin', 'deno')

/** The verdict of `e2e/watch/<script>` on Deno, and the exit status. */
export function denoVerdict(script: string, timeoutMs = 60_000): { verdict: Record<string, unknown>; status: number | null } {
  const run = spawnSync(deno, ['run', '--allow-all', join('e2e', 'watch', script)], { cwd: root, encoding: 'utf8', timeout: timeoutMs })
  const line = run.stdout.trim().split('\n').at(-1) ?? ''
  try {
    return { verdict: JSON.parse(line) as Record<string, unknown>, status: run.status }
  } catch {
    throw new Error(`no verdict (exit ${run.status}): ${run.stdout}\n${run.stderr}`)
  }
}
