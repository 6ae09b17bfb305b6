// The link against the reducer-compatible tap (src/tap), on fake time: accepted, decoded, closed cleanly.
import { afterEach, beforeAll, expect, it } from 'vitest'
import { logger } from '../observe/log.ts'
import { startTap, type Tap } from '../tap/index.ts'
import { runLink } from '../../e2e/harness/link-fixtures.ts'
import { waitFor } from '../../e2e/harness/wait.ts'

beforeAll(() => {
  logger.level = -999
})

let tap: Tap | undefined
afterEach(async () => {
  await tap?.close()
})

const until = (pred: () => boolean, what: string): Promise<true> => waitFor(what, () => pred() || undefined, { timeoutMs: 5_000 })

it('is accepted by the reducer-compatible tap: agent metadata, pods, then a clean close', async () => {
  tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
  const link = runLink(
    {
      host: '127.0.0.1',
      port: tap.tcpPort,
      hostname: 'kc-node',
      labels: [['cluster', 'dev']],
      cpuCores: 4,
      heartbeatIntervalMs: 20,
    },
    (ev) => {
      if (ev.type !== 'connected') return
      ev.session.send([
        { type: 'pod_resync', resyncCount: 1n },
        {
          type: 'pod_new_with_name',
          uid: 'u1',
          ip: 0x0a000001,
          ownerName: 'web',
          podName: 'web-1',
          ownerKind: 1,
          ownerUid: 'd1',
          isHostNetwork: false,
          ns: 'default',
          version: "'nginx:1.25'",
        },
        { type: 'pod_container', uid: 'u1', containerId: 'containerd://abc', containerName: 'nginx', containerImage: 'nginx:1.25' },
      ])
    },
  )
  await link.event(0)
  await link.clock.advance(20)
  const conn = () => tap!.state().connections[0]
  await until(() => conn()?.pods.length === 1 && conn()!.agent.health !== null, 'the pod and a heartbeat')
  const c = conn()!
  expect(c.version).toBe('0.11.0')
  expect(c.hostname).toBe('kc-node')
  expect(c.agent).toMatchObject({
    collectorType: 3,
    cpuCores: 4,
    labels: { cluster: 'dev' },
    nodeInfo: { az: '', role: '', instanceId: 'kc-node', instanceType: '' },
    health: { status: 0, detail: 0 },
  })
  expect(c.epochs.map(Number)).toEqual([1])
  expect(c.pods[0]).toMatchObject({ uid: 'u1', ip: '10.0.0.1', ownerKind: 1, containers: [{ key: 'abc', name: 'nginx', image: 'nginx:1.25' }] })
  expect(c.counters.bytesReceived).toBe(link.stats().wireBytesSent)

  await link.stop()
  await until(() => conn()?.open === false, 'the close')
  expect(conn()!.closeReason).toMatchObject({ kind: 'peerClosed', trailingBytes: 0 })
})
