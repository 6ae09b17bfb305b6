// A small workload of every owner shape (issue 5's end-to-end test), for the API simulator.
import type { Simulator } from '../sim/index.ts'

const container = (name: string, image: string) => ({ name, image })
const template = (app: string, containers: object[], extra: object = {}) => ({
  metadata: { labels: { app } },
  spec: { containers, ...extra },
})

/** Creates the workload; returns the names for later assertions. */
export function createEveryOwnerShape(sim: Simulator, ns = 'default'): void {
  sim.create('deployments', {
    metadata: { name: 'web', namespace: ns },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('web', [container('nginx', 'nginx:1.25'), container('sidecar', 'busybox:1.36')]) },
  })
  sim.create('replicasets', {
    metadata: { name: 'bare-rs', namespace: ns },
    spec: { replicas: 1, selector: { matchLabels: { app: 'bare-rs' } }, template: template('bare-rs', [container('app', 'app:1')]) },
  })
  sim.create('jobs', {
    metadata: { name: 'once', namespace: ns },
    spec: { template: template('once', [container('task', 'task:1')], { restartPolicy: 'Never', activeDeadlineSeconds: 3600 }) },
  })
  sim.create('cronjobs', {
    metadata: { name: 'nightly', namespace: ns },
    spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: template('nightly', [container('report', 'report:2')], { restartPolicy: 'Never' }) } } },
  })
  sim.create('daemonsets', {
    metadata: { name: 'agent', namespace: 'kube-system' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent', [container('agent', 'agent:3')]) },
  })
  sim.create('daemonsets', {
    metadata: { name: 'hostnet', namespace: 'kube-system' },
    spec: { selector: { matchLabels: { app: 'hostnet' } }, template: template('hostnet', [container('proxy', 'proxy:1')], { hostNetwork: true }) },
  })
  sim.create('statefulsets', {
    metadata: { name: 'db', namespace: ns },
    spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db', [container('postgres', 'postgres:16')]) },
  })
  sim.create('pods', { metadata: { name: 'bare', namespace: ns }, spec: { containers: [container('solo', 'solo:1')] } })
  sim.create('pods', { metadata: { name: 'host-bare', namespace: ns }, spec: { hostNetwork: true, containers: [container('h', 'h:1')] } })
  sim.runCronJobNow(ns, 'nightly')
}
