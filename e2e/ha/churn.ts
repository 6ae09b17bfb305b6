// Background churn for handover tests: bare pods created and deleted and a Deployment scaled up and
// down every few hundred milliseconds, until stopped.
import type { Simulator } from '../sim/index.ts'

export interface Churn {
  /** Changes made so far. */
  readonly changes: number
  /** Stops after the change in progress. */
  stop(): Promise<void>
}

/** Starts churning in namespace `ns`: pod `<prefix>-N` created each tick, the oldest deleted, `deployment` scaled 1–4. */
export function startChurn(sim: Simulator, opts: { prefix: string; ns?: string; deployment: string; everyMs?: number }): Churn {
  const ns = opts.ns ?? 'default'
  const live: string[] = []
  let n = 0
  let changes = 0
  const tick = (): void => {
    n++
    const name = `${opts.prefix}-${n}`
    sim.create('pods', { metadata: { name, namespace: ns }, spec: { containers: [{ name: 'c', image: `churn:${n % 3}` }] } })
    live.push(name)
    changes++
    if (live.length > 3) {
      sim.delete('pods', ns, live.shift()!)
      changes++
    }
    if (n % 4 === 0) {
      sim.patch('deployments', ns, opts.deployment, { spec: { replicas: 1 + ((n / 4) % 4) } })
      changes++
    }
  }
  const timer = setInterval(tick, opts.everyMs ?? 150)
  return {
    get changes() {
      return changes
    },
    async stop() {
      clearInterval(timer)
    },
  }
}
