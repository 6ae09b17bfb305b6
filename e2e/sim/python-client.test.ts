// A second independent client in the conformance tests (issue 20): Debian's python3-kubernetes creates,
// lists with pagination and watches the simulator, resuming by itself when the server ends the watch.
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSimulator, type Simulator } from './index.ts'
import { until } from './test-client.ts'

const PYTHON = '/usr/bin/python3'
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'python-client.py')
const dir = mkdtempSync(join(tmpdir(), 'sim-python-'))
let sim: Simulator

beforeAll(async () => {
  sim = await startSimulator({ nodes: 2, podStartDelayMs: 10 })
  await sim.writeKubeconfig(join(dir, 'kubeconfig'))
  sim.create('namespaces', { metadata: { name: 'python' } })
})
afterAll(async () => {
  await sim?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('python3-kubernetes against the simulator', () => {
  it('creates, lists in pages, watches ADDED/MODIFIED/DELETED and resumes after the server ends the watch', async () => {
    // Not a skip: without the package this test fails and says what to install.
    try {
      await promisify(execFile)(PYTHON, ['-c', 'import kubernetes'])
    } catch (err) {
      throw new Error(`the Python Kubernetes client is missing: apt-get install python3-kubernetes (.ci/run installs it); ${PYTHON} -c 'import kubernetes' failed: ${(err as Error).message}`)
    }
    const child = spawn(PYTHON, ['-u', SCRIPT, join(dir, 'kubeconfig'), 'python'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: any[] = []
    let stderr = ''
    let buf = ''
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString()
      let nl
      while ((nl = buf.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buf.slice(0, nl)))
        buf = buf.slice(nl + 1)
      }
    })
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    try {
      const step = (name: string) => until(`the Python client's "${name}" step (stderr: ${stderr.slice(-2000)})`, () => lines.some((l) => l.step === name), 15_000)
      const events = () => lines.filter((l) => l.step === 'event')
      await step('listed')
      const listed = lines.find((l) => l.step === 'listed')
      expect(listed).toMatchObject({ pages: 3, names: ['py-0', 'py-1', 'py-2', 'py-3', 'py-4'] })
      expect(sim.list('pods', 'python').map((p) => p.metadata.labels)).toEqual(Array(5).fill({ 'made-by': 'python' }))

      // Changes after the list: a label on one pod, another deleted (gracefully: MODIFIED, then DELETED).
      await until('the watch to open', () => sim.stats.watchesOpen > 0, 15_000)
      const labelled = sim.patch('pods', 'python', 'py-1', { metadata: { labels: { seen: 'yes' } } })
      sim.delete('pods', 'python', 'py-0')
      await until('py-1 MODIFIED and py-0 DELETED', () =>
        events().some((e) => e.type === 'MODIFIED' && e.name === 'py-1' && Number(e.resourceVersion) >= Number(labelled.metadata.resourceVersion)) &&
        events().some((e) => e.type === 'DELETED' && e.name === 'py-0'), 15_000)

      // The server ends the watch: the client resumes from its last resourceVersion (no relist, no replay).
      const before = events().length
      sim.faults.dropWatches()
      sim.create('pods', { metadata: { name: 'after-drop', namespace: 'python' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
      sim.create('pods', { metadata: { name: 'stop-watch', namespace: 'python' }, spec: { containers: [{ name: 'c', image: 'i' }] } })
      await step('done')
      expect(await exited).toBe(0)
      const resumed = events().slice(before)
      expect(resumed.filter((e) => e.type === 'ADDED').map((e) => e.name)).toEqual(['after-drop', 'stop-watch'])
      const rvs = events().map((e) => Number(e.resourceVersion))
      expect(rvs).toEqual([...rvs].sort((a, b) => a - b)) // in order, nothing seen twice
      expect(new Set(rvs).size).toBe(rvs.length)
      expect(events().filter((e) => e.type === 'ADDED').map((e) => e.name)).toEqual(['after-drop', 'stop-watch'])
      expect(sim.stats.faultLog.map((r) => r.fault)).toContain('dropWatches')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
