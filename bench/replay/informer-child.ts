// Child process of the `informer` section: the obvious alternative a user would write —
// @kubernetes/client-node `makeInformer` for pods, replicasets and jobs — against the replay
// server. Prints `{"synced":true}` once every listed object was added to the informer caches.
// Usage: informer-child.ts KUBECONFIG PODS REPLICASETS JOBS
import { AppsV1Api, BatchV1Api, CoreV1Api, KubeConfig, makeInformer, type Informer, type KubernetesObject } from '@kubernetes/client-node'

const [kubeconfig, podsArg, rsArg, jobsArg] = process.argv.slice(2)
const kc = new KubeConfig()
kc.loadFromFile(kubeconfig!)
const core = kc.makeApiClient(CoreV1Api)
const apps = kc.makeApiClient(AppsV1Api)
const batch = kc.makeApiClient(BatchV1Api)

const expected = Number(podsArg) + Number(rsArg) + Number(jobsArg)
let added = 0
const informers: Informer<KubernetesObject>[] = [
  makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces()),
  makeInformer(kc, '/apis/apps/v1/replicasets', () => apps.listReplicaSetForAllNamespaces()),
  makeInformer(kc, '/apis/batch/v1/jobs', () => batch.listJobForAllNamespaces()),
] as Informer<KubernetesObject>[]
for (const inf of informers) {
  inf.on('add', () => {
    if (++added === expected) process.stdout.write(JSON.stringify({ synced: true, added }) + '\n')
  })
  inf.on('error', (err: unknown) => process.stderr.write(`informer error: ${String(err)}\n`))
  void inf.start()
}
// Keep the caches referenced (a real program reads them).
setInterval(() => {
  let n = 0
  for (const inf of informers) n += (inf as unknown as { list(): unknown[] }).list().length
  if (n < 0) process.stdout.write('')
}, 60_000)
