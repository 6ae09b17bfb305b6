// The simulator's command line as people run it (issues 18 and 20): `npm run sim` stops with all its
// processes on SIGTERM to npm, and a second run on the same state directory serves the same CA,
// credentials and objects on the same port.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort, root } from '../harness/process.ts'
import { kubectl, until } from './test-client.ts'

const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'))
const children: ChildProcess[] = []
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  // Whatever survived a failed test: found by the unique directory in its arguments.
  for (const pid of await processesWith(dir)) process.kill(pid, 'SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

/** Pids of processes whose command line contains `marker` (this test's directory). */
async function processesWith(marker: string): Promise<number[]> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
  return stdout.split('\n').filter((l) => l.includes(marker)).map((l) => Number(l.trim().split(/\s+/)[0])).filter((pid) => pid !== process.pid)
}

const portOpen = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect({ host: '127.0.0.1', port })
  s.once('connect', () => {
    s.destroy()
    resolve(true)
  })
  s.once('error', () => resolve(false))
})

/** `npm run sim -- …` as a child; resolves once it serves. */
async function npmRunSim(args: string[]): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('npm', ['run', 'sim', '--', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  await until('the simulator to serve', () => {
    if (child.exitCode !== null) throw new Error(`npm run sim exited: ${output}`)
    return output.includes('sim: serving')
  }, 20_000)
  return { child, output: () => output }
}

describe('npm run sim', () => {
  it('SIGTERM to npm stops every process and frees the port; a restart on the state directory keeps CA, token and objects', async () => {
    const port = await freePort()
    const stateDir = join(dir, 'state')
    const kubeconfig = join(dir, 'first.kubeconfig')
    const first = await npmRunSim(['--kubeconfig-out', kubeconfig, '--port', String(port), '--state-dir', stateDir, '--no-controllers'])
    await kubectl(kubeconfig, 'create', 'namespace', 'survives-restart')
    expect((await processesWith(dir)).length).toBeGreaterThanOrEqual(3) // npm, sh, tsx, node

    first.child.kill('SIGTERM')
    await until('every process of the first run gone and the port free', async () =>
      (await processesWith(dir)).length === 0 && !(await portOpen(port)), 10_000)
    expect(first.output()).toMatch(/sim: (SIGTERM|launcher gone.*), stopping/)

    const second = await npmRunSim(['--kubeconfig-out', join(dir, 'second.kubeconfig'), '--port', String(port), '--state-dir', stateDir, '--no-controllers'])
    // The first run's kubeconfig still works: same URL, same CA, same client certificate.
    expect(await kubectl(kubeconfig, 'get', 'namespace', 'survives-restart', '-o', 'name')).toBe('namespace/survives-restart\n')
    second.child.kill('SIGTERM')
    await until('every process of the second run gone', async () => (await processesWith(dir)).length === 0 && !(await portOpen(port)), 10_000)
  })
})
