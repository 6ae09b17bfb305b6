// Issue 23 against the API simulator (which enforces the API server's event rules), read back with
// kubectl get events and kubectl describe pod: the collector in process, its link, timers and
// recorder on fake time, its watches and event writes over real HTTPS, a real tap as the reducer.
import { afterEach, describe, expect, it } from 'vitest'
import { createCollector } from '../../src/collector/collector.ts'
import { createKubeStreams } from '../../src/collector/streams.ts'
import { createEventRecorder } from '../../src/events/index.ts'
import { createKubeClient } from '../../src/kube/index.ts'
import { createReducerLink, type ReducerLink } from '../../src/link/index.ts'
import { createModelContext } from '../../src/model/index.ts'
import { createRegistry, type Registry } from '../../src/observe/metrics.ts'
import { startTap, type Tap } from '../../src/tap/index.ts'
import { createFakeClock, type FakeClock } from '../harness/fake-clock.ts'
import { traceClient, type TracedClient } from '../harness/traced-client.ts'
import { waitFor } from '../harness/wait.ts'
import { kubectl, useSimulator } from '../sim/test-client.ts'

const t = useSimulator({ nodes: 1, podStartDelayMs: 10 }, 'events-sim-')

interface Run {
  readonly clock: FakeClock
  readonly client: TracedClient
  readonly registry: Registry
  readonly link: ReducerLink
  /** The collector's stand-in pod. */
  readonly self: string
}

/** A core/v1 Event as kubectl prints it with -o json (the fields read here). */
interface CoreEvent {
  reason: string
  type: string
  message: string
  reportingComponent: string
  series?: { count: number }
  involvedObject: { name: string; uid: string }
}

