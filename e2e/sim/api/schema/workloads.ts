// apps/v1 and batch/v1 workload kinds (and the autoscaling/v1 Scale of their /scale subresource).
import { definePackage } from './dsl.ts'

const SELECTOR = 'meta/LabelSelector! | Label query over the pods it manages; must match the template labels.'
const TEMPLATE = 'core/PodTemplateSpec! | Pods created from this template.'

export const APPS = definePackage('apps', {
  Deployment: {
    _kind: 'apps/v1/Deployment',
    _: 'Declarative updates for Pods and ReplicaSets.',
    metadata: 'meta/ObjectMeta | Standard object metadata.',
    spec: 'DeploymentSpec | Desired behaviour of the Deployment.',
    status: 'DeploymentStatus | Most recently observed status of the Deployment.',
  },
  DeploymentSpec: {
    _: 'The desired behaviour of a Deployment.',
    minReadySeconds: 'integer | Seconds a new pod must be ready before it counts as available.',
    paused: 'boolean | Whether the rollout is paused.',
    progressDeadlineSeconds: 'integer | Seconds before a rollout without progress is reported failed.',
    replicas: 'integer | Number of desired pods (default 1).',
    revisionHistoryLimit: 'integer | Old ReplicaSets kept for rollback (default 10).',
    selector: SELECTOR,
    strategy: 'DeploymentStrategy | How existing pods are replaced by new ones.',
    template: TEMPLATE,
  },
  DeploymentStrategy: {
    _: 'How a Deployment replaces pods.',
    rollingUpdate: 'RollingUpdateDeployment | Parameters of a RollingUpdate.',
    type: 'string | Recreate or RollingUpdate (default).',
  },
  RollingUpdateDeployment: {
    _: 'Parameters of a rolling update.',
    maxSurge: 'intstr | Pods that may be created above the desired number (default 25%).',
    maxUnavailable: 'intstr | Pods that may be unavailable during the update (default 25%).',
  },
  DeploymentStatus: {
    _: 'Observed state of a Deployment.',
    availableReplicas: 'integer', collisionCount: 'integer', conditions: '[]any~type', observedGeneration: 'int64', readyReplicas: 'integer',
    replicas: 'integer', terminatingReplicas: 'integer', unavailableReplicas: 'integer', updatedReplicas: 'integer',
  },
  ReplicaSet: {
    _kind: 'apps/v1/ReplicaSet',
    _: 'Ensures that a number of pod replicas run at any time.',
    metadata: 'meta/ObjectMeta | Standard object metadata.',
    spec: 'ReplicaSetSpec | Desired behaviour of the ReplicaSet.',
    status: 'any | Most recently observed status of the ReplicaSet.',
  },
  ReplicaSetSpec: {
    _: 'The desired behaviour of a ReplicaSet.',
    minReadySeconds: 'integer', replicas: 'integer | Number of desired pods (default 1).', selector: SELECTOR,
    template: 'core/PodTemplateSpec | Pods created from this template.',
  },
  DaemonSet: {
    _kind: 'apps/v1/DaemonSet',
    _: 'Runs a copy of a pod on each node.',
    metadata: 'meta/ObjectMeta | Standard object metadata.',
    spec: 'DaemonSetSpec | Desired behaviour of the DaemonSet.',
    status: 'any | Most recently observed status of the DaemonSet.',
  },
  DaemonSetSpec: {
    _: 'The desired behaviour of a DaemonSet.',
    minReadySeconds: 'integer', revisionHistoryLimit: 'integer', selector: SELECTOR, template: TEMPLATE, updateStrategy: 'any',
  },
  StatefulSet: {
    _kind: 'apps/v1/StatefulSet',
    _: 'Pods with stable identities.',
    metadata: 'meta/ObjectMeta | Standard object metadata.',
    spec: 'StatefulSetSpec | Desired behaviour of the StatefulSet.',
    status: 'any | Most recently observed status of the StatefulSet.',
  },
  StatefulSetSpec: {
    _: 'The desired behaviour of a StatefulSet.',
    minReadySeconds: 'integer', ordinals: 'any', persistentVolumeClaimRetentionPolicy: 'any', podManagementPolicy: 'string',
    replicas: 'integer', revisionHistoryLimit: 'integer', selector: SELECTOR, serviceName: 'string', template: TEMPLATE,
    updateStrategy: 'any', volumeClaimTemplates: '[]any',
  },
})

export const BATCH = definePackage('batch', {
  Job: {
    _kind: 'batch/v1/Job',
    _: 'A single job: pods run to completion.',
    metadata: 'meta/ObjectMeta | Standard object metadata.',
    spec: 'JobSpec | Desired behaviour of the Job.',
    status: 'any | Most recently observed status of the Job.',
  },
  JobSpec: {
    _: 'The desired behaviour of a Job.',
    activeDeadlineSeconds: 'int64', backoffLimit: 'integer | Retries before the Job is failed (default 6).', backoffLimitPerIndex: 'integer',
    completionMode: 'string', completions: 'integer | Successful pods needed.', managedBy: 'string', manualSelector: 'boolean',
    maxFailedIndexes: 'integer', parallelism: 'integer | Pods running at once.', podFailurePolicy: 'any', podReplacementPolicy: 'string',
    selector: 'meta/LabelSelector', successPolicy: 'any', suspend: 'boolean', template: TEMPLATE,
    ttlSecondsAfterFinished: 'integer | Seconds after which a finished Job is deleted.',
  },
  CronJob: {
    _kind: 'batch/v1/CronJob',
    _: 'A Job run on a schedule.',
    metadata: 'meta/ObjectMeta | Standard object metadata.',
    spec: 'CronJobSpec | Desired behaviour of the CronJob.',
    status: 'any | Most recently observed status of the CronJob.',
  },
  CronJobSpec: {
    _: 'The desired behaviour of a CronJob.',
    concurrencyPolicy: 'string | Allow, Forbid or Replace.', failedJobsHistoryLimit: 'integer', jobTemplate: 'JobTemplateSpec! | The Job to create.',
    schedule: 'string! | Cron schedule (5 fields).', startingDeadlineSeconds: 'int64', successfulJobsHistoryLimit: 'integer',
    suspend: 'boolean', timeZone: 'string',
  },
  JobTemplateSpec: {
    _: 'What Jobs created from a template look like.',
    metadata: 'meta/ObjectMeta', spec: 'JobSpec',
  },
})

export const AUTOSCALING = definePackage('autoscaling', {
  Scale: {
    _kind: 'autoscaling/v1/Scale',
    _: 'The scale subresource of a workload.',
    metadata: 'meta/ObjectMeta', spec: 'ScaleSpec', status: 'ScaleStatus',
  },
  ScaleSpec: { _: 'Desired scale.', replicas: 'integer' },
  ScaleStatus: { _: 'Observed scale.', replicas: 'integer!', selector: 'string' },
})
