// Runs the API client's cases (e2e/harness/client-cases.ts) on whatever runtime executes this file
// (made for `deno run --allow-all`, where requests go over fetch: src/kube/fetch-transport.ts)
// against a local HTTPS server with client-certificate auth. Prints one JSON verdict line: each
// case → true or what went wrong, and how many requests went through fetch.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLIENT_CASES } from '../harness/client-cases.ts'
import { startFakeApiServer } from '../harness/fake-apiserver.ts'

const runtime = 'Deno' in globalThis ? `deno ${(globalThis as unknown as { Deno: { version: { deno: string } } }).Deno.version.deno}` : `node ${process.version}`
let fetches = 0
const realFetch = globalThis.fetch
globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
  fetches++
  return realFetch(...args)
}) as typeof fetch

const api = await startFakeApiServer()
const dir = mkdtempSync(join(tmpdir(), 'kube-client-deno-'))
const cases: Record<string, true | string> = {}
for (const [name, run] of Object.entries(CLIENT_CASES)) {
  try {
    await Promise.race([run({ api, dir }), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 10_000))])
    cases[name] = true
  } catch (err) {
    cases[name] = err instanceof Error ? err.message : String(err)
  }
}
// Not awaited: the server waits for the fetch pool's idle keep-alive connections (90 s) on Deno.
void api.close()
rmSync(dir, { recursive: true, force: true })
console.log(JSON.stringify({ runtime, cases, fetches }))
process.exit(0)
