// How the kind backend breaks the collector's view of the API server (scenario 7, `drop-watches`).
// Two ways, chosen by K8S_COLLECTOR_E2E_DISRUPT (e2e/README.md):
// - `network` (default): only the collector's path to the API server is cut, inside its pod's
//   network namespace on its node: a REJECT (tcp-reset) rule for the API service address and
//   `ss -K` on the open sockets. Every watch ends at once, reconnects are refused; the API server,
//   the controllers, the other pods and the reducer link are untouched, and deletes made meanwhile
//   go through the API as usual. Needs a kernel with socket destroy (CONFIG_INET_DIAG_DESTROY).
// - `apiserver`: the kube-apiserver container on the control-plane node is stopped (`crictl
//   stop`) and the kubelet starts it again. Broader: kube-controller-manager and kube-scheduler
//   usually lose their leases and restart too (new container ids in their pods).
import { waitFor } from '../harness/wait.ts'
import { exec, sleep } from '../harness/exec.ts'
import type { Kubectl } from './setup.ts'

export type DisruptMode = 'network' | 'apiserver'

export const DISRUPT_MODES: readonly DisruptMode[] = ['network', 'apiserver']

/**
 * How long the collector's path stays cut after `meanwhile` finished, ms (it retries meanwhile).
 * The whole cut must stay shorter than the leader's renew deadline less a retry period (10 − 2 s
 * in kind/collector.yaml): longer, and the leader rightly hands over to the standby (docs/behaviour.md §11).
 */
export const CUT_HOLD_MS = 2000

/** `docker exec <node> cmd…` (kind node containers are named like their Kubernetes nodes). */
const onNode = (node: string, args: readonly string[], timeoutMs = 30_000) => exec('docker', ['exec', node, ...args], { timeoutMs })

/** The PID holding the network namespace of pod `ns/name` on kind node `node`. */
async function podNetnsPid(node: string, namespace: string, name: string): Promise<string> {
  const ids = (await onNode(node, ['crictl', 'pods', '--namespace', namespace, '--name', `^${name}$`, '--state', 'ready', '-q'])).trim().split('\n').filter(Boolean)
  if (ids.length !== 1) throw new Error(`expected one ready sandbox for ${namespace}/${name} on ${node}, found ${ids.length}`)
  const info = JSON.parse(await onNode(node, ['crictl', 'inspectp', ids[0]!])) as { info?: { pid?: number } }
  const pid = info.info?.pid
  if (!pid) throw new Error(`crictl inspectp ${ids[0]} on ${node} shows no sandbox pid`)
  return String(pid)
}

/**
 * `network`: cuts pod `namespace/name` (on `node`) off the API service (`kubernetes.default`),
 * runs `meanwhile`, holds the cut {@link CUT_HOLD_MS} more, then restores it (also on failure).
 */
export async function cutApiPath(kubectl: Kubectl, target: { node: string; namespace: string; name: string }, meanwhile?: () => Promise<void>): Promise<void> {
  const apiIp = (await kubectl(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}'])).trim()
  const apiPort = (await kubectl(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.ports[0].port}'])).trim() || '443'
  const pid = await podNetnsPid(target.node, target.namespace, target.name)
  const inPod = (args: readonly string[]) => onNode(target.node, ['nsenter', '-t', pid, '-n', ...args])
  const rule = ['OUTPUT', '-p', 'tcp', '-d', apiIp, '--dport', apiPort, '-j', 'REJECT', '--reject-with', 'tcp-reset']
  const open = async () => (await inPod(['ss', '-Htn', 'state', 'established', 'dst', apiIp, 'dport', '=', `:${apiPort}`])).trim()
  await inPod(['iptables', '-I', ...rule])
  try {
    await inPod(['ss', '-tK', 'dst', apiIp, 'dport', '=', `:${apiPort}`])
    await waitFor(`the collector's API connections to be gone (ss -K: a kernel without CONFIG_INET_DIAG_DESTROY cannot; try K8S_COLLECTOR_E2E_DISRUPT=apiserver)`,
      async () => ((await open()) === '' ? true : undefined), { timeoutMs: 5000 })
    if (meanwhile) await meanwhile()
    await sleep(CUT_HOLD_MS)
  } finally {
    await inPod(['iptables', '-D', ...rule])
  }
}

/**
 * `apiserver`: stops the kube-apiserver container on `controlPlane`, waits for the kubelet to
 * start a new one and for /readyz, then runs `meanwhile` (racing the collector's re-list).
 */
export async function restartApiServer(kubectl: Kubectl, controlPlane: string, meanwhile?: () => Promise<void>): Promise<void> {
  const running = async () => (await onNode(controlPlane, ['crictl', 'ps', '--name', 'kube-apiserver', '--state', 'running', '-q'])).trim().split('\n')[0] ?? ''
  const before = await running()
  if (!before) throw new Error(`no running kube-apiserver container on ${controlPlane}`)
  await onNode(controlPlane, ['crictl', 'stop', '--timeout', '10', before], 40_000)
  await waitFor('the kubelet to start kube-apiserver again', async () => {
    const now = await running().catch(() => '')
    return now && now !== before ? now : undefined
  }, { timeoutMs: 180_000 })
  await waitFor('the API server to be ready again', async () => {
    const ok = await kubectl(['get', '--raw=/readyz', '--request-timeout=3s'], { timeoutMs: 5000 }).then((t) => t.trim() === 'ok', () => false)
    return ok ? true : undefined
  }, { timeoutMs: 180_000 })
  if (meanwhile) await meanwhile()
}
