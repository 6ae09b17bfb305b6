// Test helpers of the simulator's suites: raw HTTPS requests and watch streams against a running
// simulator, kubectl with its kubeconfig, and polling until a condition holds.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll } from 'vitest'
import { startSimulator } from './index.ts'
import type { SimOptions, Simulator } from './types.ts'

/** A test file's simulator: started before its tests with a kubeconfig in a temporary directory. */
export interface TestSimulator {
  readonly sim: Simulator
  /** The temporary directory (removed after the tests). */
  readonly dir: string
  /** A certificate kubeconfig in `dir`. */
  readonly kubeconfig: string
}

/** Registers beforeAll/afterAll hooks that start the simulator and close and clean up after the file's tests. */
export function useSimulator(opts: SimOptions, prefix = 'sim-test-'): TestSimulator {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const kubeconfig = join(dir, 'kubeconfig')
  let sim: Simulator | undefined
  beforeAll(async () => {
    sim = await startSimulator(opts)
    await sim.writeKubeconfig(kubeconfig)
  })
  afterAll(async () => {
    await sim?.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    get sim() {
      if (!sim) throw new Error('the simulator is not started yet (use it inside tests or hooks)')
      return sim
    },
    dir, kubeconfig,
  }
}

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

export interface RawOptions {
  method?: string
  headers?: Record<string, string>
  /** A string, or an object sent as JSON (Content-Type set unless given). */
  body?: string | object
  /** Bearer token: the simulator's by default, null for none. */
  token?: string | null
  /** An agent of the caller's (TLS session reuse, client certificates). */
  agent?: https.Agent
}

/** One request to the simulator (TLS verification is what the kubectl/client-node tests cover). */
export function raw(sim: Pick<Simulator, 'url' | 'token'>, path: string, opts: RawOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) }
    if (opts.token !== null) headers.Authorization = `Bearer ${opts.token ?? sim.token}`
    let body = opts.body
    if (body !== undefined && typeof body !== 'string') {
      body = JSON.stringify(body)
      headers['Content-Type'] ??= 'application/json'
    }
    const req = https.request(new URL(path, sim.url), {
      method: opts.method ?? 'GET', headers, rejectUnauthorized: false, ...(opts.agent ? { agent: opts.agent } : {}),
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A raw request whose body must be JSON: the status and the parsed body. */
export async function rawJson(sim: Pick<Simulator, 'url' | 'token'>, path: string, opts: RawOptions = {}): Promise<{ status: number; body: any }> {
  const res = await raw(sim, path, opts)
  try {
    return { status: res.status, body: JSON.parse(res.body) }
  } catch {
    throw new Error(`${opts.method ?? 'GET'} ${path}: ${res.status}, not JSON: ${res.body.slice(0, 300)}`)
  }
}

/**
 * Reads a watch stream's lines (parsed; unparsable ones as `{malformed}`) until `stop` says enough
 * or the server ends the body.
 */
export function watchLines(
  sim: Pick<Simulator, 'url' | 'token'>, path: string, stop: (lines: any[]) => boolean, headers: Record<string, string> = {},
): Promise<{ status: number; lines: any[]; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, sim.url), { headers: { Authorization: `Bearer ${sim.token}`, ...headers }, rejectUnauthorized: false }, (res) => {
      const lines: any[] = []
      let buf = ''
      let done = false
      const finish = (ended: boolean) => {
        if (done) return
        done = true
        req.destroy()
        resolve({ status: res.statusCode!, lines, ended })
      }
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        buf += d
        let nl
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl)
          buf = buf.slice(nl + 1)
          try {
            lines.push(JSON.parse(line))
          } catch {
            lines.push({ malformed: line })
          }
          if (stop(lines)) return finish(false)
        }
      })
      res.on('end', () => finish(true))
      res.on('error', () => finish(true))
    })
    req.on('error', reject)
    req.end()
  })
}

/** Polls `check` every 25 ms until it holds; fails with `what` after `ms`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * kubectl with a kubeconfig: stdout, or an Error carrying stderr. Asynchronous on purpose: the
 * simulator usually runs in the test's own process, a synchronous exec would block it.
 */
export async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  try {
    return (await promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })).stdout
  } catch (err) {
    const e = err as Error & { stderr?: string }
    throw new Error(`kubectl ${args.join(' ')}: ${e.stderr?.trim() || e.message}`)
  }
}

/** The CA, client certificate and key (PEM) written into a certificate kubeconfig. */
export function kubeconfigCredentials(kubeconfig: string): { ca: string; cert: string; key: string } {
  const field = (name: string) => {
    const m = kubeconfig.match(new RegExp(`${name}: (\\S+)`))
    if (!m) throw new Error(`kubeconfig has no ${name}`)
    return Buffer.from(m[1], 'base64').toString('utf8')
  }
  return { ca: field('certificate-authority-data'), cert: field('client-certificate-data'), key: field('client-key-data') }
}
