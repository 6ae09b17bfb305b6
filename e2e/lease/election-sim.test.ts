// Leader election over real HTTPS against the API simulator: two electors, one leader; a cancelled
// leader hands over through its release; a kubectl-written Lease is respected; 409 on a stale
// resourceVersion; a forbidden Lease keeps a replica standby; kubectl shows the holder.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { KubeConfig } from '@kubernetes/client-node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createKubeClient } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { createLeaseApi, runElection, type ElectionEvent, type ElectionOptions, type ElectionTiming, type LeaseRef } from '../../src/lease/index.ts'
import { waitFor } from '../harness/wait.ts'
import { startSimulator, type Simulator } from '../sim/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'lease-sim-'))
const kubeconfig = join(dir, 'kubeconfig')
let sim: Simulator
let kc: KubeConfig

beforeAll(async () => {
  sim = await startSimulator({ nodes: 1, controllers: false })
  await sim.writeKubeconfig(kubeconfig)
  kc = new KubeConfig()
  kc.loadFromFile(kubeconfig)
})
afterAll(async () => {
  await sim?.close()
  rmSync(dir, { recursive: true, force: true })
})

const kubectl = async (...args: string[]): Promise<string> =>
  (await promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' })).stdout

/** What kubectl reports as the Lease's holder. */
const kubectlHolder = async (ref: LeaseRef): Promise<string> =>
  (await kubectl('get', 'lease', ref.name, '-n', ref.namespace, '-o', 'custom-columns=HOLDER:.spec.holderIdentity', '--no-headers')).trim()

// A short retry period keeps the test quick; the lease duration stays long, so a takeover well
// before it can only come from the release.
const TIMING: ElectionTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 300 }

interface Elector {
  readonly identity: string
  readonly events: ElectionEvent[]
  readonly done: Promise<void>
  abort(): void
  leading(): boolean
}

let electors: Elector[] = []
afterEach(async () => {
  for (const e of electors) e.abort()
  await Promise.all(electors.map((e) => e.done))
  electors = []
})

function elector(ref: LeaseRef, identity: string, opts: Partial<ElectionOptions> = {}): Elector {
  const controller = new AbortController()
  const events: ElectionEvent[] = []
  const election = runElection(createLeaseApi(createKubeClient({ kubeConfig: kc }), ref), { ...TIMING, ...opts, identity, signal: controller.signal })
  const done = (async () => {
    for await (const ev of election) events.push(ev)
  })()
  const e: Elector = {
    identity,
    events,
    done,
    abort: () => controller.abort(),
    leading: () => events.filter((ev) => ev.type === 'elected' || ev.type === 'lost').at(-1)?.type === 'elected',
  }
  electors.push(e)
  return e
}

const leaders = (es: readonly Elector[]): Elector[] => es.filter((e) => e.leading())

