// `npm run e2e:k8s` (and npm test): the end-to-end scenarios against the real control plane, the
// collector as shipped (Deno, ServiceAccount token) and on Node (client certificate), each with
// exactly the RBAC of kind/collector.yaml.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { quiescent, scenarios } from '../scenarios/scenarios.ts'
import { snapshotWorkload } from '../scenarios/workloads.ts'
import { startK8sBackend, type CollectorAuth, type K8sCluster } from './backend.ts'
import { startControlPlane, type ControlPlane } from './control-plane.ts'

const RUNS: ReadonlyArray<{ runtime: string; auth: CollectorAuth }> = [
  { runtime: 'deno', auth: 'token' },
  { runtime: 'node', auth: 'cert' },
]

for (const { runtime, auth } of RUNS) {
  describe(`e2e scenarios on the real control plane: ${runtime}, ${auth === 'token' ? 'ServiceAccount token' : 'client certificate'}`, () => {
    let plane: ControlPlane
    let cluster: K8sCluster

    beforeAll(async () => {
      plane = await startControlPlane({ nodes: 3 })
      cluster = await startK8sBackend(plane, snapshotWorkload(), { runtime, auth })
    }, 240_000)

    afterAll(async () => {
      await cluster?.close()
      await plane?.stop()
    }, 60_000)

    for (const scenario of scenarios) {
      it(scenario.name, async () => {
        try {
          await scenario.run(cluster)
        } catch (err) {
          ;(err as Error).message += `\ncollector stderr (tail):\n${cluster.collectorLog().slice(-4000)}`
          throw err
        }
      }, 240_000)
    }

    it('8. quiescent at the end: the tap holds exactly the cluster', async () => {
      await quiescent(cluster)
    }, 60_000)
  })
}
