// The simulator's conformance checks with real clients (e2e/sim: client-node, the Python client),
// run against the real kube-apiserver as well (issue 30 item 5): what those clients expect of the
// simulator, the real server does too. kubectl runs against it in every other suite of e2e/k8s.
import { KubeConfig } from '@kubernetes/client-node'
import { clientNodeListWatch } from '../harness/client-node-checks.ts'
import { execFile, spawn } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKubectl, type Kubectl } from '../harness/kubectl.ts'
import { root } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { deployment } from '../scenarios/workloads.ts'
import { startControlPlane, type ControlPlane } from './control-plane.ts'

const PYTHON = '/usr/bin/python3'

describe('real clients against the real kube-apiserver, as against the simulator', () => {
  let plane: ControlPlane
  let kubectl: Kubectl

  beforeAll(async () => {
    // --min-request-timeout=5: a watch without timeoutSeconds (the Python client's) is ended by the
    // server after 5–10 s, cleanly, as a real server ends it after 30–60 min.
    plane = await startControlPlane({ nodes: 1, apiserverArgs: ['--min-request-timeout=5'] })
    kubectl = createKubectl(plane.adminKubeconfig)
    await kubectl(['create', 'namespace', 'python'])
  }, 120_000)

  afterAll(async () => {
    await plane?.stop()
  }, 60_000)

  it('client-node lists with pagination and watches ADDED, MODIFIED, DELETED', async () => {
    const kc = new KubeConfig()
    kc.loadFromFile(plane.adminKubeconfig)
    await clientNodeListWatch(kc, deployment('cn', 3), (core) => waitFor('3 running cn pods', async () => {
      const pods = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=cn' })
      return pods.items.filter((p) => p.status?.phase === 'Running').length === 3 ? true : undefined
    }, { timeoutMs: 60_000 }))
  }, 120_000)

  it('python3-kubernetes creates, lists in pages, watches and resumes after the server ends the watch', async () => {
    try {
      await promisify(execFile)(PYTHON, ['-c', 'import kubernetes'])
    } catch (err) {
      throw new Error(`the Python Kubernetes client is missing: apt-get install python3-kubernetes (.ci/run installs it): ${(err as Error).message}`)
    }
    const child = spawn(PYTHON, ['-u', join(root, 'e2e', 'sim', 'python-client.py'), plane.adminKubeconfig, 'python'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: any[] = []
    let stderr = ''
    let buf = ''
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString()
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        lines.push(JSON.parse(buf.slice(0, nl)))
        buf = buf.slice(nl + 1)
      }
    })
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const events = () => lines.filter((l) => l.step === 'event')
    const step = (name: string) => waitFor(`the Python client's "${name}" step`, () => (lines.some((l) => l.step === name) ? true : undefined), { timeoutMs: 60_000, describe: () => stderr.slice(-2000) })
    try {
      await step('listed')
      expect(lines.find((l) => l.step === 'listed')).toMatchObject({ pages: 3, names: ['py-0', 'py-1', 'py-2', 'py-3', 'py-4'] })
      // Changes after the list: the watch starts from the list's resourceVersion, so it sees them
      // whether it opened before or after they were made.
      await kubectl(['label', 'pod', 'py-1', '-n', 'python', 'seen=yes'])
      // No --wait: kubectl would watch the pod, and only the Python client's watches may count below.
      await kubectl(['delete', 'pod', 'py-0', '-n', 'python', '--wait=false'])
      await waitFor('py-1 MODIFIED and py-0 DELETED', () =>
        events().some((e) => e.type === 'MODIFIED' && e.name === 'py-1') && events().some((e) => e.type === 'DELETED' && e.name === 'py-0') ? true : undefined,
      { timeoutMs: 30_000 })
      // The server ends the watch (its request timeout): the client resumes from its last
      // resourceVersion. The server's own count of finished namespaced pod watches says it happened.
      const before = events().length
      const endedWatches = async () => {
        const text = (await plane.admin.request('GET', '/metrics')).body
        const ended = text.split('\n').filter((l) => l.startsWith('apiserver_request_total{') && l.includes('verb="WATCH"') && l.includes('resource="pods"') && l.includes('scope="namespace"'))
        return ended.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)
      }
      const baseline = await endedWatches()
      await waitFor('the server to end the Python client\'s watch', async () => ((await endedWatches()) > baseline ? true : undefined), { timeoutMs: 30_000, intervalMs: 500 })
      await kubectl(['run', 'after-drop', '-n', 'python', '--image=busybox:1.36', '--restart=Never'])
      await kubectl(['run', 'stop-watch', '-n', 'python', '--image=busybox:1.36', '--restart=Never'])
      await step('done')
      expect(await exited).toBe(0)
      expect(events().slice(before).filter((e) => e.type === 'ADDED').map((e) => e.name)).toEqual(['after-drop', 'stop-watch'])
      const rvs = events().map((e) => Number(e.resourceVersion))
      expect(rvs).toEqual([...rvs].sort((a, b) => a - b)) // in order, nothing seen twice
      expect(new Set(rvs).size).toBe(rvs.length)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  }, 180_000)
})
