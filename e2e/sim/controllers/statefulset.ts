// StatefulSet controller: pods NAME-0 … NAME-(n-1), created in order once the previous one is ready
// (OrderedReady), removed from the highest ordinal, replaced highest first on a template change.
import { objectKey } from '../api/resources.ts'
import type { Entry } from '../store/entry.ts'
import { R, createObject, deleteObject, ownedBy, podFromTemplate, podReady, templateHash, terminating, writeStatus, type ControllerEnv, type Reconcile } from './runtime.ts'

const REVISION = 'controller-revision-hash'

export function statefulSetController(env: ControllerEnv): Reconcile {
  return (key) => {
    const sts = env.store.get(R.statefulsets, key)
    if (!sts || terminating(sts)) return
    const want: number = sts.obj.spec?.replicas ?? 1
    const revision = `${sts.name}-${templateHash(sts.obj.spec.template)}`
    const parallel = sts.obj.spec.podManagementPolicy === 'Parallel'
    const pods = ownedBy(env, sts, R.pods)
    const ordinal = (p: Entry) => Number(p.name.slice(sts.name.length + 1))
    const busy = () => ownedBy(env, sts, R.pods).some((p) => terminating(p) || !podReady(p))
    for (let i = 0; i < want; i++) {
      const name = `${sts.name}-${i}`
      const existing = env.store.get(R.pods, objectKey(R.pods, sts.namespace, name))
      if (existing) {
        if (!parallel && (terminating(existing) || !podReady(existing))) break
        continue
      }
      createObject(env, R.pods, podFromTemplate(sts, sts.obj.spec.template, {
        name,
        labels: { [REVISION]: revision, 'statefulset.kubernetes.io/pod-name': name, 'apps.kubernetes.io/pod-index': String(i) },
      }, { hostname: name, ...(sts.obj.spec.serviceName ? { subdomain: sts.obj.spec.serviceName } : {}) }))
      if (!parallel) break
    }
    const extra = pods.filter((p) => !terminating(p) && ordinal(p) >= want).sort((a, b) => ordinal(b) - ordinal(a))
    if (extra.length && (parallel || !pods.some(terminating))) {
      for (const p of parallel ? extra : extra.slice(0, 1)) deleteObject(env, p)
    } else if (!extra.length && !busy() && pods.length >= want) {
      const outdated = pods.filter((p) => p.obj.metadata.labels?.[REVISION] !== revision).sort((a, b) => ordinal(b) - ordinal(a))
      if (outdated.length) deleteObject(env, outdated[0])
    }
    const now = ownedBy(env, sts, R.pods).filter((p) => !terminating(p))
    const ready = now.filter(podReady).length
    writeStatus(env, sts, {
      observedGeneration: sts.obj.metadata.generation, replicas: now.length, readyReplicas: ready, currentReplicas: now.length,
      updatedReplicas: now.filter((p) => p.obj.metadata.labels?.[REVISION] === revision).length, availableReplicas: ready,
      currentRevision: revision, updateRevision: revision, collisionCount: 0,
    })
  }
}
