// Bulk mode: many realistic objects inserted straight into the store (no admission, no controllers
// reacting to them), each serialised once — for benchmarks at cluster scale.
import { fieldsV1, managedFieldsEntry, newUid, orderObject, randomHex, randomSuffix, timestamp } from './api/meta.ts'
import { objectKey, resourceByPlural } from './api/resources.ts'
import type { ObjectStore } from './store/store.ts'
import type { BulkOwner, SimBulk } from './types.ts'

const PODS = resourceByPlural('pods')!
const RS = resourceByPlural('replicasets')!
const JOBS = resourceByPlural('jobs')!
const NAMESPACES = resourceByPlural('namespaces')!

export function createBulk(store: ObjectStore, nodes: number): SimBulk {
  let serial = 0
  const ensureNamespace = (ns: string) => {
    if (store.get(NAMESPACES, ns)) return
    const meta = { name: ns, uid: newUid(), creationTimestamp: timestamp(), labels: { 'kubernetes.io/metadata.name': ns } }
    store.insert(NAMESPACES, ns, orderObject({ metadata: meta, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }))
  }
  const insert = (r: typeof PODS, ns: string, obj: any) => {
    obj.metadata.uid ??= newUid()
    obj.metadata.creationTimestamp ??= timestamp()
    store.insert(r, objectKey(r, ns, obj.metadata.name), orderObject(obj))
    return { name: obj.metadata.name as string, uid: obj.metadata.uid as string }
  }

  return {
    createPods(n, opts = {}) {
      const ns = opts.namespace ?? 'default'
      ensureNamespace(ns)
      const owner: BulkOwner | undefined = opts.owner
      const containers = Math.max(1, opts.containers ?? 2)
      for (let i = 0; i < n; i++) {
        const k = serial++
        const node = (k % nodes) + 1
        const name = `${owner?.name ?? 'bulk'}-${randomSuffix(5)}${k.toString(36)}`
        const app = owner?.name ?? 'bulk'
        const spec = {
          containers: Array.from({ length: containers }, (_, c) => ({
            name: c === 0 ? 'app' : `sidecar-${c}`,
            image: c === 0 ? `registry.example.com/team/${app}:1.${k % 7}.0` : 'docker.io/library/envoy:v1.31',
            ports: [{ name: 'http', containerPort: 8080 + c, protocol: 'TCP' }],
            env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
            resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
            terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent',
          })),
          restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst',
          serviceAccountName: 'default', serviceAccount: 'default', nodeName: `node-${node}`,
          securityContext: {}, schedulerName: 'default-scheduler', priority: 0,
        }
        const podIp = `10.244.${node}.${2 + (Math.floor(k / nodes) % 250)}`
        const hostIp = `172.18.0.${node + 1}`
        const now = timestamp()
        const labels = { app, 'pod-template-hash': 'bulk' }
        insert(PODS, ns, {
          metadata: {
            name, namespace: ns, labels,
            ...(owner ? { ownerReferences: [{ apiVersion: owner.kind === 'Job' ? 'batch/v1' : 'apps/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }] } : {}),
            managedFields: [
              managedFieldsEntry('kube-controller-manager', 'v1', fieldsV1({ metadata: { labels }, spec })),
              managedFieldsEntry('kubelet', 'v1', fieldsV1({ status: { conditions: [], podIP: podIp } }), 'status'),
            ],
          },
          spec,
          status: {
            phase: 'Running',
            conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now })),
            hostIP: hostIp, hostIPs: [{ ip: hostIp }], podIP: podIp, podIPs: [{ ip: podIp }], startTime: now, qosClass: 'Burstable',
            containerStatuses: spec.containers.map((c) => ({
              name: c.name, state: { running: { startedAt: now } }, lastState: {}, ready: true, restartCount: 0, image: c.image,
              imageID: `${c.image.split(':')[0]}@sha256:${randomHex(64)}`, containerID: `containerd://${randomHex(64)}`, started: true,
            })),
          },
        })
      }
    },
    createReplicaSets(n, opts = {}) {
      const ns = opts.namespace ?? 'default'
      ensureNamespace(ns)
      const out = []
      for (let i = 0; i < n; i++) {
        const name = `${opts.deployment ?? 'bulk'}-${randomSuffix(10)}`
        out.push(insert(RS, ns, {
          metadata: {
            name, namespace: ns, generation: 1, labels: { app: opts.deployment ?? 'bulk' },
            ...(opts.deployment ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: opts.deployment, uid: newUid(), controller: true, blockOwnerDeletion: true }] } : {}),
          },
          spec: { replicas: 0, selector: { matchLabels: { app: opts.deployment ?? 'bulk' } }, template: { metadata: { labels: { app: opts.deployment ?? 'bulk' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } } },
          status: { replicas: 0, observedGeneration: 1 },
        }))
      }
      return out
    },
    createJobs(n, opts = {}) {
      const ns = opts.namespace ?? 'default'
      ensureNamespace(ns)
      const out = []
      for (let i = 0; i < n; i++) {
        const name = `${opts.cronJob ?? 'bulk-job'}-${29_000_000 + serial++}`
        out.push(insert(JOBS, ns, {
          metadata: {
            name, namespace: ns, generation: 1,
            ...(opts.cronJob ? { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: opts.cronJob, uid: newUid(), controller: true, blockOwnerDeletion: true }] } : {}),
          },
          spec: { parallelism: 1, completions: 1, backoffLimit: 6, template: { spec: { containers: [{ name: 'task', image: 'task:1' }], restartPolicy: 'Never' } } },
          status: { active: 1, startTime: timestamp() },
        }))
      }
      return out
    },
  }
}
