// Child process of the `informer` section: the obvious alternative a user would write —
// @kubernetes/client-node `makeInformer` for pods, replicasets and jobs — against the replay
// server. Prints `{"synced":true}` once every listed object was added to the informer caches, or
// `{"error":"…"}` at the first informer error (and exits: the informer would retry forever).
// Usage: informer-child.ts KUBECONFIG PODS REPLICASETS JOBS [whole|paginated]
//   whole (default): typed list calls without `limit`, as a user writes them;
//   paginated: the same calls paged with limit=500 + continue, merged into one list (what a user
//   must write once the whole list no longer fits one JavaScript string).
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  makeInformer,
  type Informer,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node'

const [kubeconfig, podsArg, rsArg, jobsArg, modeArg] = process.argv.slice(2)
const paginated = modeArg === 'paginated'
const kc = new KubeConfig()
kc.loadFromFile(kubeconfig!)
const core = kc.makeApiClient(CoreV1Api)
const apps = kc.makeApiClient(AppsV1Api)
const batch = kc.makeApiClient(BatchV1Api)

type Page = { limit?: number; _continue?: string }
/** `list(page)` until the server stops handing out continue tokens; items merged, last metadata kept. */
function lister<T extends KubernetesObject>(list: (page: Page) => Promise<KubernetesListObject<T>>): () => Promise<KubernetesListObject<T>> {
  if (!paginated) return () => list({})
  return async () => {
    const items: T[] = []
    let token: string | undefined
    for (;;) {
      const page = await list({ limit: 500, ...(token ? { _continue: token } : {}) })
      for (const item of page.items) items.push(item)
      token = page.metadata?._continue
      if (!token) return { ...page, items }
    }
  }
}

const expected = Number(podsArg) + Number(rsArg) + Number(jobsArg)
let added = 0
let failed = false
const informers: Informer<KubernetesObject>[] = [
  makeInformer(kc, '/api/v1/pods', lister((p) => core.listPodForAllNamespaces(p))),
  makeInformer(kc, '/apis/apps/v1/replicasets', lister((p) => apps.listReplicaSetForAllNamespaces(p))),
  makeInformer(kc, '/apis/batch/v1/jobs', lister((p) => batch.listJobForAllNamespaces(p))),
] as Informer<KubernetesObject>[]
for (const inf of informers) {
  inf.on('add', () => {
    if (++added === expected) process.stdout.write(JSON.stringify({ synced: true, added }) + '\n')
  })
  inf.on('error', (err: unknown) => {
    if (failed) return
    failed = true
    process.stdout.write(JSON.stringify({ error: err instanceof Error ? err.message : String(err), added }) + '\n')
    setTimeout(() => process.exit(2), 500) // the parent reads the line first
  })
  void inf.start()
}
// Keep the caches referenced (a real program reads them).
setInterval(() => {
  let n = 0
  for (const inf of informers) n += (inf as unknown as { list(): unknown[] }).list().length
  if (n < 0) process.stdout.write('')
}, 60_000)