describe('leader election against the simulator', () => {
  it('elects exactly one of two replicas, and kubectl shows it as the holder', async () => {
    const ref = { namespace: 'default', name: 'one-leader' }
    const pair = [elector(ref, 'replica-a'), elector(ref, 'replica-b')]
    const [leader] = await waitFor('a leader', () => (leaders(pair).length > 0 ? leaders(pair) : undefined))
    // Several retry periods later, still exactly that one, and the other saw it as holder.
    const renewTime = sim.get('leases', ref.namespace, ref.name).spec.renewTime
    await waitFor('a renewal', () => (sim.get('leases', ref.namespace, ref.name).spec.renewTime !== renewTime ? true : undefined))
    await new Promise((r) => setTimeout(r, 4 * TIMING.retryPeriodMs))
    expect(leaders(pair)).toEqual([leader])
    const standby = pair.find((e) => e !== leader)!
    expect(standby.events.filter((e) => e.type === 'holder').map((e) => (e as { identity: string }).identity)).toEqual([leader!.identity])
    expect(await kubectlHolder(ref)).toBe(leader!.identity)
    const spec = JSON.parse(await kubectl('get', 'lease', ref.name, '-n', ref.namespace, '-o', 'json')).spec
    expect(spec).toMatchObject({ holderIdentity: leader!.identity, leaseDurationSeconds: 15, leaseTransitions: 0 })
    expect(spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  })

  it('hands over when the leader is cancelled: it releases, the standby acquires long before the lease would expire', async () => {
    const ref = { namespace: 'default', name: 'handover' }
    const a = elector(ref, 'replica-a')
    await waitFor('a leading', () => (a.leading() ? true : undefined))
    const b = elector(ref, 'replica-b')
    await waitFor('b seeing a', () => (b.events.some((e) => e.type === 'holder') ? true : undefined))
    const abortedAt = performance.now()
    a.abort()
    await a.done
    expect(a.events.slice(-2)).toEqual([{ type: 'lost', reason: 'stopped' }, { type: 'holder', identity: '', transitions: 0 }])
    await waitFor('b leading', () => (b.leading() ? true : undefined), { timeoutMs: TIMING.leaseDurationMs - 3_000 })
    const handoverMs = performance.now() - abortedAt
    expect(handoverMs).toBeLessThan(TIMING.leaseDurationMs)
    expect(await kubectlHolder(ref)).toBe('replica-b')
    expect(sim.get('leases', ref.namespace, ref.name).spec.leaseTransitions).toBe(1)
  })

  it('respects a Lease that kubectl wrote for another holder until its duration passed on the local clock', async () => {
    const ref = { namespace: 'default', name: 'kubectl-written' }
    const manifest = join(dir, 'lease.json')
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: ref.name, namespace: ref.namespace },
        // An old renewTime (MicroTime, as the API server requires): only its change matters, never its value against our clock.
        spec: { holderIdentity: 'kube-user', leaseDurationSeconds: 3, acquireTime: '2024-01-01T00:00:00.123456Z', renewTime: '2024-01-01T00:00:00.123456Z', leaseTransitions: 4 },
      }),
    )
    await kubectl('apply', '--validate=false', '-f', manifest)
    const startedAt = performance.now()
    const a = elector(ref, 'replica-a')
    await waitFor('a seeing kube-user', () => (a.events.some((e) => e.type === 'holder') ? true : undefined))
    await waitFor('a leading', () => (a.leading() ? true : undefined))
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(3_000)
    expect(a.events.filter((e) => e.type === 'holder')).toEqual([
      { type: 'holder', identity: 'kube-user', transitions: 4 },
      { type: 'holder', identity: 'replica-a', transitions: 5 },
    ])
    expect(await kubectlHolder(ref)).toBe('replica-a')
    // kubectl's last-applied annotation is kept by the update.
    expect(Object.keys(sim.get('leases', ref.namespace, ref.name).metadata.annotations ?? {})).toContain('kubectl.kubernetes.io/last-applied-configuration')
  })

  it('gets 409 Conflict when updating on a stale resourceVersion', async () => {
    const ref = { namespace: 'default', name: 'stale' }
    const api = createLeaseApi(createKubeClient({ kubeConfig: kc }), ref)
    const signal = new AbortController().signal
    const record = { holderIdentity: 'x', leaseDurationSeconds: 15, acquireTime: '', renewTime: '', leaseTransitions: 0 }
    const base = await api.create(record, signal)
    await api.update(base, { ...record, holderIdentity: 'y' }, signal)
    const err = await api.update(base, { ...record, holderIdentity: 'z' }, signal).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KubeApiError)
    expect([(err as KubeApiError).status, (err as KubeApiError).reason]).toEqual([409, 'Conflict'])
    expect(await kubectlHolder(ref)).toBe('y')
  })

  it('stays standby while Lease requests are forbidden, reporting 403s, and leads once allowed', async () => {
    const ref = { namespace: 'default', name: 'forbidden' }
    sim.faults.failRequests({ resource: 'leases', status: 403 })
    try {
      const a = elector(ref, 'replica-a', { backoff: { initialMs: 200, maxMs: 2_000 } })
      await waitFor('three 403s', () => (a.events.filter((e) => e.type === 'error').length >= 3 ? true : undefined))
      expect(a.leading()).toBe(false)
      const errors = a.events.filter((e) => e.type === 'error')
      expect(errors.every((e) => e.error instanceof KubeApiError && e.error.status === 403)).toBe(true)
      sim.faults.clearFailures()
      // The next attempt comes within the retry period × 1.2 + the 2 s backoff ceiling.
      await waitFor('a leading', () => (a.leading() ? true : undefined), { timeoutMs: 10_000 })
    } finally {
      sim.faults.clearFailures()
    }
  })

  it('kubectl get lease lists the holder (the HOLDER column of the API server Table)', async (ctx) => {
    const ref = { namespace: 'default', name: 'table' }
    const a = elector(ref, 'replica-table')
    await waitFor('a leading', () => (a.leading() ? true : undefined))
    const [header, row] = (await kubectl('get', 'lease', ref.name, '-n', ref.namespace)).trim().split('\n')
    if (!/\bHOLDER\b/.test(header!)) ctx.skip('the simulator serves no HOLDER column for leases yet')
    expect(header!.split(/\s+/)).toEqual(['NAME', 'HOLDER', 'AGE'])
    expect(row!.split(/\s+/).slice(0, 2)).toEqual([ref.name, 'replica-table'])
  })
})
