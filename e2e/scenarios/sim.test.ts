// `npm run e2e:sim`: the scenarios of issue 6 against the API simulator, in order, on one cluster
// (the same modules `npm run e2e` runs against kind).
import { afterAll, beforeAll, describe, it } from 'vitest'
import { quiescent, scenarios } from './scenarios.ts'
import { startSimBackend, type SimBackend } from './sim-backend.ts'
import { snapshotWorkload } from './workloads.ts'

describe('e2e scenarios on the simulator', () => {
  let backend: SimBackend

  beforeAll(async () => {
    backend = await startSimBackend(snapshotWorkload())
  }, 60_000)

  afterAll(async () => {
    await backend?.close()
  })

  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      try {
        await scenario.run(backend)
      } catch (err) {
        ;(err as Error).message += `\ncollector stderr (tail):\n${backend.collectorLog().slice(-4000)}`
        throw err
      }
    }, 120_000)
  }

  it('8. quiescent at the end: the tap holds exactly the cluster', async () => {
    await quiescent(backend)
  })
})
