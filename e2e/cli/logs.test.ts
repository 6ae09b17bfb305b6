// Every log line goes to stderr in both formats, whatever its level (issue 20): the built CLI with
// stdout and stderr kept apart, against an API server and a reducer that are not there.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { until } from '../harness/net.ts'
import { freePort, RUNTIMES } from '../harness/process.ts'

const dir = mkdtempSync(join(tmpdir(), 'cli-logs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the bundle until `enough(stderr)`, then SIGTERM; returns both streams and the exit code. */
async function runUntil(args: string[], enough: (stderr: string) => boolean): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const [node, ...prefix] = RUNTIMES.node!
  const child = spawn(node!, [...prefix, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: '' } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const seen = await until(() => (enough(stderr) ? true : undefined), 'the log lines', 20_000).catch(() => false)
  child.kill('SIGTERM')
  const code = await exited
  if (!seen) throw new Error(`the expected log lines did not come within 20 s; stderr:\n${stderr}`)
  return { stdout, stderr, code }
}

async function collectorArgs(format: string): Promise<string[]> {
  const kubeconfig = join(dir, `kubeconfig-${format}`)
  const api = await freePort()
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${api}"}}]\n` +
      `users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
  )
  const intake = await freePort()
  return ['run', '--kubeconfig', kubeconfig, '--intake-port', String(intake), '--http-listen', '127.0.0.1:0', '--log-format', format]
}

describe('run', () => {
  it('pretty: info and warn lines all on stderr, nothing on stdout', async () => {
    const r = await runUntil(await collectorArgs('pretty'), (e) => / INFO {2}\[run\] k8s-collector /.test(e) && / WARN {2}\[/.test(e))
    expect(r.stdout).toBe('')
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines.filter((l) => !/^\d\d:\d\d:\d\d\.\d{3} (INFO |WARN |DEBUG|ERROR|TRACE) /.test(l))).toEqual([])
    expect(r.stderr).toMatch(/ INFO {2}\[run\] kubeconfig: .*kubeconfig-pretty \(--kubeconfig\)\n/)
    expect(r.stderr).not.toContain('\x1b')
    expect(r.code).toBe(0)
  })

  it('json: the same, one object per line', async () => {
    const r = await runUntil(await collectorArgs('json'), (e) => e.includes('"level":"warn"') && e.includes('"level":"info"'))
    expect(r.stdout).toBe('')
    const levels = new Set(r.stderr.trimEnd().split('\n').map((l) => (JSON.parse(l) as { level: string }).level))
    expect(levels).toContain('info')
    expect(levels).toContain('warn')
  })
})

describe('tap', () => {
  it('pretty: the log on stderr, stdout left to the printed messages', async () => {
    const r = await runUntil(['tap', '--listen', '127.0.0.1:0', '--no-http', '--log-format', 'pretty'], (e) => e.includes('listening for collectors'))
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[tap\] listening for collectors on 127\.0\.0\.1:\d+\n/)
    expect(r.code).toBe(0)
  })
})
