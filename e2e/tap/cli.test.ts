// `k8s-collector tap` as a process: usage errors exit 2, a session prints concise lines, /state and
// --out reflect it, SIGTERM shuts down gracefully (exit 0).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SESSION, VERSION, collectorBytes } from '../harness/tap-fixtures.ts'
import { getJson, rawClient, until } from '../harness/net.ts'

/** The tap's ports, from the line it logs once it listens. */
const listeningPorts = (stderr: () => string, timeoutMs: number) =>
  until(() => {
    const m = /listening for collectors on 127\.0\.0\.1:(\d+), HTTP API on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr())
    return m ? { tcp: Number(m[1]), http: Number(m[2]) } : undefined
  }, 'the listening line', timeoutMs)

const root = resolve(import.meta.dirname, '../..')
// The full entry point for the running tap; the tap command alone for the quick usage cases.
const cli = ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'tap']
const tapOnly = ['--import', 'tsx', join(root, 'e2e/tap/run-tap.ts')]
const dir = mkdtempSync(join(tmpdir(), 'tap-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('usage errors', () => {
  it.each([
    [['--listen', 'nope'], '--listen="nope" is not HOST:PORT'],
    [['--http', '127.0.0.1:70000'], '--http="127.0.0.1:70000" is not HOST:PORT'],
    [['--silence-timeout', '0'], '--silence-timeout="0" is not a positive number'],
    [['--max-events', '1.5'], '--max-events="1.5" is not a whole number'],
    [['--log-level', 'loud'], '--log-level="loud" is not one of'],
    [['--lisen', '1:2'], 'unknown option --lisen'],
    [['extra'], 'unexpected argument "extra"'],
  ])('%j exits 2 with one line', (args, message) => {
    const run = spawnSync(process.execPath, [...tapOnly, ...args], { cwd: root, encoding: 'utf8', timeout: 20_000 })
    expect(run.status).toBe(2)
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining(message)])
  })

  it('exits 1 with one line when it cannot listen', async () => {
    const busy = await rawClientServer()
    const run = spawnSync(process.execPath, [...tapOnly, '--listen', `127.0.0.1:${busy.port}`, '--no-http', '--log-format', 'json'], { cwd: root, encoding: 'utf8', timeout: 20_000 })
    busy.close()
    expect(run.status).toBe(1)
    const lines = run.stderr.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toEqual([expect.objectContaining({ level: 'error', component: 'tap', msg: expect.stringContaining('EADDRINUSE') })])
  })
})

/** A listener occupying a port. */
async function rawClientServer(): Promise<{ port: number; close(): void }> {
  const { createServer } = await import('node:net')
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { port: (server.address() as { port: number }).port, close: () => server.close() }
}

describe('a running tap', () => {
  it('prints, serves /state, writes --out, and stops on SIGTERM', async () => {
    const out = join(dir, 'records.jsonl')
    const child: ChildProcess = spawn(
      process.execPath,
      [...cli, '--listen', '127.0.0.1:0', '--http', '127.0.0.1:0', '--out', out, '--print', '--log-format', 'json'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()))
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    try {
      const ports = await listeningPorts(() => stderr, 20_000)

      const client = await rawClient(ports.tcp)
      await client.write(collectorBytes(VERSION, SESSION))
      await until(() => (stdout.includes('pod_resync epoch=2') && stdout.split('\n').length > 20 ? true : undefined), 'the printed session')
      const lines = stdout.trimEnd().split('\n')
      expect(lines).toContain("#1 pod_new_with_name default/web-7d9f-abcde 10.244.1.5 owner=Deployment/web version='nginx:1.25'")
      expect(lines).toContain('#1 pod_delete batch/nightly-123-xyz')
      expect(lines.some((l) => l.includes('heartbeat'))).toBe(false) // keep-alive traffic hidden without --heartbeats

      const { body } = await getJson(ports.http, '/state')
      expect(body.connections[0]).toMatchObject({ id: 1, open: true, hostname: 'kc-host', epochs: [1, 2] })

      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      await client.closed
      const records = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
      expect(records.map((r) => r.type)).toEqual(['connection_open', 'version_info', ...SESSION.map((m) => m.type), 'connection_close'])
      expect(records.at(-1).reason).toMatchObject({ kind: 'shutdown' })
      expect(stderr).toContain('shutting down')
    } finally {
      child.kill('SIGKILL')
    }
  })
})

// The same sources run on Deno 2 (the `deno` npm package's binary), as `deno compile` ships them.
const deno = (() => {
  try {
    const bin = join(dirname(createRequire(import.meta.url).resolve('deno/package.json')), 'deno')
    return spawnSync(bin, ['--version']).status === 0 ? bin : undefined
  } catch {
    return undefined
  }
})()

describe.skipIf(!deno)('under Deno', () => {
  it('accepts a session, serves /state and stops on SIGTERM', async () => {
    const child = spawn(deno!, ['run', '-A', join(root, 'e2e/tap/run-tap.ts'), '--listen', '127.0.0.1:0', '--http', '127.0.0.1:0', '--log-format', 'json'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    try {
      const ports = await listeningPorts(() => stderr, 30_000)
      const client = await rawClient(ports.tcp)
      await client.write(collectorBytes(VERSION, SESSION))
      let conn: any
      for (let i = 0; i < 200 && conn?.counters?.messages !== SESSION.length + 1; i++) {
        conn = (await getJson(ports.http, '/state')).body.connections[0]
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(conn).toMatchObject({ open: true, epochs: [1, 2], counters: { messages: SESSION.length + 1, ignored: 2 } })
      expect(conn.pods.map((p: any) => p.uid)).toEqual(['u-web'])
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      await client.closed
    } finally {
      child.kill('SIGKILL')
    }
  })
})
