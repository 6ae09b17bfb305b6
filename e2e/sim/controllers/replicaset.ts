// ReplicaSet controller: keeps spec.replicas live pods (creating from the template, deleting pending then newest first) and reports status.
import type { Entry } from '../store/entry.ts'
import { R, createObject, deleteObject, finished, ownedBy, podFromTemplate, podReady, terminating, writeStatus, type ControllerEnv, type Reconcile } from './runtime.ts'

export function replicaSetController(env: ControllerEnv): Reconcile {
  return (key) => {
    const rs = env.store.get(R.replicasets, key)
    if (!rs || terminating(rs)) return
    const want: number = rs.obj.spec?.replicas ?? 1
    let live = ownedBy(env, rs, R.pods).filter((p) => !terminating(p) && !finished(p))
    if (live.length < want) {
      for (let i = live.length; i < want; i++) createObject(env, R.pods, podFromTemplate(rs, rs.obj.spec.template, {}))
    } else if (live.length > want) {
      for (const pod of [...live].sort(deletionOrder).slice(0, live.length - want)) deleteObject(env, pod)
    }
    live = ownedBy(env, rs, R.pods).filter((p) => !terminating(p) && !finished(p))
    const ready = live.filter(podReady).length
    writeStatus(env, rs, {
      replicas: live.length,
      fullyLabeledReplicas: live.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: rs.obj.metadata.generation,
    })
  }
}

/** Pods to delete first: not yet running, then the newest. */
function deletionOrder(a: Entry, b: Entry): number {
  const rank = (p: Entry) => (p.obj.status?.phase === 'Running' ? 1 : 0)
  return rank(a) - rank(b) || (b.obj.metadata.creationTimestamp ?? '').localeCompare(a.obj.metadata.creationTimestamp ?? '') || b.rv - a.rv
}
