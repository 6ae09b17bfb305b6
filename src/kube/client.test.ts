// The HTTP client against a real HTTPS server with client-certificate auth, on Node (node:http(s)):
// auth material from kubeconfigs, idle timeouts, abort, body reading. The cases live in
// e2e/harness/client-cases.ts; e2e/watch/deno-client.test.ts runs the same ones on Deno (fetch).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { CLIENT_CASES } from '../../e2e/harness/client-cases.ts'
import { startFakeApiServer, type FakeApiServer } from '../../e2e/harness/fake-apiserver.ts'

let api: FakeApiServer
let dir: string

beforeAll(async () => {
  api = await startFakeApiServer()
  dir = mkdtempSync(join(tmpdir(), 'kube-client-'))
})
afterAll(async () => {
  await api.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('createKubeClient and its responses', () => {
  for (const [name, run] of Object.entries(CLIENT_CASES)) it(name, () => run({ api, dir }))
})
