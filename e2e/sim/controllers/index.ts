// The mini controllers (scheduler + kubelet, ReplicaSet, Deployment, Job, CronJob, DaemonSet, StatefulSet)
// driven by the store's event feed through one coalescing work queue.
import type { ObjectApi } from '../api/object-api.ts'
import type { ResourceInfo } from '../api/resources.ts'
import type { SimConfig } from '../options.ts'
import type { Entry } from '../store/entry.ts'
import type { StoreEvent } from '../store/history.ts'
import type { ObjectStore } from '../store/store.ts'
import { cronJobController } from './cronjob.ts'
import { daemonSetController } from './daemonset.ts'
import { deploymentController } from './deployment.ts'
import { jobController } from './job.ts'
import { kubelet } from './kubelet.ts'
import { replicaSetController } from './replicaset.ts'
import { R, controllerRef, type ControllerEnv, type Reconcile } from './runtime.ts'
import { statefulSetController } from './statefulset.ts'

export { nodeObject, RUN_MS_ANNOTATION } from './kubelet.ts'

export interface Controllers {
  /** Creates a Job from the CronJob's template now (the "run now" trigger; kubectl create job --from). */
  runCronJobNow(namespace: string, name: string): Entry
  stop(): void
}

export function startControllers(store: ObjectStore, api: ObjectApi, config: SimConfig): Controllers {
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const queue = new Map<string, { resource: ResourceInfo; key: string }>()
  let stopped = false
  let flushing = false

  const env: ControllerEnv = {
    store, api, config,
    later(ms, fn) {
      if (stopped) return
      const t = setTimeout(() => {
        timers.delete(t)
        if (!stopped) fn()
      }, ms)
      timers.add(t)
    },
    enqueue(resource, key) {
      if (stopped) return
      queue.set(`${resource.plural}|${key}`, { resource, key })
      if (!flushing) {
        flushing = true
        setImmediate(flush)
      }
    },
  }

  const node = kubelet(env)
  const cron = cronJobController(env)
  const reconcilers: Record<string, Reconcile> = {
    pods: node.reconcile,
    replicasets: replicaSetController(env),
    deployments: deploymentController(env),
    jobs: jobController(env),
    cronjobs: cron.reconcile,
    daemonsets: daemonSetController(env),
    statefulsets: statefulSetController(env),
  }

  function flush(): void {
    flushing = false
    if (stopped) return
    // Work queued while reconciling runs on the next tick, so watchers see each step.
    const batch = [...queue.values()]
    queue.clear()
    for (const { resource, key } of batch) {
      try {
        reconcilers[resource.plural]?.(key)
      } catch (err) {
        console.error(`sim: ${resource.plural} controller failed on ${key}: ${(err as Error).stack ?? err}`)
      }
    }
  }

  const enqueueOwner = (e: Entry) => {
    const ref = controllerRef(e.obj)
    const owner = ref && store.byUid(ref.uid)
    if (owner && reconcilers[owner.resource.plural]) env.enqueue(owner.resource, owner.key)
  }

  const unsubscribe = store.subscribe((ev: StoreEvent) => {
    const e = ev.entry
    const plural = e.resource.plural
    if (plural === 'nodes') {
      for (const ds of store.entries(R.daemonsets)) env.enqueue(R.daemonsets, ds.key)
      return
    }
    if (!reconcilers[plural]) return
    if (ev.type === 'DELETED') {
      if (plural === 'pods') node.released(e)
    } else {
      env.enqueue(e.resource, e.key)
    }
    enqueueOwner(e)
  })

  // Objects that exist before the controllers start (bulk-created or restored) are reconciled once.
  for (const plural of Object.keys(reconcilers)) {
    const r = R[plural as keyof typeof R]
    for (const e of store.entries(r)) env.enqueue(r, e.key)
  }

  return {
    runCronJobNow: (namespace, name) => cron.runNow(namespace, name),
    stop() {
      stopped = true
      unsubscribe()
      for (const t of timers) clearTimeout(t)
      timers.clear()
      queue.clear()
    },
  }
}
