// Faults side by side (issue 31 item 5): the upstream Rust k8s-collector and ours against one real
// control plane and one tap, each reaching the tap through its own freezing proxy
// (e2e/harness/freeze-proxy.py). Measured for each: when it notices a hung API server (SIGSTOP) and
// a dead reducer (no FIN, no RST), what it does once they are back, what the reducer holds after an
// API server restart (SIGKILL, then SIGTERM), and what a reducer that stops reading for 15 s does to
// it. Ours is asserted against docs/behaviour.md §12; theirs only where two runs agreed; the
// figures are printed at the end and recorded in docs/behaviour.md §10.2.
//
// Runs only when K8S_COLLECTOR_CONTENDER_RUST names the contender (a command run under /bin/sh -c,
// e.g. the path of its binary); otherwise the suite is reported as skipped, never as passed.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { converged, diffPods, expectedPods, heldPods, openConnection } from '../harness/expect.ts'
import { startFreezeProxy, type FreezeProxy } from '../harness/freeze-proxy.ts'
import { metric } from '../harness/process.ts'
import { startTapProcess, type TapProcess } from '../harness/tap-process.ts'
import { waitFor } from '../harness/wait.ts'
import { NS, snapshotWorkload } from '../scenarios/workloads.ts'
import { startK8sBackend, type K8sCluster } from './backend.ts'
import type { ConnectionSnapshot } from '../../src/tap/index.ts'
import { recordsOfConnection, startContender, type ContenderProcess } from './contender.ts'
import { startControlPlane, type ControlPlane } from './control-plane.ts'

const COMMAND = process.env.K8S_COLLECTOR_CONTENDER_RUST ?? ''
const OURS = 'ours'
const THEIRS = 'contender-rust'
const PAUSE = 'registry.k8s.io/pause:3.10'
const barePod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { containers: [{ name: 'c', image: PAUSE }], terminationGracePeriodSeconds: 0 } })
/**
 * A pod whose announcement takes ~4 KB on the wire whatever the compression (24 containers, each a
 * random image name and its own 64-hex id): sent after a freeze, it fills the frozen receive window
 * at once, so the reducer acknowledges nothing more, as a dead host would (docs/dead-links.md §1.2).
 */
const widePod = (name: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS },
  spec: { containers: Array.from({ length: 24 }, (_, i) => ({ name: `c${i}`, image: `registry.invalid/faults/${randomUUID()}:v1` })), terminationGracePeriodSeconds: 0 },
})
/** Where the suite writes both collectors' whole logs, when set. */
const LOG_DIR = process.env.K8S_COLLECTOR_FAULTS_LOGS ?? ''

/** How long the API server stays hung: past ours's 30 s API silence limit (behaviour.md §12). */
const API_HANG_MS = 35_000
/** How long the reducer stops reading: under ours's 20 s reducer silence limit and the reducer's own 30 s. */
const REDUCER_STALL_MS = 15_000

/** What each fault showed, printed at the end (the evidence behind behaviour.md §10.2). */
const report: Array<{ fault: string; [k: string]: unknown }> = []

const title = COMMAND
  ? 'faults: the upstream Rust k8s-collector beside ours on the real control plane'
  : 'NOT RUN: faults side by side with the upstream Rust k8s-collector (set K8S_COLLECTOR_CONTENDER_RUST=COMMAND)'

/** A line a process wrote, with when it was read (the Rust collector's own timestamps are whole seconds). */
interface TimedLine {
  readonly at: number
  readonly line: string
}

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())))

/** Resident memory of `pid`, KiB. */
const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN)