describe('collector events against the simulator', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f()
    t.sim.faults.clearFailures()
  })

  async function tapOn(port = 0): Promise<Tap> {
    const tap = await startTap({ listen: { host: '127.0.0.1', port } })
    cleanup.push(() => tap.close())
    return tap
  }

  /** The collector for pod `self` (created in the simulator), connected to `port`. */
  function start(self: string, port: number): Run {
    const pod = t.sim.create('pods', { metadata: { name: self, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'k8s-collector' }] } })
    // Ten minutes in the past, so that what kubectl prints of the fake times reads as ages.
    const clock = createFakeClock(Date.now() - 600_000)
    const registry = createRegistry()
    const abort = new AbortController()
    const client = traceClient(createKubeClient({ kubeconfigPath: t.kubeconfig }), clock.now)
    const link = createReducerLink({ host: '127.0.0.1', port, hostname: self, heartbeatIntervalMs: 5_000 }, { registry, clock, random: () => 0.5 })
    const recorder = createEventRecorder({ self: { name: self, namespace: 'default', uid: pod.metadata.uid } }, { client, registry, clock, random: () => 0.5 })
    const streams = createKubeStreams({ kubeconfig: t.kubeconfig, registry, signal: abort.signal, model: createModelContext() })
    const collector = createCollector({ deleteTtlSecs: 60, deleteCapacity: 100, waitingLimit: 1_000, primingTimeoutSecs: 60 }, { streams, registry, link, clock, events: recorder })
    const running = Promise.all([collector.run(abort.signal), recorder.run(abort.signal)])
    cleanup.push(async () => {
      abort.abort()
      await clock.advance(3_000) // the recorder's drain
      await running
    })
    return { clock, client, registry, link, self }
  }

  /** Moves fake time on in steps, letting the real HTTPS requests of each step finish. */
  async function pump(r: Run, ms: number, step = 1_000): Promise<void> {
    for (let done = 0; done < ms; done += step) {
      await r.clock.advance(Math.min(step, ms - done))
      await waitFor('the event writes in flight', () => (r.client.sent.length === r.client.answered ? true : undefined), { timeoutMs: 10_000 })
    }
  }

  /** Pumps fake time until `probe` holds (real time limited). */
  async function pumpUntil<T>(r: Run, what: string, probe: () => T | undefined | false): Promise<T> {
    const deadline = Date.now() + 20_000
    for (;;) {
      const got = probe()
      if (got) return got
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await pump(r, 100, 100)
    }
  }

  async function eventsAbout(name: string): Promise<CoreEvent[]> {
    const list = JSON.parse(await kubectl(t.kubeconfig, 'get', 'events', '-n', 'default', '-o', 'json')) as { items: CoreEvent[] }
    return list.items.filter((e) => e.reportingComponent === 'k8s-collector' && e.involvedObject.name === name)
  }

  const announced = (tap: Tap, podName: string) => tap.state().connections.some((c) => c.open && c.pods.some((p) => p.podName === podName))

  it('a reducer down for a minute: one ReducerUnreachable whose series grows, as kubectl describe pod shows it', async () => {
    let tap = await tapOn()
    const port = tap.tcpPort
    const r = start('collector-outage', port)
    await pumpUntil(r, 'the collector pod announced', () => announced(tap, 'collector-outage'))
    await tap.close()
    await pumpUntil(r, 'the loss noticed', () => r.link.state === 'backoff')
    await pump(r, 60_000)
    tap = await tapOn(port)
    await pumpUntil(r, 'reconnected', () => announced(tap, 'collector-outage'))
    await pump(r, 31_000)
    const refused = r.link.stats().connectErrors.refused
    expect(refused).toBeGreaterThanOrEqual(4)

    const events = await eventsAbout('collector-outage')
    const of = (reason: string) => events.filter((e) => e.reason === reason)
    expect(of('ReducerUnreachable')).toHaveLength(1)
    expect(of('ReducerUnreachable')[0]).toMatchObject({ type: 'Warning', series: { count: 1 + refused } })
    expect(of('ReducerConnected')).toMatchObject([{ type: 'Normal', series: { count: 2 } }])
    expect(of('Resync')).toMatchObject([{ type: 'Normal', series: { count: 2 } }])

    const described = await kubectl(t.kubeconfig, 'describe', 'pod', 'collector-outage')
    const section = described.slice(described.indexOf('Events:'))
    expect(section).toMatch(new RegExp(`Warning\\s+ReducerUnreachable\\s+\\S+ \\(x${1 + refused} over \\S+\\)\\s+k8s-collector\\s+Lost the connection to the reducer at 127\\.0\\.0\\.1:${port}: the reducer closed the connection\\.`))
    expect(section).toMatch(new RegExp(`Normal\\s+ReducerConnected\\s+\\S+ \\(x2 over \\S+\\)\\s+k8s-collector\\s+Connected to the reducer at 127\\.0\\.0\\.1:${port}\\.`))
    const table = await kubectl(t.kubeconfig, 'get', 'events', '-n', 'default', '--field-selector', 'involvedObject.name=collector-outage')
    expect(table).toMatch(/Warning\s+ReducerUnreachable\s+pod\/collector-outage\s+Lost the connection/)
  })

  it.each([
    [403, 'forbidden'],
    [500, 'failed'],
  ] as const)('events answered %i: the collector runs on and its pods are announced; nothing written', async (status, cause) => {
    t.sim.faults.failRequests({ resource: 'events', verbs: ['create', 'patch'], status })
    const tap = await tapOn()
    const self = `collector-refused-${status}`
    const r = start(self, tap.tcpPort)
    await pumpUntil(r, 'the collector pod announced', () => announced(tap, self))
    t.sim.create('pods', { metadata: { name: `late-${status}`, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } })
    await pumpUntil(r, 'a pod created meanwhile announced', () => announced(tap, `late-${status}`))
    await pump(r, 120_000, 5_000)
    t.sim.delete('pods', 'default', `late-${status}`)
    await pumpUntil(r, 'its delete', () => !announced(tap, `late-${status}`))
    expect(await eventsAbout(self)).toEqual([])
    expect(r.registry.render()).toMatch(new RegExp(`k8s_collector_events_dropped_total\\{cause="${cause}"\\} [1-9]`))
    if (status === 403) expect(r.client.sent).toHaveLength(1) // then off: no further request
    else expect(r.client.sent.length % 4).toBe(0) // every write: the attempt and three retries
  })
})
