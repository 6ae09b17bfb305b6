// Deployment controller: one ReplicaSet per pod template (pod-template-hash), a rolling replacement that
// scales old ReplicaSets down as new pods become ready, history limit, and status.
import type { Entry } from '../store/entry.ts'
import { R, createObject, deleteObject, ownedBy, ownerReference, patchObject, templateHash, terminating, writeStatus, type ControllerEnv, type Reconcile } from './runtime.ts'

const REVISION = 'deployment.kubernetes.io/revision'

export function deploymentController(env: ControllerEnv): Reconcile {
  return (key) => {
    const d = env.store.get(R.deployments, key)
    if (!d || terminating(d)) return
    const want: number = d.obj.spec?.replicas ?? 1
    const template = d.obj.spec.template
    const hash = templateHash(template)
    const owned = ownedBy(env, d, R.replicasets).filter((rs) => !terminating(rs))
    const revision = (rs: Entry) => Number(rs.obj.metadata.annotations?.[REVISION] ?? 0)
    let current = owned.find((rs) => rs.obj.metadata.labels?.['pod-template-hash'] === hash)
    if (!current) {
      const next = Math.max(0, ...owned.map(revision)) + 1
      const labels = { ...(template.metadata?.labels ?? {}), 'pod-template-hash': hash }
      current = createObject(env, R.replicasets, {
        metadata: {
          name: `${d.name}-${hash}`,
          namespace: d.namespace,
          labels,
          annotations: { [REVISION]: String(next), 'deployment.kubernetes.io/desired-replicas': String(want) },
          ownerReferences: [ownerReference(d)],
        },
        spec: {
          replicas: want,
          selector: { matchLabels: { ...(d.obj.spec.selector?.matchLabels ?? {}), 'pod-template-hash': hash } },
          template: { ...template, metadata: { ...(template.metadata ?? {}), labels } },
        },
      })
      if (!current) return
    } else if (current.obj.spec?.replicas !== want) {
      patchObject(env, current, { spec: { replicas: want } })
    }
    const old = owned.filter((rs) => rs !== current && rs.uid !== current!.uid).sort((a, b) => revision(b) - revision(a))
    // Rolling replacement: old pods stay until new ones are ready (Recreate: old ones go at once).
    const newReady: number = current.obj.status?.readyReplicas ?? 0
    let oldBudget = d.obj.spec.strategy?.type === 'Recreate' ? 0 : Math.max(0, want - newReady)
    for (const rs of old) {
      const target = Math.min(rs.obj.spec?.replicas ?? 0, oldBudget)
      oldBudget -= target
      if ((rs.obj.spec?.replicas ?? 0) !== target) patchObject(env, rs, { spec: { replicas: target } })
    }
    const limit: number = d.obj.spec.revisionHistoryLimit ?? 10
    const idle = old.filter((rs) => (rs.obj.spec?.replicas ?? 0) === 0 && (rs.obj.status?.replicas ?? 0) === 0)
    for (const rs of idle.slice(limit)) deleteObject(env, rs)
    const all = [current, ...old]
    const sum = (f: (rs: Entry) => number) => all.reduce((n, rs) => n + f(rs), 0)
    const ready = sum((rs) => rs.obj.status?.readyReplicas ?? 0)
    writeStatus(env, d, {
      observedGeneration: d.obj.metadata.generation,
      replicas: sum((rs) => rs.obj.status?.replicas ?? 0),
      updatedReplicas: current.obj.status?.replicas ?? 0,
      readyReplicas: ready,
      availableReplicas: ready,
      ...(sum((rs) => rs.obj.status?.replicas ?? 0) > ready ? { unavailableReplicas: sum((rs) => rs.obj.status?.replicas ?? 0) - ready } : {}),
      conditions: [{ type: 'Available', status: ready >= want ? 'True' : 'False', reason: ready >= want ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable' }],
    })
  }
}
