// DaemonSet controller: one pod per node (bound directly), replaced one at a time on a template change.
import { R, createObject, deleteObject, finished, ownedBy, podFromTemplate, podReady, templateHash, terminating, writeStatus, type ControllerEnv, type Reconcile } from './runtime.ts'

const REVISION = 'controller-revision-hash'

export function daemonSetController(env: ControllerEnv): Reconcile {
  return (key) => {
    const ds = env.store.get(R.daemonsets, key)
    if (!ds || terminating(ds)) return
    const hash = templateHash(ds.obj.spec.template)
    const nodes = env.store.entries(R.nodes).map((n) => n.name)
    const pods = ownedBy(env, ds, R.pods)
    const live = pods.filter((p) => !terminating(p) && !finished(p))
    for (const node of nodes) {
      if (pods.some((p) => p.obj.spec?.nodeName === node && !finished(p))) continue
      createObject(env, R.pods, podFromTemplate(ds, ds.obj.spec.template, { labels: { [REVISION]: hash, 'pod-template-generation': String(ds.obj.metadata.generation ?? 1) } }, {
        nodeName: node,
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } },
      }))
    }
    for (const p of live) if (!nodes.includes(p.obj.spec?.nodeName)) deleteObject(env, p)
    // Rolling update, maxUnavailable 1: replace one outdated pod when every pod is up.
    const outdated = live.filter((p) => p.obj.metadata.labels?.[REVISION] !== hash)
    const settling = pods.some((p) => terminating(p) || p.obj.status?.phase === 'Pending')
    if (outdated.length && !settling) deleteObject(env, outdated[0])
    const now = ownedBy(env, ds, R.pods).filter((p) => !terminating(p) && !finished(p))
    const ready = now.filter(podReady).length
    writeStatus(env, ds, {
      currentNumberScheduled: now.length, numberMisscheduled: 0, desiredNumberScheduled: nodes.length, numberReady: ready,
      observedGeneration: ds.obj.metadata.generation, updatedNumberScheduled: now.filter((p) => p.obj.metadata.labels?.[REVISION] === hash).length,
      numberAvailable: ready, ...(nodes.length > ready ? { numberUnavailable: nodes.length - ready } : {}),
    })
  }
}
