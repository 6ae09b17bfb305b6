// `npm run demo` (the README's first command) as a user runs it: a short, bounded run must show the
// reducer receiving the workload, the rollout and deletes, the collector's Kubernetes Events when the
// reducer stops for a moment, a summary, and end cleanly.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { root } from './harness/process.ts'

it('runs the simulator, the collector and the tap and prints what the reducer receives', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'demo.ts'), '--duration', '30'], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  expect(code, out).toBe(0)
  expect(out).toContain('pod_resync epoch=1')
  expect(out).toMatch(/pod_new_with_name default\/web-\S+ 10\.244\.\d+\.\d+ owner=Deployment\/web/)
  expect(out).toMatch(/pod_new_with_name default\/nightly-\S+ .* owner=CronJob\/nightly/)
  expect(out).toMatch(/pod_new_with_name kube-system\/hostnet-\S+ 172\.18\.0\.\d+ owner=Other\/hostnet hostNetwork/)
  expect(out).toContain('rolling out web')
  expect(out).toMatch(/pod_delete default\/web-/)
  expect(out).toMatch(/summary: \d+ pods/)
  expect(out).toContain('[event] Normal ReducerConnected pod/k8s-collector-demo: Connected to the reducer at 127.0.0.1:')
  expect(out).toContain('[event] Warning ReducerUnreachable pod/k8s-collector-demo: Lost the connection to the reducer at 127.0.0.1:')
}, 75_000)
