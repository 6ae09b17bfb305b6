// The collector needs no writable filesystem (kind/collector.yaml: readOnlyRootFilesystem: true):
// the single executable (Node SEA) and the bundle on Deno run against the API simulator and the tap
// with the root filesystem re-mounted read-only in a mount namespace (as root: `unshare -m`, a
// read-only bind of /; /proc and /dev stay as they are), HOME, TMPDIR, DENO_DIR and the working
// folder on it. Without root, those folders are made unwritable instead. Under strace (when
// installed) every syscall that could write a file is recorded: the collector makes none; `deno run`
// tries to create its cache folder (DENO_DIR) and carries on without it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTap, type Tap } from '../../src/tap/index.ts'
import { startSimulator, type Simulator } from '../sim/index.ts'
import { converged, expectedPods, type ClusterObjects } from '../harness/expect.ts'
import { freePort, RUNTIMES } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { createEveryOwnerShape } from './workload.ts'

const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0
const asRoot = process.getuid?.() === 0 && has('unshare') && spawnSync('unshare', ['-m', 'true']).status === 0
const strace = has('strace')
/** Syscalls that create, change or remove a file (opens only with a write flag count). */
const WRITE_SYSCALLS = 'open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,link,linkat,symlink,symlinkat,truncate,chmod,fchmodat,chown,lchown,fchownat,utimensat,mknodat'
const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/

/**
 * The write attempts in strace output, outside /dev and /proc, as `syscall("path") = result`; the
 * result is missing where another thread's call interrupted the line (`<unfinished ...>`).
 */
function writeAttempts(trace: string): { path: string; line: string; succeeded: boolean }[] {
  const out: { path: string; line: string; succeeded: boolean }[] = []
  for (const line of trace.split('\n')) {
    const m = /^\d+\s+(\w+)\([^"]*?"([^"]*)"(.*)$/.exec(line)
    if (!m) continue
    const [, call, path, rest] = m
    if (path!.startsWith('/dev/') || path!.startsWith('/proc/')) continue
    if (call!.startsWith('open') && !WRITE_FLAGS.test(rest!)) continue
    const result = /\)\s+=\s+(-?\d+)/.exec(rest!)?.[1]
    // mkdir of a folder that exists writes nothing.
    if (call!.startsWith('mkdir') && /EEXIST/.test(rest!)) continue
    out.push({ path: path!, line: `${call}("${path}")${result === undefined ? ' <unfinished>' : rest!.slice(rest!.lastIndexOf(')') + 1)}`, succeeded: result !== undefined && Number(result) >= 0 })
  }
  return out
}

describe.each(['sea', 'deno'])('collector on %s with nothing writable', (runtime) => {
  const hostname = `ro-${runtime}`
  let sim: Simulator
  let tap: Tap
  let dir: string
  let child: ChildProcess
  let stderr = ''
  let trace = ''
  const ro = { home: '', tmp: '', denoDir: '', work: '' }
  const cluster = (): ClusterObjects => ({ pods: sim.list('pods'), replicasets: sim.list('replicasets'), jobs: sim.list('jobs') })

  beforeAll(async () => {
    const cmd = RUNTIMES[runtime]!
    const artifact = cmd.find((a) => a.includes('/dist/'))!
    if (!existsSync(artifact)) throw new Error(`${artifact} is missing: run \`npm run build\` and \`npm run compile:sea\` first (npm test does)`)
    dir = mkdtempSync(join(tmpdir(), 'kc-ro-'))
    const kubeconfig = join(dir, 'kubeconfig')
    for (const k of Object.keys(ro) as (keyof typeof ro)[]) {
      ro[k] = join(dir, k)
      mkdirSync(ro[k])
      if (!asRoot) chmodSync(ro[k], 0o555)
    }
    sim = await startSimulator({ nodes: 2, jobRunMs: 600_000 })
    await sim.writeKubeconfig(kubeconfig)
    createEveryOwnerShape(sim)
    await waitFor('the workload to run', () => (expectedPods(cluster()).length >= 12 ? true : undefined), { describe: () => expectedPods(cluster()).length })
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    const collector = [
      ...cmd,
      'run', '--kubeconfig', kubeconfig, '--intake-host', '127.0.0.1', '--intake-port', String(tap.tcpPort),
      '--http-listen', `127.0.0.1:${await freePort()}`, '--hostname', hostname, '--log-format', 'json',
    ]
    // strace writes through `cat` to fd 3, a socket from here (no file is opened for it).
    const traced = strace ? ['strace', '-f', '-qq', '-o', '|cat >&3', '-e', `trace=${WRITE_SYSCALLS}`, ...collector] : collector
    // As root: / read-only from here on (submounts such as /proc and /dev kept), then the collector.
    const argv = asRoot
      ? ['unshare', '-m', '--propagation', 'private', 'sh', '-c', 'mount --rbind / / && mount -o remount,ro,bind / / && exec "$@"', 'sh', ...traced]
      : traced
    child = spawn(argv[0]!, argv.slice(1), {
      cwd: ro.work,
      detached: true, // its own process group: unshare, strace and the collector are stopped together
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', HOME: ro.home, TMPDIR: ro.tmp, DENO_DIR: ro.denoDir, XDG_CACHE_HOME: '' },
    })
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-200_000)))
    ;(child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => (trace += d.toString()))
  }, 60_000)

  afterAll(async () => {
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      process.kill(-child.pid, 'SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 8_000))])
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL')
    }
    await tap?.close()
    await sim?.close()
    if (dir) {
      for (const k of Object.values(ro)) if (k) chmodSync(k, 0o755)
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it(`syncs every pod with ${asRoot ? 'the root filesystem read-only (unshare -m, read-only bind mount)' : 'HOME, TMPDIR, DENO_DIR and the working folder unwritable'}`, async () => {
    const conn = await converged(async () => ({ cluster: cluster(), tap: tap.state() }), hostname, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\ncollector stderr (tail):\n${stderr.slice(-3000)}`)
    })
    expect(conn.epochs).toEqual([1])
    expect(stderr).not.toMatch(/"level":"(error|fatal)"/)
  }, 60_000)

  it.skipIf(!strace)('tries to write no file (strace)', () => {
    expect(trace, 'strace recorded nothing: did it run?').toMatch(/^\d+ /m)
    const attempts = writeAttempts(trace)
    const listed = attempts.map((a) => a.line).join('\n')
    if (runtime === 'deno') {
      // `deno run` itself: it tries to create its caches in DENO_DIR, fails, and goes on without them.
      expect(attempts.every((a) => a.path.startsWith(`${ro.denoDir}/`) || a.path === ro.denoDir), listed).toBe(true)
      expect(attempts.some((a) => a.succeeded), listed).toBe(false)
    } else {
      expect(listed).toBe('')
    }
  })
})
