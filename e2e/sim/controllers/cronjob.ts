// CronJob controller: creates a Job per schedule tick (wall clock, or every `cronIntervalMs`) and on
// "run now", honours suspend and concurrencyPolicy, keeps the history limits, and reports status.
import { errors } from '../api/errors.ts'
import { randomSuffix, timestamp } from '../api/meta.ts'
import { objectKey } from '../api/resources.ts'
import type { Entry } from '../store/entry.ts'
import { parseCron } from './cron.ts'
import { R, createObject, deleteObject, ownedBy, ownerReference, terminating, writeStatus, type ControllerEnv, type Reconcile } from './runtime.ts'

const SCHEDULED = 'batch.kubernetes.io/cronjob-scheduled-timestamp'

const isComplete = (job: Entry) => (job.obj.status?.conditions ?? []).some((c: any) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')
const isFailed = (job: Entry) => (job.obj.status?.conditions ?? []).some((c: any) => c.type === 'Failed' && c.status === 'True')

export function cronJobController(env: ControllerEnv): { reconcile: Reconcile; runNow(namespace: string, name: string): Entry } {
  const timers = new Set<string>() // cronjob uids with a tick scheduled

  const createJob = (cj: Entry, scheduledMs: number, manual: boolean): Entry | undefined => {
    const jt = cj.obj.spec.jobTemplate ?? {}
    let name = `${cj.name}-${Math.floor(scheduledMs / 60_000)}`
    if (manual || env.store.get(R.jobs, objectKey(R.jobs, cj.namespace, name))) name = `${cj.name}-manual-${randomSuffix(5)}`
    return createObject(env, R.jobs, {
      metadata: {
        name,
        namespace: cj.namespace,
        labels: jt.metadata?.labels,
        annotations: { ...(jt.metadata?.annotations ?? {}), [SCHEDULED]: new Date(scheduledMs).toISOString() },
        ownerReferences: [ownerReference(cj)],
      },
      spec: jt.spec,
    })
  }

  const tick = (cj: Entry) => {
    if (timers.has(cj.uid)) return
    let delay: number | undefined
    let at: number
    if (env.config.cronIntervalMs > 0) {
      delay = env.config.cronIntervalMs
      at = Date.now() + delay
    } else {
      let schedule
      try {
        schedule = parseCron(cj.obj.spec.schedule)
      } catch {
        return // an unparsable schedule never fires (the real controller records an event)
      }
      const next = schedule.next(Date.now())
      if (next === undefined) return
      at = next
      delay = next - Date.now()
    }
    timers.add(cj.uid)
    env.later(Math.min(delay, 2 ** 31 - 1), () => {
      timers.delete(cj.uid)
      const cur = env.store.get(R.cronjobs, cj.key)
      if (!cur || cur.uid !== cj.uid || terminating(cur)) return
      if (Date.now() + 5 < at) return tick(cur) // a delay longer than a timer can hold: wait again
      const active = ownedBy(env, cur, R.jobs).filter((j) => !isComplete(j) && !terminating(j))
      const policy = cur.obj.spec.concurrencyPolicy ?? 'Allow'
      if (!cur.obj.spec.suspend && !(policy === 'Forbid' && active.length)) {
        if (policy === 'Replace') for (const j of active) deleteObject(env, j)
        createJob(cur, at, false)
        const latest = env.store.get(R.cronjobs, cur.key)
        if (latest) writeStatus(env, latest, { ...(latest.obj.status ?? {}), lastScheduleTime: timestamp(at) })
      }
      tick(env.store.get(R.cronjobs, cj.key) ?? cur)
    })
  }

  const reconcile: Reconcile = (key) => {
    const cj = env.store.get(R.cronjobs, key)
    if (!cj || terminating(cj)) return
    tick(cj)
    const jobs = ownedBy(env, cj, R.jobs).filter((j) => !terminating(j))
    const byStart = (a: Entry, b: Entry) => (b.obj.metadata.creationTimestamp ?? '').localeCompare(a.obj.metadata.creationTimestamp ?? '') || b.rv - a.rv
    const done = jobs.filter(isComplete).sort(byStart)
    const succeeded = done.filter((j) => !isFailed(j))
    const failed = done.filter(isFailed)
    for (const j of succeeded.slice(cj.obj.spec.successfulJobsHistoryLimit ?? 3)) deleteObject(env, j)
    for (const j of failed.slice(cj.obj.spec.failedJobsHistoryLimit ?? 1)) deleteObject(env, j)
    const active = jobs.filter((j) => !isComplete(j))
    const status: Record<string, unknown> = { ...(cj.obj.status ?? {}) }
    if (active.length) status.active = active.map((j) => ({ kind: 'Job', namespace: j.namespace, name: j.name, uid: j.uid, apiVersion: 'batch/v1', resourceVersion: j.obj.metadata.resourceVersion }))
    else delete status.active
    if (succeeded[0]?.obj.status?.completionTime) status.lastSuccessfulTime = succeeded[0].obj.status.completionTime
    writeStatus(env, cj, status)
  }

  const runNow = (namespace: string, name: string): Entry => {
    const cj = env.store.get(R.cronjobs, objectKey(R.cronjobs, namespace, name))
    if (!cj) throw errors.notFound(R.cronjobs, name)
    const job = createJob(cj, Date.now(), true)
    if (!job) throw errors.internal(`could not create a Job for cronjob ${namespace}/${name}`)
    return job
  }

  return { reconcile, runNow }
}