/** The pid of the program `/bin/sh -c COMMAND` runs (the shell may exec it or fork it). */
function programPid(shellPid: number): number {
  const comm = readFileSync(`/proc/${shellPid}/comm`, 'utf8').trim()
  if (comm !== 'sh' && comm !== 'dash' && comm !== 'bash') return shellPid
  const children = readFileSync(`/proc/${shellPid}/task/${shellPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
  return children.length ? Number(children[0]) : shellPid
}

/** Bytes the kernel holds unacknowledged on established sockets to 127.0.0.1:`port` (tx_queue, docs/dead-links.md §1.1). */
function unackedTo(port: number): number {
  let sum = 0
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = row.trim().split(/\s+/)
      if (f.length < 5 || f[3] !== '01') continue
      if (parseInt(f[2]!.split(':')[1]!, 16) !== port) continue
      sum += parseInt(f[4]!.split(':')[0]!, 16)
    }
  }
  return sum
}

describe.skipIf(!COMMAND)(title, () => {
  let plane: ControlPlane
  let tap: TapProcess
  let toTapOurs: FreezeProxy
  let toTapTheirs: FreezeProxy
  let cluster: K8sCluster
  let contender: ContenderProcess
  const theirsLog: TimedLine[] = []

  const oursLog = (since: number) =>
    cluster.collectorLog().split('\n').flatMap((l) => {
      try {
        const e = JSON.parse(l) as { time: string; level: string; msg: string }
        return Date.parse(e.time) >= since ? [{ at: Date.parse(e.time), level: e.level, msg: e.msg }] : []
      } catch {
        return []
      }
    })
  const theirsSince = (since: number) => theirsLog.filter((l) => l.at >= since)
  const rel = (t: number | undefined, from: number) => (t === undefined ? undefined : t - from)

  /** Our newest open connection (other than `notId`) once it holds exactly the cluster. */
  const oursSettled = (timeoutMs = 60_000, notId?: number) =>
    converged(async () => ({ cluster: await cluster.objects(), tap: await cluster.tapState() }), OURS, timeoutMs, notId)

  /**
   * Polls the cluster and the tap until the cluster runs every pod named in `include` (with its IP),
   * ours's open connection (other than `notIds.ours`) holds exactly what the cluster implies, and
   * theirs's the same pods (uids: its details differ, behaviour.md §10.1). Each collector's time is
   * when its own condition first held, counted from `from`.
   */
  const settle = async (from: number, include: readonly string[], timeoutMs = 90_000, notIds: { ours?: number; theirs?: number } = {}) => {
    let ours: ConnectionSnapshot | undefined
    let theirs: ConnectionSnapshot | undefined
    let oursAt = 0
    let theirsAt = 0
    let last: unknown
    await waitFor('both collectors to hold the cluster', async () => {
      const [objects, state] = await Promise.all([cluster.objects(), cluster.tapState()])
      const want = expectedPods(objects)
      const missing = include.filter((n) => !want.some((p) => p.podName === n))
      const o = openConnection(state, OURS, notIds.ours)
      const t = openConnection(state, THEIRS, notIds.theirs)
      const oursDiff = o ? diffPods(want, heldPods(o)) : 'no open connection'
      const theirsHeld = heldPods(t).map((p) => p.uid)
      last = { missing, oursDiff, theirs: t ? { id: t.id, held: theirsHeld.length, want: want.length } : 'no open connection' }
      if (missing.length) return undefined
      if (!oursAt && o && oursDiff === '') [oursAt, ours] = [Date.now(), o]
      if (!theirsAt && t && theirsHeld.join() === want.map((p) => p.uid).join()) [theirsAt, theirs] = [Date.now(), t]
      return oursAt && theirsAt ? true : undefined
    }, { timeoutMs, intervalMs: 200, describe: () => last })
    return { ours: ours!, theirs: theirs!, oursMs: oursAt - from, theirsMs: theirsAt - from }
  }

  /** Waits until the cluster runs pod `name` with an IP (the collectors can announce it). */
  const running = (name: string) =>
    waitFor(`${name} to run`, async () => (expectedPods(await cluster.objects()).some((p) => p.podName === name) ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 })

  /** Both collectors' open connections: id, epochs, pods held. */
  const both = async () => {
    const state = await cluster.tapState()
    const view = (host: string) => {
      const c = openConnection(state, host)
      return c ? { id: c.id, epochs: c.epochs.map(Number), pods: c.pods.length } : undefined
    }
    return { ours: view(OURS), theirs: view(THEIRS) }
  }

  /** The newest record's seq in the tap's log: what came after it is a fault's aftermath. */
  const lastSeq = async () => (await cluster.tapEvents(0)).last

  /** What connection `conn` sent after `since`, counted by type. */
  const sentAfter = async (conn: number | undefined, since: number) => {
    if (conn === undefined) return {}
    const counts: Record<string, number> = {}
    for (const r of await recordsOfConnection((s) => cluster.tapEvents(s), conn)) if (r.seq > since) counts[r.type] = (counts[r.type] ?? 0) + 1
    return counts
  }

  const memory = () => ({ oursKiB: rssKiB(cluster.collectorProcess()!.child.pid!), theirsKiB: rssKiB(programPid(contender.child.pid!)) })

  const oursPeerSilent = async () => {
    const m = await cluster.collectorProcess()!.metrics()
    return {
      watch: ['pods', 'replicasets', 'jobs'].map((s) => metric(m, 'k8s_collector_watch_disconnects_total', `stream="${s}",cause="peer_silent"`) ?? 0),
      link: metric(m, 'k8s_collector_link_disconnects_total', 'cause="peer_silent"') ?? 0,
    }
  }

  beforeAll(async () => {
    plane = await startControlPlane({ nodes: 3 })
    tap = await startTapProcess()
    toTapOurs = await startFreezeProxy(tap.ingestPort)
    toTapTheirs = await startFreezeProxy(tap.ingestPort)
    cluster = await startK8sBackend(plane, snapshotWorkload(), { hostname: OURS, intakePort: toTapOurs.port }, tap)
    contender = startContender('rust', COMMAND, { kubeconfig: cluster.kubeconfig, intakePort: toTapTheirs.port, hostname: THEIRS, env: { RUST_LOG: 'info' } })
    let partial = ''
    const keep = (d: Buffer) => {
      const parts = (partial + d.toString()).split('\n')
      partial = parts.pop()!
      for (const line of parts) if (line) theirsLog.push({ at: Date.now(), line })
    }
    contender.child.stderr!.on('data', keep)
    contender.child.stdout!.on('data', keep)
    await settle(Date.now(), [], 90_000)
  }, 300_000)

  afterAll(async () => {
    console.log(`contender faults report:\n${JSON.stringify(report, null, 1)}`)
    if (LOG_DIR && cluster) {
      mkdirSync(LOG_DIR, { recursive: true })
      writeFileSync(join(LOG_DIR, 'ours.log'), cluster.collectorLog())
      writeFileSync(join(LOG_DIR, 'theirs.log'), theirsLog.map((l) => `${new Date(l.at).toISOString()} ${l.line}\n`).join(''))
      writeFileSync(join(LOG_DIR, 'report.json'), JSON.stringify(report, null, 1))
    }
    plane?.pauseApiServer(false)
    await contender?.kill()
    await cluster?.close()
    await toTapOurs?.close()
    await toTapTheirs?.close()
    await plane?.stop()
  }, 90_000)

  const withLog = (fn: () => Promise<void>) => async () => {
    try {
      await fn()
    } catch (err) {
      ;(err as Error).message += `\ncontender output (tail):\n${theirsLog.slice(-30).map((l) => l.line).join('\n')}\nours (tail):\n${cluster?.collectorLog().slice(-3000)}`
      throw err
    }
  }

  it('1. a hung API server (SIGSTOP, no FIN/RST): ours tears every stream down within 30 s, theirs waits on', withLog(async () => {
    const before = await both()
    const mark = await lastSeq()
    const silentBefore = await oursPeerSilent()
    plane.pauseApiServer(true)
    const hungAt = Date.now()
    // Ours: each stream's request torn down (peer_silent) once the server sent nothing for 30 s.
    const torn = await waitFor('ours to tear down its three streams', async () => {
      const lines = oursLog(hungAt).filter((l) => l.msg.includes('(peer_silent)'))
      const first = new Map<string, number>()
      for (const l of lines) if (!first.has(l.msg.split(' ')[0]!)) first.set(l.msg.split(' ')[0]!, l.at)
      return first.size >= 3 ? first : undefined
    }, { timeoutMs: 60_000, intervalMs: 250, describe: () => oursLog(hungAt).map((l) => l.msg) })
    await sleepUntil(hungAt + API_HANG_MS)
    const theirsDuring = theirsSince(hungAt)
    const during = await both()
    const oursDuring = oursLog(hungAt).filter((l) => l.level !== 'debug')
    plane.pauseApiServer(false)
    const resumedAt = Date.now()
    // A pod created once the server answers again: both must deliver it, on the connection they had.
    await cluster.apply([barePod('after-hang')])
    const { ours, theirs, oursMs, theirsMs } = await settle(resumedAt, ['after-hang'])
    const silentAfter = await oursPeerSilent()
    report.push({
      fault: 'API server hung (SIGSTOP)',
      hungMs: resumedAt - hungAt,
      oursNoticedMs: Object.fromEntries([...torn].map(([s, t]) => [s, t - hungAt])),
      oursPeerSilent: { before: silentBefore, after: silentAfter },
      oursLinesDuring: oursDuring.map((l) => `+${l.at - hungAt} ms ${l.level} ${l.msg}`).slice(0, 20),
      theirsLinesDuring: theirsDuring.map((l) => `+${l.at - hungAt} ms ${l.line}`).slice(0, 20),
      podsHeldDuring: during,
      afterResume: { oursConvergedMs: oursMs, theirsConvergedMs: theirsMs, before, ours: { id: ours.id, epochs: ours.epochs }, theirs: { id: theirs.id, epochs: theirs.epochs } },
      sentAfter: { ours: await sentAfter(ours.id, mark), theirs: await sentAfter(theirs.id, mark) },
      theirsLinesAfter: theirsSince(resumedAt).map((l) => `+${l.at - resumedAt} ms ${l.line}`).slice(0, 20),
    })
    // Ours (behaviour.md §12): every stream torn down within 30 s of the hang (+ a second of scheduling), counted.
    for (const [stream, t] of torn) assert.ok(t - hungAt <= 31_000, `ours: ${stream} torn down ${t - hungAt} ms after the hang`)
    assert.ok(silentAfter.watch.every((n, i) => n > silentBefore.watch[i]!), 'ours: peer_silent counted on every stream')
    // Both kept their reducer connection and epoch; nothing was relisted into a new epoch.
    assert.equal(ours.id, before.ours?.id)
    assert.deepEqual(ours.epochs.map(Number), before.ours?.epochs)
    assert.equal(theirs.id, before.theirs?.id)
    assert.deepEqual(theirs.epochs.map(Number), before.theirs?.epochs)
    // Theirs (kube-client's 295 s read timeout): nothing noticed while hung, not a line.
    assert.deepEqual(theirsDuring.filter((l) => /WARN|ERROR/.test(l.line)), [], 'theirs logged nothing while the API server hung')
  }), 240_000)

  it('2. a dead reducer (frozen for good, no FIN/RST): ours reconnects within 27 s; theirs only once the connection is reset', withLog(async () => {
    const before = await both()
    const frozen = await Promise.all([toTapOurs.freeze(), toTapTheirs.freeze()])
    const frozenAt = Date.now()
    // One change after the freeze fills the frozen windows at once (a dead host takes no byte).
    await cluster.apply([widePod('during-freeze')])
    await running('during-freeze')
    const runningMs = Date.now() - frozenAt
    const ours = await oursSettled(60_000, before.ours?.id)
    const oursMs = Date.now() - frozenAt
    const oursEnded = oursLog(frozenAt).find((l) => l.msg.startsWith('reducer session ended'))
    const lastAckMs = oursEnded && oursEnded.at - frozenAt - 1000 * Number(/acknowledged nothing for ([\d.]+) s/.exec(oursEnded.msg)?.[1])
    // The tap, a live reducer, drops each frozen connection after 30 s of silence (protocol.md §1.4);
    // ours has moved on by then; theirs does not notice: it holds nothing on the reducer now.
    const tapClosed = await waitFor("the tap to close theirs's frozen connection", async () => {
      const c = (await cluster.tapState()).connections.find((x) => x.id === before.theirs?.id)
      return c && !c.open ? c : undefined
    }, { timeoutMs: 60_000, intervalMs: 250 })
    const afterTapClosed = await both()
    const theirsQuiet = theirsSince(frozenAt)
    // Then the frozen connections are reset (a peer that rebooted, a firewall that forgot them).
    const cut = await Promise.all([toTapOurs.cut(), toTapTheirs.cut()])
    const cutAt = Date.now()
    const { ours: oursAfter, theirs, theirsMs } = await settle(cutAt, ['during-freeze'], 60_000, { theirs: before.theirs?.id })
    report.push({
      fault: 'dead reducer (frozen for good)',
      frozen,
      widePodRunningMs: runningMs,
      ours: { endedMs: rel(oursEnded?.at, frozenAt), lastAcknowledgedMs: lastAckMs, line: oursEnded?.msg, newConnectionOpenedMs: Date.parse(ours.openedAt) - frozenAt, newConnectionCompleteMs: oursMs, before: before.ours, after: { id: ours.id, epochs: ours.epochs, pods: ours.pods.length } },
      tapClosedTheirsMs: Date.parse(tapClosed.closedAt!) - frozenAt,
      tapCloseReason: tapClosed.closeReason,
      heldWhenTapClosed: afterTapClosed,
      theirsLinesBeforeCut: theirsQuiet.map((l) => `+${l.at - frozenAt} ms ${l.line}`),
      cut,
      cutMsAfterFreeze: cutAt - frozenAt,
      theirs: { completeMsAfterCut: theirsMs, before: before.theirs, after: { id: theirs.id, epochs: theirs.epochs, pods: theirs.pods.length }, lines: theirsSince(cutAt).map((l) => `+${l.at - cutAt} ms ${l.line}`).slice(0, 10) },
    })
    // Ours (behaviour.md §12): peer_silent within limit + limit/4 + heartbeat = 27 s (+1 s of
    // scheduling), then a new connection with the next epoch and the complete set.
    assert.ok(oursEnded, 'ours logged the end of the session')
    assert.match(oursEnded.msg, /\(peer_silent\)/)
    // The window closed once the wide pod was announced (it runs `runningMs` after the freeze).
    assert.ok(oursEnded.at - frozenAt <= runningMs + 28_000, `ours noticed ${oursEnded.at - frozenAt} ms after the freeze, ${runningMs} ms after the wide pod ran`)
    assert.deepEqual(ours.epochs.map(Number), [Number(before.ours?.epochs.at(-1)) + 1])
    assert.equal(oursAfter.id, ours.id, 'the cut changed nothing for ours')
    // Theirs: no line, no new connection until the reset; nothing held once the tap dropped it.
    assert.equal(afterTapClosed.theirs, undefined, 'theirs: no open connection once the tap dropped the frozen one')
    assert.deepEqual(theirsQuiet.filter((l) => /WARN|ERROR|connect/.test(l.line)), [], 'theirs logged nothing before the reset')
    // After the reset: a new connection, a new epoch, every pod.
    assert.ok(theirs.epochs.length >= 1 && Number(theirs.epochs[0]) > Number(before.theirs?.epochs.at(-1)), 'theirs: a new epoch on the new connection')
  }), 240_000)

  const apiRestart = (graceful: boolean) => async () => {
    const before = await both()
    const mark = await lastSeq()
    const podsBefore = (await oursSettled(10_000)).pods.length
    const downAt = Date.now()
    let during: Awaited<ReturnType<typeof both>> | undefined
    await plane.restartApiServer(async () => void (during = await both()), { graceful })
    const readyAt = Date.now()
    const newcomer = graceful ? 'after-term' : 'after-kill'
    await cluster.apply([barePod(newcomer)])
    const { ours, theirs, oursMs, theirsMs } = await settle(downAt, [newcomer], 120_000)
    const oursLines = oursLog(downAt).filter((l) => l.level !== 'debug')
    const theirsLines = theirsSince(downAt).filter((l) => l.at <= Date.now())
    const sent = { ours: await sentAfter(ours.id, mark), theirs: await sentAfter(theirs.id, mark) }
    report.push({
      fault: graceful ? 'API server restart (SIGTERM)' : 'API server restart (SIGKILL)',
      downMs: readyAt - downAt,
      podsBefore,
      heldWhileDown: during,
      convergedMs: { ours: oursMs, theirs: theirsMs },
      ours: { before: before.ours, after: { id: ours.id, epochs: ours.epochs }, lines: oursLines.length, sample: oursLines.slice(0, 12).map((l) => `+${l.at - downAt} ms ${l.level} ${l.msg}`) },
      theirs: {
        before: before.theirs, after: { id: theirs.id, epochs: theirs.epochs },
        lines: theirsLines.length, linesWhileDown: theirsLines.filter((l) => l.at <= readyAt).length,
        firstLineMs: rel(theirsLines[0]?.at, downAt),
        sample: theirsLines.slice(0, 4).map((l) => `+${l.at - downAt} ms ${l.line}`),
        notable: theirsLines.filter((l) => /410|Gone|too old|Expired|403|Forbidden|InitDone|resync/i.test(l.line)).slice(0, 6).map((l) => `+${l.at - downAt} ms ${l.line}`),
        lastLines: theirsLines.slice(-3).map((l) => `+${l.at - downAt} ms ${l.line}`),
      },
      sent,
    })
    // Both kept their reducer connection (the reducer held every pod throughout).
    assert.equal(during?.ours?.id, before.ours?.id)
    assert.equal(during?.ours?.pods, before.ours?.pods)
    assert.equal(ours.id, before.ours?.id)
    assert.equal(theirs.id, before.theirs?.id)
    // Ours: no new epoch, no announcement repeated: the new pod only (behaviour.md §6, §8).
    assert.deepEqual(ours.epochs.map(Number), before.ours?.epochs)
    assert.equal(sent.ours.pod_resync, undefined)
    assert.equal(sent.ours.pod_new_with_name, 1)
    // Theirs (two runs agree): its watch from an older resourceVersion is answered 410, and a relist
    // is a new epoch on the same connection, every pod announced again; while the server is down it
    // retries without a pause (hundreds of lines a second).
    assert.equal(sent.theirs.pod_resync, 1)
    assert.ok((sent.theirs.pod_new_with_name ?? 0) >= podsBefore + 1, 'theirs: every pod announced again')
    assert.deepEqual(theirs.epochs.map(Number), [...(before.theirs?.epochs ?? []), Number(before.theirs?.epochs.at(-1)) + 1])
    assert.ok(theirsLines.filter((l) => l.at <= readyAt).length > 100, 'theirs: a retry loop while the server is down')
  }

  it('3a. an API server restart (SIGKILL): what the reducer holds, epochs, repeats, time to converge', withLog(apiRestart(false)), 240_000)
  it('3b. an API server restart (SIGTERM, graceful)', withLog(apiRestart(true)), 240_000)

  it('4. a reducer that stops reading for 15 s: both buffer and deliver on the same connection', withLog(async () => {
    const before = await both()
    const mark = await lastSeq()
    const memBefore = memory()
    const stalled = await Promise.all([toTapOurs.stall(), toTapTheirs.stall()])
    const stalledAt = Date.now()
    // The wide pod fills both stalled windows: what follows waits in each collector's kernel.
    await cluster.apply([widePod('during-stall'), barePod('during-stall-2')])
    await waitFor('both to have bytes waiting in the kernel', () => (unackedTo(toTapOurs.port) > 0 && unackedTo(toTapTheirs.port) > 0 ? true : undefined), { timeoutMs: REDUCER_STALL_MS - 1_000, intervalMs: 250 })
    await sleepUntil(stalledAt + REDUCER_STALL_MS - 500)
    const waiting = { ours: unackedTo(toTapOurs.port), theirs: unackedTo(toTapTheirs.port) }
    const memDuring = memory()
    await sleepUntil(stalledAt + REDUCER_STALL_MS)
    await Promise.all([toTapOurs.resume(), toTapTheirs.resume()])
    const resumedAt = Date.now()
    const { ours, theirs, oursMs, theirsMs } = await settle(resumedAt, ['during-stall', 'during-stall-2'], 60_000)
    report.push({
      fault: `reducer stall (${REDUCER_STALL_MS / 1000} s)`,
      stalled,
      unackedAtStallEnd: waiting,
      memoryKiB: { before: memBefore, atStallEnd: memDuring, after: memory() },
      convergedMsAfterResume: { ours: oursMs, theirs: theirsMs },
      ours: { before: before.ours, after: { id: ours.id, epochs: ours.epochs } },
      theirs: { before: before.theirs, after: { id: theirs.id, epochs: theirs.epochs } },
      sent: { ours: await sentAfter(ours.id, mark), theirs: await sentAfter(theirs.id, mark) },
      linesDuring: { ours: oursLog(stalledAt).filter((l) => l.level !== 'debug').map((l) => l.msg), theirs: theirsSince(stalledAt).map((l) => l.line) },
    })
    assert.ok(waiting.ours > 0, 'ours had bytes waiting at the end of the stall')
    assert.ok(waiting.theirs > 0, 'theirs had bytes waiting at the end of the stall')
    // Under every limit: the same connection, the same epoch, for both.
    assert.equal(ours.id, before.ours?.id)
    assert.deepEqual(ours.epochs.map(Number), before.ours?.epochs)
    assert.equal(theirs.id, before.theirs?.id)
    assert.deepEqual(theirs.epochs.map(Number), before.theirs?.epochs)
  }), 180_000)
})
