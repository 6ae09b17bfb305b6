// OpenAPI and field validation (issue 20): kubectl apply with its default validation, explain, and
// server-side apply against the simulator as against a real API server; the documents and the
// fieldValidation modes over raw HTTP.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Simulator } from './index.ts'
import { kubectl as kubectlWith, raw, rawJson, until, useSimulator } from './test-client.ts'

const t = useSimulator({ nodes: 2, podStartDelayMs: 10, jobRunMs: 60_000 }, 'sim-openapi-')
const { dir, kubeconfig } = t
let sim: Simulator

beforeAll(() => {
  sim = t.sim
})

// A kubectl cache of its own: discovery and OpenAPI documents are cached per server address.
const kubectl = (...args: string[]) => kubectlWith(kubeconfig, '--cache-dir', join(dir, 'cache'), ...args)
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const WORKLOADS = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {tier: front}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  strategy:
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports: [{containerPort: 80, name: http}]
        env: [{name: MODE, value: prod}]
        resources: {requests: {cpu: 100m, memory: 64Mi}}
        readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 5}
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 3 * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      backoffLimit: 2
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: task
            image: busybox:1.36
            command: [sh, -c, "echo nightly"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: kube-system
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      hostNetwork: true
      tolerations: [{operator: Exists}]
      containers:
      - name: agent
        image: registry.example.com/agent:2.1
        volumeMounts: [{name: proc, mountPath: /host/proc, readOnly: true}]
      volumes: [{name: proc, hostPath: {path: /proc}}]
`

describe('kubectl with OpenAPI', () => {
  it('kubectl apply -f (validation on) creates a Deployment, a CronJob and a DaemonSet; a second apply patches them', async () => {
    const manifest = file('workloads.yaml', WORKLOADS)
    const out = await kubectl('apply', '-f', manifest)
    expect(out.trim().split('\n')).toEqual(['deployment.apps/web created', 'cronjob.batch/nightly created', 'daemonset.apps/agent created'])
    await until('2 web pods and 2 agent pods running', () =>
      sim.list('pods', 'default').filter((p) => p.metadata.labels?.app === 'web' && p.status.phase === 'Running').length === 2 &&
      sim.list('pods', 'kube-system').filter((p) => p.metadata.labels?.app === 'agent' && p.status.phase === 'Running').length === 2)
    expect(sim.get('cronjobs', 'default', 'nightly').spec).toMatchObject({ schedule: '0 3 * * *', concurrencyPolicy: 'Forbid' })

    // Client-side apply computes a strategic merge patch from the OpenAPI v3 patch keys.
    const changed = file('workloads-2.yaml', WORKLOADS.replace('replicas: 2', 'replicas: 3').replace('[{name: MODE, value: prod}]', '[{name: MODE, value: prod}, {name: DEBUG, value: "0"}]'))
    expect(await kubectl('apply', '-f', changed)).toContain('deployment.apps/web configured')
    const web = sim.get('deployments', 'default', 'web')
    expect(web.spec.replicas).toBe(3)
    expect(web.spec.template.spec.containers[0].env).toEqual([{ name: 'MODE', value: 'prod' }, { name: 'DEBUG', value: '0' }])
  })

  it('an unknown field fails kubectl apply as on a real server (strict field validation)', async () => {
    const typo = file('typo.yaml', WORKLOADS.split('---')[0].replace('name: web', 'name: typo').replace('image: nginx:1.25', 'imagePullPolicyy: Always\n        image: nginx:1.25'))
    await expect(kubectl('apply', '-f', typo)).rejects.toThrow(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolicyy"')
    expect(sim.get('deployments', 'default', 'typo')).toBeUndefined()
  })

  it('kubectl explain reads field types and descriptions', async () => {
    const replicas = await kubectl('explain', 'deployment.spec.replicas')
    expect(replicas).toMatch(/GROUP:\s+apps/)
    expect(replicas).toMatch(/KIND:\s+Deployment/)
    expect(replicas).toMatch(/FIELD: replicas <integer>/)
    expect(replicas).toContain('Number of desired pods')
    const containers = await kubectl('explain', 'pod.spec.containers')
    expect(containers).toMatch(/FIELD: containers <\[\]Container>/)
    expect(containers).toMatch(/name\s+<string> -required-/)
    expect(await kubectl('explain', 'lease.spec.renewTime')).toContain('When the holder last renewed the lease')
  })

  it('kubectl apply --server-side creates, then merges the applied fields and drops the ones no longer applied', async () => {
    const first = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ssa
  labels: {keep: "yes", drop: "soon"}
spec:
  replicas: 1
  selector: {matchLabels: {app: ssa}}
  template:
    metadata: {labels: {app: ssa}}
    spec:
      containers:
      - {name: app, image: "app:1", env: [{name: A, value: "1"}, {name: B, value: "2"}]}
`
    expect(await kubectl('apply', '--server-side', '-f', file('ssa-1.yaml', first))).toBe('deployment.apps/ssa serverside-applied\n')
    const second = first.replace(', drop: "soon"', '').replace('replicas: 1', 'replicas: 2').replace(', {name: B, value: "2"}', '')
    expect(await kubectl('apply', '--server-side', '-f', file('ssa-2.yaml', second))).toBe('deployment.apps/ssa serverside-applied\n')
    const d = sim.get('deployments', 'default', 'ssa')
    expect(d.metadata.labels).toEqual({ keep: 'yes' })
    expect(d.spec.replicas).toBe(2)
    expect(d.spec.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }])
    expect(d.metadata.managedFields).toContainEqual(expect.objectContaining({
      manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1',
      fieldsV1: expect.objectContaining({ 'f:spec': expect.objectContaining({ 'f:replicas': {} }) }),
    }))
  })
})

