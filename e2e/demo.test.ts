// `npm run demo` (the README's first command) as a user runs it: the tour shows the reducer receiving
// the workload, the rollout and deletes, the collector's Kubernetes Events when the reducer stops, the
// reducer restart's epoch 2, and ends by itself with exit 0; `--forever` keeps it running after the
// tour. Each step waits for what it shows, never for a fixed time: a loaded machine only makes it slower.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { waitFor } from './harness/wait.ts'
import { root } from './harness/process.ts'

/** Each step of the tour may take 90 s on a loaded machine; six of them and the start fit in this. */
const TOUR_LIMIT_MS = 600_000

function startDemo(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'demo.ts'), ...args], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  return { child, output: () => out, exited }
}

it('tours the cluster, restarts the reducer into epoch 2, and ends by itself with exit 0', async () => {
  const demo = startDemo([])
  const code = await demo.exited
  const out = demo.output()
  expect(code, out).toBe(0)
  expect(out).toContain('pod_resync epoch=1')
  expect(out).toMatch(/pod_new_with_name default\/web-\S+ 10\.244\.\d+\.\d+ owner=Deployment\/web/)
  expect(out).toMatch(/pod_new_with_name default\/nightly-\S+ .* owner=CronJob\/nightly/)
  expect(out).toMatch(/pod_new_with_name kube-system\/hostnet-\S+ 172\.18\.0\.\d+ owner=Other\/hostnet hostNetwork/)
  expect(out).toContain('rolling out web')
  expect(out).toMatch(/pod_delete default\/web-/)
  expect(out).toMatch(/pod_delete default\/bare\b/)
  expect(out).toContain('[event] Normal ReducerConnected pod/k8s-collector-demo: Connected to the reducer at 127.0.0.1:')
  expect(out).toContain('[event] Warning ReducerUnreachable pod/k8s-collector-demo: Lost the connection to the reducer at 127.0.0.1:')
  // The reducer restart: the new connection starts epoch 2 and the reducer holds every pod again.
  expect(out).toContain('pod_resync epoch=2')
  expect(out).toContain('[demo] epoch 2: a new reducer connection began with pod_resync 2')
  expect(out).toMatch(/✓ the reducer holds exactly the cluster's \d+ pods \(epoch 2\)/)
  expect(out).toMatch(/summary: \d+ pods .*; epoch 2;/)
  expect(out).toContain('[demo] tour done\n')
}, TOUR_LIMIT_MS)

it('keeps running after the tour with --forever, until SIGTERM', async () => {
  const demo = startDemo(['--forever'])
  try {
    const done = await waitFor('the end of the tour', () => {
      const at = demo.output().indexOf('[demo] tour done; still running')
      return at >= 0 ? at : undefined
    }, { timeoutMs: TOUR_LIMIT_MS - 60_000, describe: () => demo.output().slice(-3000) })
    // Still running: a periodic summary comes after the tour.
    await waitFor('a summary after the tour', () => (/\[demo\] summary: /.test(demo.output().slice(done)) ? true : undefined), {
      timeoutMs: 60_000,
      describe: () => demo.output().slice(done),
    })
    expect(demo.child.exitCode).toBe(null)
    demo.child.kill('SIGTERM')
    expect(await demo.exited, demo.output()).toBe(0)
    expect(demo.output()).toContain('pod_resync epoch=2')
  } finally {
    if (demo.child.exitCode === null) demo.child.kill('SIGKILL')
  }
}, TOUR_LIMIT_MS)
