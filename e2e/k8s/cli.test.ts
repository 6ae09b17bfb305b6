// `npm run control-plane` as an operator runs it: usage errors, the kubeconfig written once every
// node is Ready, the real server behind it, and nothing left after SIGTERM (processes or state),
// unless --state-dir keeps the state, which a second run then starts from.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'vitest'
import { exec } from '../harness/exec.ts'
import { root } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'

const tsx = join(root, 'node_modules', '.bin', 'tsx')
const cli = join(root, 'e2e', 'k8s', 'cli.ts')

/** Every process descended from `pid` (from /proc). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = []
  const walk = (p: number) => {
    for (const [child, pp] of parent) if (pp === p) out.push(child), walk(child)
  }
  walk(pid)
  return out
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))

/** Runs the CLI until it says it is ready; returns the process, its stdout line and its component processes. */
async function startCli(args: string[]) {
  const child = spawn(tsx, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const line = await waitFor('the ready line', () => {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${err}`)
    return out.includes('\n') ? out.trim() : undefined
  }, { timeoutMs: 120_000, intervalMs: 200 })
  const names = descendants(child.pid!).map((pid) => ({ pid, comm: readFileSync(`/proc/${pid}/comm`, 'utf8').trim() }))
  return { child, line, exited, names, stderr: () => err }
}

describe('npm run control-plane', () => {
  it('bad flags: one line per problem, exit 2', async () => {
    const err = await exec(tsx, [cli, '--nodes', '0', '--feature-gates', 'nope'], { timeoutMs: 30_000 }).then(
      () => assert.fail('exit 0'),
      (e: { code: number; stderr: string }) => e,
    )
    assert.equal(err.code, 2)
    const lines = err.stderr.split('\n').filter((l) => l.startsWith('control-plane: '))
    assert.deepEqual(lines, [
      'control-plane: --nodes="0" is not a whole number from 1 to 100',
      'control-plane: --kubeconfig-out FILE is required',
      'control-plane: --feature-gates="nope" is not a list of Name=true|false',
    ])
  })

  it('serves the real API with every node Ready, then leaves no process and no state after SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-cli-'))
    const kubeconfig = join(dir, 'kubeconfig')
    try {
      const run = await startCli(['--kubeconfig-out', kubeconfig, '--nodes', '2'])
      assert.match(run.line, /^control-plane: Kubernetes v1\.\d+\.\d+ ready at https:\/\/127\.0\.0\.1:\d+ with 2 nodes; kubeconfig in /)
      // Its components run under their upstream names.
      const comms = run.names.map((n) => n.comm)
      for (const name of ['etcd', 'kube-apiserver', 'kube-controller-ma', 'kube-scheduler', 'kwok']) {
        assert.ok(comms.some((c) => name.startsWith(c) || c.startsWith(name)), `${name} among ${comms.join(', ')}`)
      }
      const nodes = JSON.parse(await exec('kubectl', ['--kubeconfig', kubeconfig, 'get', 'nodes', '-o', 'json'])) as { items: Array<{ status: { conditions: Array<{ type: string; status: string }> } }> }
      assert.equal(nodes.items.length, 2)
      assert.ok(nodes.items.every((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')))
      const version = JSON.parse(await exec('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/version'])) as { gitVersion: string }
      assert.match(run.line, new RegExp(`Kubernetes ${version.gitVersion.replaceAll('.', '\\.')} ready`))
      const state = /\(logs in (.+)\/logs\)/.exec(run.line)![1]!
      assert.ok(existsSync(state))
      run.child.kill('SIGTERM')
      assert.equal(await run.exited, 0)
      const left = run.names.filter((n) => alive(n.pid))
      assert.deepEqual(left, [], 'no process left')
      assert.ok(!existsSync(state), 'the state folder is removed')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)

  it('--state-dir keeps the certificates and objects, and a second run starts from them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-cli-'))
    const state = join(dir, 'state')
    const kubeconfig = join(dir, 'kubeconfig')
    try {
      const first = await startCli(['--kubeconfig-out', kubeconfig, '--nodes', '1', '--state-dir', state])
      await exec('kubectl', ['--kubeconfig', kubeconfig, 'create', 'configmap', 'kept', '--from-literal=a=b'])
      first.child.kill('SIGTERM')
      assert.equal(await first.exited, 0)
      assert.ok(existsSync(join(state, 'pki', 'ca.crt')) && existsSync(join(state, 'etcd')))
      const ca = readFileSync(join(state, 'pki', 'ca.crt'), 'utf8')
      const second = await startCli(['--kubeconfig-out', kubeconfig, '--nodes', '1', '--state-dir', state])
      try {
        assert.equal(readFileSync(join(state, 'pki', 'ca.crt'), 'utf8'), ca, 'the same CA')
        assert.equal((await exec('kubectl', ['--kubeconfig', kubeconfig, 'get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}'])).trim(), 'b')
      } finally {
        second.child.kill('SIGTERM')
        assert.equal(await second.exited, 0)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 240_000)
})
