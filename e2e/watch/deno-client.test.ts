// The API client on Deno, where requests go over fetch (src/kube/fetch-transport.ts): the cases of
// src/kube/client.test.ts (e2e/harness/client-cases.ts) run by deno-client-verdict.ts under `deno run`.
import { describe, expect, it } from 'vitest'
import { CLIENT_CASES } from '../harness/client-cases.ts'
import { denoVerdict } from './deno-run.ts'

describe('API client on Deno', () => {
  it('passes every client case over fetch', () => {
    const { verdict, status } = denoVerdict('deno-client-verdict.ts', 120_000)
    expect(String(verdict.runtime)).toMatch(/^deno /)
    expect(verdict.cases).toEqual(Object.fromEntries(Object.keys(CLIENT_CASES).map((name) => [name, true])))
    // Every request but the insecure-skip-tls-verify one (node:https: Deno.HttpClient cannot skip
    // verification), and the wrong-CA and refused ones: those fail at the connection the client
    // opens first to offer HTTP/2 (node:tls), before the server could say it speaks only HTTP/1.1.
    expect(verdict.fetches).toBe(16)
    expect(status).toBe(0)
  })
})
