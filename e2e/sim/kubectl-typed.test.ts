// kubectl's typed generators against the simulator: `kubectl create deployment|cronjob|job` send protobuf bodies
// (issue 4 conformance); the objects land with the right fields and the controllers run their pods.
import { beforeAll, describe, expect, it } from 'vitest'
import type { Simulator } from './index.ts'
import { kubectl as kubectlWith, useSimulator } from './test-client.ts'

// Job pods keep running for a minute so "Running" can be observed; pods start after 10 ms.
const t = useSimulator({ nodes: 2, podStartDelayMs: 10, jobRunMs: 60_000 }, 'sim-typed-')
let sim: Simulator
beforeAll(() => {
  sim = t.sim
})

const kubectl = (...args: string[]) => kubectlWith(t.kubeconfig, ...args)

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = probe()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** The pods in `default` matching the labels once `count` of them are Running. */
const runningPods = (labels: Record<string, string>, count: number) =>
  until(`${count} Running pod(s) for ${JSON.stringify(labels)}`, () => {
    const pods = sim.list('pods', 'default').filter((p) =>
      Object.entries(labels).every(([k, v]) => p.metadata.labels?.[k] === v) && !p.metadata.deletionTimestamp)
    return pods.length === count && pods.every((p) => p.status?.phase === 'Running') ? pods : undefined
  })

const containers = (podSpec: any) => podSpec.containers.map((c: any) => ({ name: c.name, image: c.image }))

describe('kubectl typed create commands (protobuf bodies)', () => {
  it('kubectl create deployment: fields as given, two Running pods', async () => {
    expect(await kubectl('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2')).toBe('deployment.apps/web created\n')
    const d = sim.get('deployments', 'default', 'web')
    expect(d.metadata).toMatchObject({ name: 'web', namespace: 'default', labels: { app: 'web' } })
    expect(d.spec.replicas).toBe(2)
    expect(d.spec.selector).toEqual({ matchLabels: { app: 'web' } })
    expect(d.spec.template.metadata.labels).toEqual({ app: 'web' })
    expect(containers(d.spec.template.spec)).toEqual([{ name: 'nginx', image: 'nginx:1.25' }])
    const pods = await runningPods({ app: 'web' }, 2)
    for (const p of pods) expect(containers(p.spec)).toEqual([{ name: 'nginx', image: 'nginx:1.25' }])
  })

  it('kubectl create cronjob, then kubectl create job --from=cronjob: owner reference and a Running pod', async () => {
    expect(await kubectl('create', 'cronjob', 'c', '--image=busybox', '--schedule=*/5 * * * *')).toBe('cronjob.batch/c created\n')
    const cj = sim.get('cronjobs', 'default', 'c')
    expect(cj.metadata).toMatchObject({ name: 'c', namespace: 'default' })
    expect(cj.spec.schedule).toBe('*/5 * * * *')
    expect(containers(cj.spec.jobTemplate.spec.template.spec)).toEqual([{ name: 'c', image: 'busybox' }])
    expect(cj.spec.jobTemplate.spec.template.spec.restartPolicy).toBe('OnFailure')

    expect(await kubectl('create', 'job', 'j', '--from=cronjob/c')).toBe('job.batch/j created\n')
    const j = sim.get('jobs', 'default', 'j')
    expect(j.metadata).toMatchObject({ name: 'j', namespace: 'default', annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' } })
    expect(j.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'c', uid: cj.metadata.uid, controller: true }])
    expect(containers(j.spec.template.spec)).toEqual([{ name: 'c', image: 'busybox' }])
    expect(j.spec.template.spec.restartPolicy).toBe('OnFailure')
    const [pod] = await runningPods({ 'job-name': 'j' }, 1)
    expect(pod.metadata.ownerReferences).toMatchObject([{ kind: 'Job', name: 'j', uid: j.metadata.uid, controller: true }])
  })

  it('kubectl create job --image: fields as given, a Running pod', async () => {
    expect(await kubectl('create', 'job', 'k', '--image=busybox')).toBe('job.batch/k created\n')
    const k = sim.get('jobs', 'default', 'k')
    expect(k.metadata).toMatchObject({ name: 'k', namespace: 'default' })
    expect(k.metadata.ownerReferences).toBeUndefined()
    expect(containers(k.spec.template.spec)).toEqual([{ name: 'k', image: 'busybox' }])
    expect(k.spec.template.spec.restartPolicy).toBe('Never')
    const [pod] = await runningPods({ 'job-name': 'k' }, 1)
    expect(containers(pod.spec)).toEqual([{ name: 'k', image: 'busybox' }])
  })

  it('kubectl reads back what it created', async () => {
    const out = JSON.parse(await kubectl('get', 'deployment', 'web', '-o', 'json'))
    expect(out).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2 } })
    expect(await kubectl('get', 'jobs', '-o', 'name')).toContain('job.batch/j\njob.batch/k\n')
  })
})
