// Job controller: runs pods until `completions` succeeded (`parallelism` at a time), marks the Job
// Complete, and deletes it `ttlSecondsAfterFinished` later.
import { timestamp } from '../api/meta.ts'
import { R, createObject, deleteObject, ownedBy, podFromTemplate, podReady, terminating, writeStatus, type ControllerEnv, type Reconcile } from './runtime.ts'

export function jobController(env: ControllerEnv): Reconcile {
  const ttlScheduled = new Set<string>()
  return (key) => {
    const job = env.store.get(R.jobs, key)
    if (!job || terminating(job)) return
    const spec = job.obj.spec ?? {}
    const status = job.obj.status ?? {}
    const complete = (status.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True')
    if (complete) {
      const ttl = spec.ttlSecondsAfterFinished
      if (typeof ttl === 'number' && !ttlScheduled.has(job.uid)) {
        ttlScheduled.add(job.uid)
        env.later(ttl * 1000, () => {
          ttlScheduled.delete(job.uid)
          const cur = env.store.get(R.jobs, key)
          if (cur?.uid === job.uid) deleteObject(env, cur)
        })
      }
      return
    }
    if (spec.suspend) return
    const pods = ownedBy(env, job, R.pods)
    const succeeded = pods.filter((p) => p.obj.status?.phase === 'Succeeded').length
    const failed = pods.filter((p) => p.obj.status?.phase === 'Failed').length
    const completions: number = spec.completions ?? 1
    const startTime = status.startTime ?? timestamp()
    if (succeeded >= completions) {
      const now = timestamp()
      writeStatus(env, job, {
        startTime, completionTime: now, succeeded, failed: failed || undefined, active: 0, ready: 0, terminating: 0,
        uncountedTerminatedPods: {},
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: now, lastTransitionTime: now, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
          { type: 'Complete', status: 'True', lastProbeTime: now, lastTransitionTime: now, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
        ],
      })
      return
    }
    let active = pods.filter((p) => !terminating(p) && p.obj.status?.phase !== 'Succeeded' && p.obj.status?.phase !== 'Failed')
    const want = Math.min(spec.parallelism ?? 1, completions - succeeded)
    for (let i = active.length; i < want; i++) createObject(env, R.pods, podFromTemplate(job, spec.template, {}))
    active = ownedBy(env, job, R.pods).filter((p) => !terminating(p) && p.obj.status?.phase !== 'Succeeded' && p.obj.status?.phase !== 'Failed')
    writeStatus(env, job, {
      startTime, active: active.length, ready: active.filter(podReady).length, terminating: 0,
      ...(succeeded ? { succeeded } : {}), ...(failed ? { failed } : {}), uncountedTerminatedPods: {},
    })
  }
}