describe('OpenAPI documents and field validation over HTTP', () => {
  it('serves /openapi/v3 discovery and group-version documents with fieldValidation on PATCH, /openapi/v2 as JSON only', async () => {
    const discovery = (await rawJson(sim, '/openapi/v3')).body
    expect(Object.keys(discovery.paths).sort()).toEqual(['api/v1', 'apis/apps/v1', 'apis/batch/v1', 'apis/coordination.k8s.io/v1', 'apis/events.k8s.io/v1'])
    const url = discovery.paths['apis/apps/v1'].serverRelativeURL
    const res = await raw(sim, url)
    expect(res.headers['cache-control']).toBe('public, immutable')
    const apps = JSON.parse(res.body)
    const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' })
    expect(patch.parameters.map((p: any) => p.name)).toContain('fieldValidation')
    expect(Object.keys(patch.requestBody.content)).toContain('application/strategic-merge-patch+json')
    expect(apps.components.schemas['io.k8s.api.core.v1.Container'].properties.env).toMatchObject({ 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-list-map-keys': ['name'] })
    expect((await raw(sim, url, { headers: { 'If-None-Match': res.headers.etag as string } })).status).toBe(304)

    const v2 = await rawJson(sim, '/openapi/v2', { headers: { Accept: 'application/json' } })
    expect(v2.body.swagger).toBe('2.0')
    expect(v2.body.definitions['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment' }])
    expect((await raw(sim, '/openapi/v2', { headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } })).status).toBe(406)
  })

  it('fieldValidation: Warn (default) drops unknown fields with a Warning header, Ignore silently, Strict refuses', async () => {
    const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'kube-public' }, spec: { containers: [{ name: 'c', image: 'i', colour: 'blue' }], nodeSelectorr: {} } })
    const warn = await raw(sim, '/api/v1/namespaces/kube-public/pods', { method: 'POST', body: pod('warned') })
    expect(warn.status).toBe(201)
    expect(warn.headers.warning).toBe('299 - "unknown field \\"spec.containers[0].colour\\"", 299 - "unknown field \\"spec.nodeSelectorr\\""')
    expect(JSON.parse(warn.body).spec.containers[0].colour).toBeUndefined()
    const ignore = await raw(sim, '/api/v1/namespaces/kube-public/pods?fieldValidation=Ignore', { method: 'POST', body: pod('ignored') })
    expect([ignore.status, ignore.headers.warning]).toEqual([201, undefined])
    const strict = await rawJson(sim, '/api/v1/namespaces/kube-public/pods?fieldValidation=Strict', { method: 'POST', body: pod('refused') })
    expect(strict.status).toBe(400)
    expect(strict.body.message).toBe('Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].colour", unknown field "spec.nodeSelectorr"')
    const patched = await rawJson(sim, '/api/v1/namespaces/kube-public/pods/warned?fieldValidation=Strict', {
      method: 'PATCH', body: { spec: { bogus: 1 } }, headers: { 'Content-Type': 'application/merge-patch+json' },
    })
    expect(patched).toMatchObject({ status: 400, body: { message: 'strict decoding error: unknown field "spec.bogus"' } })
    const yaml = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: from-yaml\n  labels: {via: curl}\nspec:\n  containers:\n  - name: c\n    image: i\n'
    const applied = await rawJson(sim, '/api/v1/namespaces/kube-public/pods/from-yaml?fieldManager=curl', {
      method: 'PATCH', body: yaml, headers: { 'Content-Type': 'application/apply-patch+yaml' },
    })
    expect(applied).toMatchObject({ status: 201, body: { metadata: { name: 'from-yaml', labels: { via: 'curl' } } } })
    const noManager = await rawJson(sim, '/api/v1/namespaces/kube-public/pods/warned', {
      method: 'PATCH', body: pod('warned'), headers: { 'Content-Type': 'application/apply-patch+yaml' },
    })
    expect(noManager).toMatchObject({ status: 422, body: { message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch' } })
  })
})
