// Issue 33: kubectl parity. Each case of cases.ts is judged by kubectl with the case's kubeconfig,
// then the built collector (dist/cli.mjs) runs on Node and on Deno — the shipped runtime — with the
// same kubeconfig: where kubectl connects, the collector is ready (every stream listed and watched,
// the reducer link up); where kubectl refuses, the collector refuses for the same reason, says it
// in its log line and counts it under that reason. docs/kube-api.md "kubectl parity" holds the table.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TRANSPORT_REASONS, type TransportReason } from '../../src/kube/transport-reason.ts'
import { startTap, type Tap } from '../../src/tap/index.ts'
import { root, RUNTIMES, startCollector } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'
import { CASES, createSharedPki, type CaseSetup, type SharedPki } from './cases.ts'
import { kubectlVerdict, type KubectlVerdict } from './kubectl.ts'

const RUNTIME_NAMES = ['node', 'deno'] as const
const REASONS = Object.keys(TRANSPORT_REASONS) as TransportReason[]
const ERRORS = 'k8s_collector_watch_api_errors_total{stream="pods",status="'

/** What the collector did: ready, or the first failure reason of its pod stream. */
async function collectorOutcome(httpPort: number): Promise<string | undefined> {
  const ready = await fetch(`http://127.0.0.1:${httpPort}/readyz`).then((r) => r.status === 200, () => false)
  if (ready) return 'connects'
  const metrics = await fetch(`http://127.0.0.1:${httpPort}/metrics`).then((r) => r.text(), () => '')
  const failed = metrics.split('\n').find((l) => l.startsWith(ERRORS))
  return failed?.slice(ERRORS.length, failed.indexOf('"', ERRORS.length))
}

/** The table of the closing note: case → kubectl, node, deno. */
const table = new Map<string, Record<string, string>>()

describe.concurrent('kubectl parity: the collector on Node and Deno beside kubectl, with the same kubeconfig', () => {
  let tap: Tap
  let pki: SharedPki
  beforeAll(async () => {
    if (!existsSync(join(root, 'dist', 'cli.mjs'))) throw new Error('dist/cli.mjs is missing: run `npm run build` first (npm test does)')
    tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
    pki = await createSharedPki()
  })
  afterAll(async () => {
    await tap?.close()
    const rows = [...table].map(([name, r]) => `| ${name} | ${r.kubectl} | ${r.node ?? '—'} | ${r.deno ?? '—'} |`)
    console.log(['| case | kubectl | Node | Deno |', '|---|---|---|---|', ...rows].join('\n'))
  })

  for (const [index, c] of CASES.entries()) {
    describe.sequential(c.name, () => {
      let dir: string
      let setup: CaseSetup
      let judge: KubectlVerdict
      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'kc-tls-'))
        setup = await c.setUp(dir, pki)
        judge = await kubectlVerdict(setup.kubeconfig, dir, setup.env)
        table.set(c.name, { kubectl: judge.outcome })
      })
      afterAll(async () => {
        await setup?.close()
        if (dir) rmSync(dir, { recursive: true, force: true })
      })

      it(`kubectl: ${c.kubectl}`, () => {
        expect(judge.outcome, judge.output).toBe(c.kubectl)
      })

      it.each(RUNTIME_NAMES)('the collector on %s does as kubectl does', async (runtime) => {
        const first = setup.server.requests.length
        const collector = await startCollector(RUNTIMES[runtime]!, {
          kubeconfig: setup.kubeconfig,
          intakePort: tap.tcpPort,
          hostname: `tls-${index}-${runtime}`,
          env: { ...setup.env, HOME: dir },
        })
        try {
          const outcome = await waitFor(`${runtime}: ready or a failure of the pod stream`, () => collectorOutcome(collector.httpPort), {
            describe: () => collector.stderr().slice(-3000),
          })
          table.get(c.name)![runtime] = outcome
          const log = collector.stderr()
          expect(outcome, log.slice(-3000)).toBe(judge.outcome)
          // "fetch failed" never stands alone: every failure line names its cause.
          expect(log).not.toMatch(/: fetch failed[;"]/)
          // HTTP/2 on both runtimes; a proxy-url keeps HTTP/1.1, node:https on Deno (one warning line each).
          const transport = c.transport ?? 'h2'
          const overNode = log.split('\n').filter((l) => l.includes('over node:https'))
          expect(overNode, 'the warning lines about node:https').toHaveLength(runtime === 'deno' && transport !== 'h2' ? 1 : 0)
          const protocolLines = log.split('\n').filter((l) => l.includes('HTTP/2, one connection') || l.includes('HTTP/1.1 ('))
          if (transport !== 'h2') expect(protocolLines, 'the protocol line').toEqual([expect.stringContaining('HTTP/1.1 (the kubeconfig has a proxy-url')])
          else if (outcome === 'connects') expect(protocolLines, 'the protocol line').toEqual([expect.stringContaining('HTTP/2, one connection checked by PING')])
          if (outcome === 'connects') {
            const requests = () => setup.server.requests.slice(first).filter((r) => r.userAgent.startsWith('k8s-collector'))
            await setup.check?.({ runtime, stderr: collector.stderr, requests })
            expect(new Set(requests().filter((r) => r.status === 200).map((r) => r.path)).size).toBe(3)
            // Watches over h2; LIST pages and streaming lists too on Node, over fetch (HTTP/1.1) on Deno where fetch can carry them.
            const watches = requests().filter((r) => r.query.get('watch') === '1' && r.query.get('sendInitialEvents') !== 'true')
            expect(watches.length).toBeGreaterThan(0)
            expect(new Set(watches.map((r) => r.protocol))).toEqual(new Set([transport === 'h2' ? '2.0' : '1.1']))
            if (runtime === 'node' || transport !== 'h2') expect(new Set(requests().map((r) => r.protocol))).toEqual(new Set([transport === 'h2' ? '2.0' : '1.1']))
          } else {
            const reason = outcome as TransportReason
            expect(REASONS).toContain(reason)
            // The log line names the reason in words, after the server address.
            expect(log).toContain(`${TRANSPORT_REASONS[reason]} (`)
            expect(setup.server.requests.length - first, 'HTTP requests that reached the server').toBe(0)
          }
        } finally {
          await collector.stop()
        }
      }, 60_000)
    })
  }
})
