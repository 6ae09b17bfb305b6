// kubectl (Debian package `kubectl`) against the API simulator: a raw watch returns compact JSON
// event lines and ends at the server timeout; `get pods -A -o json` lists exactly the stored pods.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSimulator, type Simulator } from '../sim/index.ts'
import { waitFor } from '../harness/wait.ts'

const run = promisify(execFile)

describe('kubectl against the simulator', () => {
  let dir: string
  let sim: Simulator
  let kubeconfig: string
  const kubectl = (...args: string[]) => run('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', timeout: 20_000, maxBuffer: 64 << 20 })

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kc-kubectl-'))
    kubeconfig = join(dir, 'kubeconfig')
    sim = await startSimulator({ nodes: 2, podStartDelayMs: 20 })
    await sim.writeKubeconfig(kubeconfig)
    sim.create('deployments', {
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } } },
    })
    sim.create('pods', { metadata: { name: 'bare', namespace: 'kube-system' }, spec: { containers: [{ name: 'solo', image: 'solo:1' }] } })
    await waitFor('3 running pods', () => {
      const pods = sim.list('pods')
      return pods.length === 3 && pods.every((p) => p.status?.phase === 'Running') ? true : undefined
    })
  })

  afterAll(async () => {
    await sim?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it("`get --raw '/api/v1/pods?watch=1&timeoutSeconds=1'` prints compact event lines and ends", async () => {
    const t = Date.now()
    const { stdout } = await kubectl('get', '--raw', '/api/v1/pods?watch=1&timeoutSeconds=1')
    const ms = Date.now() - t
    // Ended by the server's timeout, not by kubectl's.
    expect(ms).toBeGreaterThanOrEqual(900)
    expect(ms).toBeLessThan(10_000)
    const lines = stdout.split('\n').filter((l) => l !== '')
    const events = lines.map((l) => JSON.parse(l) as { type: string; object: { kind: string; metadata: { uid: string; resourceVersion: string } } })
    // One event per line, compact (re-serialising changes nothing).
    expect(lines).toEqual(events.map((e) => JSON.stringify(e)))
    const pods = sim.list('pods')
    expect(events.map((e) => e.type)).toEqual(pods.map(() => 'ADDED'))
    expect(events.map((e) => e.object.metadata.uid).sort()).toEqual(pods.map((p) => p.metadata.uid).sort())
    expect(events.every((e) => e.object.kind === 'Pod')).toBe(true)
  })

  it('`get pods -A -o json` items equal the stored pods', async () => {
    const get = async (...extra: string[]) => JSON.parse((await kubectl('get', 'pods', '-A', '-o', 'json', ...extra)).stdout) as { kind: string; items: any[] }
    const full = await get('--show-managed-fields')
    expect(full.kind).toBe('List')
    expect(full.items).toEqual(sim.list('pods'))
    // By default kubectl leaves managedFields out of its output; everything else is the stored object.
    const plain = await get()
    const withoutManagedFields = sim.list('pods').map(({ metadata: { managedFields: _, ...metadata }, ...rest }) => ({ ...rest, metadata }))
    expect(plain.items).toEqual(withoutManagedFields)
  })
})
