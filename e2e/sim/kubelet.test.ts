// The simulated kubelet when a node's pod CIDR is used up (found by the chaos soak, issue 18: the
// allocator threw in a timer and took the whole simulator down): pods wait Pending, then start.
import { afterAll, describe, expect, it } from 'vitest'
import { waitFor } from '../harness/wait.ts'
import { startSimulator, type Simulator } from './index.ts'

describe('simulated kubelet', () => {
  let sim: Simulator | undefined
  afterAll(() => sim?.close())

  it('keeps pods Pending while their node has no pod IP left and starts them once IPs are free', async () => {
    sim = await startSimulator({ nodes: 1, podStartDelayMs: 1, podStopDelayMs: 1 })
    const s = sim
    for (let i = 0; i < 255; i++) s.create('pods', { metadata: { name: `p-${i}`, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'img:1' }] } })
    const phases = () => s.list('pods').map((p) => p.status?.phase as string)
    await waitFor('253 pods running, 2 pending', () => (phases().filter((p) => p === 'Running').length === 253 ? true : undefined), { timeoutMs: 20_000 })
    expect(phases().filter((p) => p === 'Pending')).toHaveLength(2)
    // Still serving, and the two get the IPs freed by two deletions.
    s.delete('pods', 'default', 'p-0')
    s.delete('pods', 'default', 'p-1')
    await waitFor('every pod running', () => (s.list('pods').length === 253 && phases().every((p) => p === 'Running') ? true : undefined), { timeoutMs: 20_000 })
    const ips = s.list('pods').map((p) => p.status.podIP as string)
    expect(new Set(ips).size).toBe(253)
  })
})
