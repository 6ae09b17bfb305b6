// The `match` section on Deno: the runtime `deno compile` ships, so the core's speed in the
// executable operators run. Same code and events as `match` (bench/match-entry.ts in a Deno child
// process, with the collector's V8 flags), reported under its own name.
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { denoBin, V8_FLAGS } from './replay/collector.ts'
import type { BenchOptions, BenchSection } from './types.ts'

const here = dirname(fileURLToPath(import.meta.url))
const v8Flags = ['--expose-gc', ...V8_FLAGS]

export async function benchMatchDeno(opts: BenchOptions): Promise<BenchSection> {
  const args = ['run', '--allow-read', '--allow-env', `--v8-flags=${v8Flags.join(',')}`, join(here, 'match-entry.ts')]
  if (opts.quick) args.push('--quick')
  const child = spawn(denoBin(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s))
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', resolve)
  })
  const last = stdout.trim().split('\n').at(-1) ?? ''
  if (code !== 0 || !last.startsWith('{')) throw new Error(`the match section on Deno failed (exit ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`)
  const { runtime, section } = JSON.parse(last) as { runtime: string; section: BenchSection }
  return {
    ...section,
    name: 'match-deno',
    targets: section.targets?.map((t) => ({ ...t, name: `${t.name}, on Deno` })),
    notes: [`${runtime}, V8 flags ${v8Flags.join(' ')}: what the \`deno compile\` executable runs`, ...(section.notes ?? [])],
  }
}
