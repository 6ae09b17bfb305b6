// Proves the API client on Deno, where requests go over fetch (src/kube/fetch-transport.ts): runs
// deno-client-verdict.ts (the cases of src/kube/client.test.ts) under `deno run --allow-all`.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const deno = join(root, 'node_modules', '.bin', 'deno')

describe('API client on Deno', () => {
  it('authenticates, times out, aborts and reads bodies over fetch as over node:https', () => {
    const run = spawnSync(deno, ['run', '--allow-all', 'e2e/watch/deno-client-verdict.ts'], { cwd: root, encoding: 'utf8', timeout: 120_000 })
    const line = run.stdout.trim().split('\n').at(-1) ?? ''
    let verdict: Record<string, unknown>
    try {
      verdict = JSON.parse(line)
    } catch {
      throw new Error(`no verdict (exit ${run.status}): ${run.stdout}\n${run.stderr}`)
    }
    expect(String(verdict.runtime)).toMatch(/^deno /)
    expect(verdict).toEqual({
      runtime: verdict.runtime,
      clientCertificateAndCa: true,
      bearerToken: true,
      execPluginPerRequest: true,
      wrongCaRejectedUnlessInsecure: true,
      refusedConnection: true,
      idleTimeoutBeforeHeaders: true,
      idleTimeoutOfStalledBodyAndTrickleKeepsAlive: true,
      abortClosesTheConnection: true,
      bodyCutBeforeItsEnd: true,
      bytesOfLargeBodies: true,
      closedBodyBufferReused: true,
      // Every request but the insecure-skip-tls-verify one (node:https: Deno.HttpClient cannot skip verification).
      fetches: 16,
    })
    expect(run.status).toBe(0)
  })
})
