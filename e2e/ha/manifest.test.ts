// kind/collector.yaml holds what high availability needs (docs/behaviour.md §11): two replicas
// that never both stop, spread over nodes, a disruption budget, leader election switched on with
// the pod's namespace, and a Role with only get/create/update on the Lease the collector uses.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAllYaml } from '@kubernetes/client-node'
import { describe, expect, it } from 'vitest'
import { RUN_OPTIONS } from '../../src/cli/run-options.ts'
import { LEASE_VERBS } from '../../src/lease/index.ts'
import { root } from '../harness/process.ts'

const docs = loadAllYaml(readFileSync(join(root, 'kind', 'collector.yaml'), 'utf8')) as Array<Record<string, any>>
const one = (kind: string, name?: string) => {
  const found = docs.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name))
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1)
  return found[0]!
}

describe('kind/collector.yaml', () => {
  const deployment = one('Deployment')
  const pod = deployment.spec.template.spec
  const env = new Map<string, any>(pod.containers[0].env.map((e: any) => [e.name, e]))

  it('runs two replicas, rolling one at a time with none unavailable, spread over nodes', () => {
    expect(deployment.spec.replicas).toBe(2)
    expect(deployment.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } })
    const [term] = pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution
    expect(term.podAffinityTerm).toEqual({ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: deployment.spec.selector.matchLabels } })
    expect(pod.containers[0].readinessProbe.httpGet.path).toBe('/readyz')
  })

  it('keeps one replica through voluntary disruptions', () => {
    const pdb = one('PodDisruptionBudget')
    expect(pdb.metadata.namespace).toBe(deployment.metadata.namespace)
    expect(pdb.spec).toEqual({ minAvailable: 1, selector: { matchLabels: deployment.spec.selector.matchLabels } })
  })

  it('turns leader election on, with the Lease in the pod namespace from the downward API', () => {
    expect(env.get('K8S_COLLECTOR_LEADER_ELECT')).toEqual({ name: 'K8S_COLLECTOR_LEADER_ELECT', value: 'true' })
    expect(env.get('POD_NAMESPACE').valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.namespace' } })
    expect(env.get('K8S_COLLECTOR_LEASE_NAMESPACE').value).toBe('$(POD_NAMESPACE)')
    // $(VAR) expands only to variables defined earlier in the list.
    const names = [...env.keys()]
    expect(names.indexOf('POD_NAMESPACE')).toBeLessThan(names.indexOf('K8S_COLLECTOR_LEASE_NAMESPACE'))
  })

  it('grants only get, create and update on the collector\'s Lease, in its namespace, to its service account', () => {
    const role = one('Role', 'k8s-collector-leader-election')
    const binding = one('RoleBinding', 'k8s-collector-leader-election')
    const ns = deployment.metadata.namespace
    expect(role.metadata.namespace).toBe(ns)
    expect(role.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [RUN_OPTIONS.leaseName.default], verbs: ['get', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    ])
    expect(role.rules.flatMap((r: any) => r.verbs).sort()).toEqual([...LEASE_VERBS].sort())
    expect(binding.metadata.namespace).toBe(ns)
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name })
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: pod.serviceAccountName, namespace: ns }])
    // No other rule of the manifest touches leases.
    const others = docs.filter((d) => (d.kind === 'Role' || d.kind === 'ClusterRole') && d !== role)
    expect(others.flatMap((d) => d.rules).filter((r: any) => r.resources.includes('leases'))).toEqual([])
  })
})
