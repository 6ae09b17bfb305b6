// API-server defaulting and admission on create: the fields a real server adds to each kind.
import type { KubeObject } from '../store/entry.ts'
import type { ResourceInfo } from './resources.ts'
import { randomSuffix } from './meta.ts'

type Obj = Record<string, any>

/** Container defaults (pkg/apis/core/v1/defaults.go). */
function defaultContainer(c: Obj): Obj {
  const image: string = c.image ?? ''
  const tag = image.includes('@') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1]
  return {
    ...c,
    resources: c.resources ?? {},
    terminationMessagePath: c.terminationMessagePath ?? '/dev/termination-log',
    terminationMessagePolicy: c.terminationMessagePolicy ?? 'File',
    imagePullPolicy: c.imagePullPolicy ?? (!tag || tag === 'latest' ? 'Always' : 'IfNotPresent'),
  }
}

/** PodSpec defaults shared by pods and pod templates. */
export function defaultPodSpec(spec: Obj = {}): Obj {
  return {
    ...spec,
    containers: (spec.containers ?? []).map(defaultContainer),
    ...(spec.initContainers ? { initContainers: spec.initContainers.map(defaultContainer) } : {}),
    restartPolicy: spec.restartPolicy ?? 'Always',
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
    dnsPolicy: spec.dnsPolicy ?? 'ClusterFirst',
    securityContext: spec.securityContext ?? {},
    schedulerName: spec.schedulerName ?? 'default-scheduler',
  }
}

/** A pod template with defaults; template metadata carries `creationTimestamp: null` as on a real server. */
export function defaultTemplate(template: Obj = {}): Obj {
  return {
    ...template,
    metadata: { creationTimestamp: null, ...(template.metadata ?? {}) },
    spec: defaultPodSpec(template.spec),
  }
}

/** Pod admission: service account token volume, default tolerations, priority (ServiceAccount, DefaultTolerationSeconds). */
function admitPod(spec: Obj): Obj {
  const out = defaultPodSpec(spec)
  const sa = out.serviceAccountName ?? out.serviceAccount ?? 'default'
  out.serviceAccountName = sa
  out.serviceAccount = sa
  if (out.automountServiceAccountToken !== false && !out.volumes?.some((v: Obj) => v.name?.startsWith('kube-api-access-'))) {
    const name = `kube-api-access-${randomSuffix(5)}`
    out.volumes = [...(out.volumes ?? []), {
      name,
      projected: {
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
        defaultMode: 420,
      },
    }]
    out.containers = out.containers.map((c: Obj) => ({
      ...c,
      volumeMounts: [...(c.volumeMounts ?? []), { name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
    }))
  }
  const tolerations: Obj[] = out.tolerations ?? []
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!tolerations.some((t) => t.key === key)) {
      tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 })
    }
  }
  out.tolerations = tolerations
  out.priority = out.priority ?? 0
  out.enableServiceLinks = out.enableServiceLinks ?? true
  out.preemptionPolicy = out.preemptionPolicy ?? 'PreemptLowerPriority'
  return out
}

/**
 * Applies defaults to a new object (metadata already has name, namespace and uid). Returns the
 * object to store; the caller orders fields.
 */
export function applyCreateDefaults(resource: ResourceInfo, obj: KubeObject): KubeObject {
  const spec: Obj = obj.spec ?? {}
  switch (resource.kind) {
    case 'Pod':
      return {
        ...obj,
        spec: admitPod(spec),
        status: { phase: 'Pending', qosClass: qosClass(spec) },
      }
    case 'Deployment':
      return {
        ...obj,
        spec: {
          replicas: 1, ...spec,
          template: defaultTemplate(spec.template),
          strategy: (spec.strategy as { type?: string } | undefined)?.type ? spec.strategy : { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
          revisionHistoryLimit: spec.revisionHistoryLimit ?? 10,
          progressDeadlineSeconds: spec.progressDeadlineSeconds ?? 600,
        },
        status: {},
      }
    case 'ReplicaSet':
      return { ...obj, spec: { replicas: 1, ...spec, template: defaultTemplate(spec.template) }, status: { replicas: 0 } }
    case 'DaemonSet':
      return {
        ...obj,
        spec: {
          ...spec,
          template: defaultTemplate(spec.template),
          updateStrategy: spec.updateStrategy ?? { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
          revisionHistoryLimit: spec.revisionHistoryLimit ?? 10,
        },
        status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
      }
    case 'StatefulSet':
      return {
        ...obj,
        spec: {
          replicas: 1, ...spec,
          template: defaultTemplate(spec.template),
          serviceName: spec.serviceName ?? '',
          podManagementPolicy: spec.podManagementPolicy ?? 'OrderedReady',
          updateStrategy: spec.updateStrategy ?? { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
          revisionHistoryLimit: spec.revisionHistoryLimit ?? 10,
          persistentVolumeClaimRetentionPolicy: spec.persistentVolumeClaimRetentionPolicy ?? { whenDeleted: 'Retain', whenScaled: 'Retain' },
        },
        status: { replicas: 0, availableReplicas: 0 },
      }
    case 'Job':
      return { ...obj, spec: defaultJobSpec(spec, obj.metadata.uid, obj.metadata.name), status: {} }
    case 'CronJob':
      return {
        ...obj,
        spec: {
          ...spec,
          concurrencyPolicy: spec.concurrencyPolicy ?? 'Allow',
          suspend: spec.suspend ?? false,
          jobTemplate: {
            metadata: { creationTimestamp: null, ...(spec.jobTemplate?.metadata ?? {}) },
            spec: { ...(spec.jobTemplate?.spec ?? {}), template: defaultTemplate(spec.jobTemplate?.spec?.template) },
          },
          successfulJobsHistoryLimit: spec.successfulJobsHistoryLimit ?? 3,
          failedJobsHistoryLimit: spec.failedJobsHistoryLimit ?? 1,
        },
        status: {},
      }
    case 'Namespace':
      return {
        ...obj,
        metadata: { ...obj.metadata, labels: { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      }
    default:
      return obj
  }
}

/** Job defaults: generated selector on the controller uid and the four job labels on the template. */
function defaultJobSpec(spec: Obj, uid: string, name: string): Obj {
  const jobLabels = {
    'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name,
  }
  const template = defaultTemplate(spec.template)
  const manual = spec.manualSelector === true && spec.selector
  return {
    parallelism: 1, completions: 1, ...spec,
    backoffLimit: spec.backoffLimit ?? 6,
    selector: manual ? spec.selector : { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    manualSelector: spec.manualSelector,
    template: manual ? template : { ...template, metadata: { ...template.metadata, labels: { ...(template.metadata.labels ?? {}), ...jobLabels } } },
    completionMode: spec.completionMode ?? 'NonIndexed',
    suspend: spec.suspend ?? false,
    podReplacementPolicy: spec.podReplacementPolicy ?? 'TerminatingOrFailed',
  }
}

function qosClass(spec: Obj): string {
  const containers: Obj[] = spec.containers ?? []
  const anyResources = containers.some((c) => Object.keys(c.resources?.requests ?? {}).length || Object.keys(c.resources?.limits ?? {}).length)
  if (!anyResources) return 'BestEffort'
  const guaranteed = containers.every((c) => c.resources?.limits?.cpu && c.resources?.limits?.memory)
  return guaranteed ? 'Guaranteed' : 'Burstable'
}
