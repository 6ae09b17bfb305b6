// Issue 24, the reducer side: a reducer that goes silent (every connection open at that moment
// frozen: kept open, nothing read, nothing answered, its receive window closed) while new
// connections are served. The link, on Node and on Deno, finds it in real time and works again
// through a new connection within 60 s; a healthy idle link is never torn down (docs/dead-links.md).
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, it, type TestContext } from 'vitest'
import { startTap, type Tap } from '../../src/tap/index.ts'
import type { DriverLine } from '../harness/link-driver.ts'
import { root, RUNTIMES } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'

const DRIVER = join(root, 'e2e', 'harness', 'link-driver.ts')
/** The link under test, as each runtime runs it: Node through tsx, Deno with the permissions the collector ships with. */
const COMMANDS: Record<string, string[]> = {
  node: [process.execPath, '--import', 'tsx', DRIVER],
  deno: [...RUNTIMES.deno!.slice(0, -1), DRIVER],
}
/** The silence limit of these runs: short, for real time; the rule is the one of the 20 s default. */
const LIMIT_MS = 10_000

/** Lines of a child's stdout, awaitable; its stderr kept for failure messages. */
function lines(child: ChildProcess): { next(pred: (line: string) => boolean, timeoutMs: number, what: string): Promise<string>; stderr(): string } {
  const seen: string[] = []
  const waiters = new Set<() => void>()
  let err = ''
  child.stderr!.on('data', (d: Buffer) => void (err += d.toString()))
  createInterface({ input: child.stdout! }).on('line', (line) => {
    seen.push(line)
    for (const w of [...waiters]) w()
  })
  let from = 0
  return {
    stderr: () => err,
    next(pred, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          for (; from < seen.length; from++) {
            if (pred(seen[from]!)) {
              clearTimeout(timer)
              waiters.delete(check)
              return resolve(seen[from++]!)
            }
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stdout: ${seen.join(' | ')}\nstderr: ${err.slice(-3000)}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
  }
}

/** Cleanups go to the test's own context: these tests run concurrently. */
type Finished = TestContext['onTestFinished']

function spawnKilledAfterTest(finished: Finished, cmd: string[]): ChildProcess {
  const child = spawn(cmd[0]!, cmd.slice(1), { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  finished(() => void child.kill('SIGKILL'))
  return child
}

/** The freezing proxy (e2e/harness/freeze-proxy.py) in front of `upstreamPort`. */
async function freezeProxy(finished: Finished, upstreamPort: number): Promise<{ port: number; freeze(): Promise<number> }> {
  const child = spawnKilledAfterTest(finished, ['python3', join(root, 'e2e', 'harness', 'freeze-proxy.py'), String(upstreamPort)])
  const out = lines(child)
  const port = Number((await out.next((l) => l.startsWith('listening '), 10_000, 'the proxy')).split(' ')[1])
  return {
    port,
    async freeze() {
      child.stdin!.write('freeze\n')
      return Number((await out.next((l) => l.startsWith('frozen '), 5_000, 'the freeze')).split(' ')[1])
    },
  }
}

async function tapClosedAfterTest(finished: Finished): Promise<Tap> {
  const tap = await startTap({ listen: { host: '127.0.0.1', port: 0 } })
  finished(() => tap.close())
  return tap
}

/** The link driver on `runtime`, with its events. */
function driver(finished: Finished, runtime: string, opts: { port: number; busy: boolean; peerSilentMs: number; heartbeatIntervalMs: number }) {
  const child = spawnKilledAfterTest(finished, [...COMMANDS[runtime]!, JSON.stringify(opts)])
  const out = lines(child)
  return {
    stderr: out.stderr,
    /** Sends one ~4 KB change. */
    change: () => void child.stdin!.write('change\n'),
    async next<T extends DriverLine['type']>(type: T, timeoutMs: number): Promise<Extract<DriverLine, { type: T }>> {
      const line = await out.next((l) => l.startsWith(`{"type":"${type}"`), timeoutMs, `a ${type} event`)
      return JSON.parse(line) as Extract<DriverLine, { type: T }>
    },
  }
}

/** The tap's connections opened so far, with the fields these tests look at. */
const connections = (tap: Tap) => tap.state().connections

describe.concurrent.each(Object.keys(COMMANDS))('reducer link on %s', (runtime) => {
  describe.each([
    ['quiet (heartbeats only, every 2 s)', false],
    ['busy (50 changes a second)', true],
  ])('a reducer that goes silent, %s', (_, busy) => {
    it('is found, logged once with the evidence, and replaced by a new connection within 60 s', async ({ expect, onTestFinished }) => {
      const tap = await tapClosedAfterTest(onTestFinished)
      const proxy = await freezeProxy(onTestFinished, tap.tcpPort)
      const link = driver(onTestFinished, runtime, { port: proxy.port, busy, peerSilentMs: LIMIT_MS, heartbeatIntervalMs: 2_000 })
      expect(await link.next('connected', 30_000)).toMatchObject({ connection: 1 })
      // Up and flowing: heartbeats (and pods) reach the tap through the proxy.
      await waitFor('the first session to flow', () => {
        const c = connections(tap)[0]
        return c && c.agent.health !== null && (!busy || c.pods.length >= 50) ? true : undefined
      }, { timeoutMs: 30_000, describe: () => connections(tap)[0]?.counters })

      expect(await proxy.freeze()).toBe(1)
      const frozenAt = Date.now()
      // The frozen connection's window still takes ~700 bytes (~26 heartbeats); one change fills
      // it, so that from here on nothing is acknowledged, as with a dead host, while only
      // heartbeats follow. The busy link fills it by itself.
      if (!busy) link.change()
      const ended = await link.next('disconnected', 60_000)
      expect(ended.cause).toBe('peer_silent')
      // The evidence: silent for the limit, with bytes the reducer never acknowledged in the kernel.
      expect(ended.message).toMatch(/^the reducer acknowledged nothing for 1\d\.\d s: [1-9]\d* bytes wait in the kernel, \d+ in the socket, \d+ in the queue$/)
      const again = await link.next('connected', 60_000 - (Date.now() - frozenAt))
      expect(again.connection).toBe(2)
      expect(again.at - frozenAt).toBeLessThan(60_000)

      // Working again: the new connection gets the resync, heartbeats (and new pods).
      await waitFor('the new connection to flow', () => {
        const c = connections(tap).find((x) => x.open && x.epochs.map(Number).includes(2))
        return c && c.agent.health !== null && (!busy || c.pods.length >= 20) ? true : undefined
      }, { timeoutMs: 20_000, describe: () => connections(tap).map((c) => ({ id: c.id, open: c.open, epochs: c.epochs, closeReason: c.closeReason, counters: c.counters.byType })) })
      const log = link.stderr()
      expect(log.match(/peer_silent/g)).toHaveLength(1)
      expect(log).not.toContain("cannot read the kernel's view")
    }, 120_000)
  })

  it('keeps a healthy idle link for a minute at a 2 s limit with 1 s heartbeats: no session torn down', async ({ expect, onTestFinished }) => {
    const tap = await tapClosedAfterTest(onTestFinished)
    const link = driver(onTestFinished, runtime, { port: tap.tcpPort, busy: false, peerSilentMs: 2_000, heartbeatIntervalMs: 1_000 })
    const up = await link.next('connected', 30_000)
    await new Promise((resolve) => setTimeout(resolve, 60_000))
    const c = connections(tap)
    expect(c).toHaveLength(1)
    expect(c[0]).toMatchObject({ open: true, epochs: [1] })
    // ~60 heartbeats + collector_health arrived on the one connection.
    expect(c[0]!.counters.byType.heartbeat).toBeGreaterThanOrEqual(55)
    expect(up.connection).toBe(1)
    expect(link.stderr()).not.toMatch(/peer_silent|cannot read the kernel's view/)
  }, 120_000)
})
