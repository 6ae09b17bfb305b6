// The workloads of the scenarios as plain manifests, identical for kind and the simulator.
const PAUSE = 'registry.k8s.io/pause:3.10'
const BUSYBOX = 'busybox:1.36'
const sleeper = (name: string, image = BUSYBOX) => ({ name, image, command: ['sleep', '3600'] })
const pause = (name: string) => ({ name, image: PAUSE })
const labels = (app: string) => ({ app, 'e2e.k8s-collector.io/suite': 'true' })
const podTemplate = (app: string, spec: object) => ({ metadata: { labels: labels(app) }, spec })

export const NS = 'default'

export function deployment(name: string, replicas: number, containers: object[] = [pause('app'), sleeper('sidecar')]): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS, labels: labels(name) },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate(name, { containers, terminationGracePeriodSeconds: 1 }) },
  }
}

export function cronJob(name: string, opts: { runSeconds: number }): object {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: NS },
    spec: {
      schedule: '*/1 * * * *',
      successfulJobsHistoryLimit: 0,
      failedJobsHistoryLimit: 0,
      concurrencyPolicy: 'Forbid',
      jobTemplate: {
        spec: {
          template: {
            metadata: { labels: labels(name), annotations: { 'sim.k8s-collector.io/run-ms': String(opts.runSeconds * 1000) } },
            spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 1, containers: [{ name: 'tick', image: BUSYBOX, command: ['sleep', String(opts.runSeconds)] }] },
          },
        },
      },
    },
  }
}

/** Scenario 1's pre-existing workload: every owner shape of the issue. */
export function snapshotWorkload(): object[] {
  return [
    deployment('web', 2),
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'bare-rs', namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: { app: 'bare-rs' } }, template: podTemplate('bare-rs', { containers: [pause('app')], terminationGracePeriodSeconds: 1 }) },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'standalone', namespace: NS },
      spec: {
        backoffLimit: 0,
        template: {
          metadata: { labels: labels('standalone'), annotations: { 'sim.k8s-collector.io/run-ms': '3600000' } },
          spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 1, containers: [sleeper('task')] },
        },
      },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly', namespace: NS },
      spec: {
        schedule: '0 3 * * *',
        jobTemplate: {
          spec: {
            template: {
              metadata: { labels: labels('nightly'), annotations: { 'sim.k8s-collector.io/run-ms': '3600000' } },
              spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 1, containers: [sleeper('report')] },
            },
          },
        },
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: NS },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent', { containers: [pause('agent')], terminationGracePeriodSeconds: 1 }) },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: NS },
      spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: podTemplate('db', { containers: [pause('db')], terminationGracePeriodSeconds: 1 }) },
    },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare', namespace: NS, labels: labels('bare') }, spec: { containers: [pause('solo')], terminationGracePeriodSeconds: 1 } },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'host-net', namespace: NS, labels: labels('host-net') },
      spec: { hostNetwork: true, containers: [pause('h')], terminationGracePeriodSeconds: 1 },
    },
  ]
}
