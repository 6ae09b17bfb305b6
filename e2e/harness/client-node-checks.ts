// One conformance check with @kubernetes/client-node, run against the simulator (e2e/sim) and the
// real kube-apiserver (e2e/k8s) alike: pagination over a consistent snapshot, then a watch from the
// list's resourceVersion through a pod's graceful delete and its replacement.
import { AppsV1Api, CoreV1Api, Watch, type KubeConfig } from '@kubernetes/client-node'
import { expect } from 'vitest'
import { waitFor } from './wait.ts'

/**
 * Creates `deployment` (3 replicas, label app=cn, in `default`), waits with `running` for its pods,
 * lists them two at a time, watches from the list through a delete; removes the Deployment.
 */
export async function clientNodeListWatch(kc: KubeConfig, deployment: object, running: (core: CoreV1Api) => Promise<unknown>): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api)
  const apps = kc.makeApiClient(AppsV1Api)
  await apps.createNamespacedDeployment({ namespace: 'default', body: deployment as never })
  await running(core)
  const first = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=cn', limit: 2 })
  expect(first.items).toHaveLength(2)
  expect(first.metadata?._continue).toBeTruthy()
  const rest = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=cn', limit: 2, _continue: first.metadata!._continue })
  expect(rest.items).toHaveLength(1)
  expect(rest.metadata?._continue).toBeFalsy()
  expect(rest.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion)

  const events: string[] = []
  const req = await new Watch(kc).watch('/api/v1/namespaces/default/pods', { resourceVersion: first.metadata!.resourceVersion, labelSelector: 'app=cn' },
    (type, obj) => events.push(`${type} ${obj.metadata.name}`), () => {})
  try {
    const victim = first.items[0]!.metadata!.name!
    await core.deleteNamespacedPod({ name: victim, namespace: 'default' })
    await waitFor('DELETED of the victim', () => (events.includes(`DELETED ${victim}`) ? true : undefined), { timeoutMs: 30_000 })
    expect(events).toContain(`MODIFIED ${victim}`) // deletionTimestamp set, then removed
    await waitFor('a replacement ADDED', () => (events.some((e) => e.startsWith('ADDED ')) ? true : undefined), { timeoutMs: 30_000 })
  } finally {
    req.abort()
  }
  await apps.deleteNamespacedDeployment({ name: 'cn', namespace: 'default' })
}
