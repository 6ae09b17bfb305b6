// The chaos soak (issue 18): cycles of a seeded storm — overlapping faults on the API server, the
// reducer and the collector process while the workload churns — each ended by a quiescent
// checkpoint; everything observed goes into a SoakRecord that figures.ts turns into figures.
import { checkpoint } from './checkpoint.ts'
import { FAULT_KINDS, pause, type FaultScope } from './faults.ts'
import type { SoakRecord } from './figures.ts'
import { createSchedule } from './schedule.ts'
import { startStage, type Stage } from './stage.ts'
import { createChurn } from './workload.ts'

export interface SoakOptions {
  /** Cycles start until this many minutes have passed since the first checkpoint. */
  readonly minutes: number
  readonly seed: number
  readonly pods: number
  readonly runtime: string
  /** Collector processes; more than one runs them with `--leader-elect`. */
  readonly replicas: number
  readonly log: (line: string) => void
  /** Where each replica's whole log goes (`<name>.log`); only the tails are kept without it. */
  readonly logDir?: string
}

/** Runs the soak and returns what it observed. Throws only when the stage cannot be set up. */
export async function runSoak(opts: SoakOptions): Promise<SoakRecord> {
  const scope: FaultScope = { replicas: opts.replicas }
  const record: SoakRecord = {
    options: { minutes: opts.minutes, seed: opts.seed, pods: opts.pods, runtime: opts.runtime, replicas: opts.replicas },
    startedAt: Date.now(),
    endedAt: 0,
    setupMs: 0,
    injected: [],
    checkpoints: [],
    churn: {},
    replicas: [],
    crashes: [],
    shutdown: [],
    faultErrors: [],
  }
  let closing = false
  let stage: Stage | undefined
  stage = await startStage({
    pods: opts.pods,
    runtime: opts.runtime,
    replicas: opts.replicas,
    leaderElect: opts.replicas > 1,
    log: opts.log,
    ...(opts.logDir ? { logDir: opts.logDir } : {}),
    onCrash(name, life, tail) {
      record.crashes.push({ replica: name, at: life.endedAt ?? Date.now(), code: life.exit?.code ?? null, signal: life.exit?.signal ?? null, logTail: tail })
      opts.log(`CRASH: ${name} exited (${life.exit?.code ?? life.exit?.signal}); restarting it as an orchestrator would`)
      const r = stage?.replicas.find((x) => x.name === name)
      if (r) setTimeout(() => void (closing || r.running ? undefined : r.start()), 1_000)
    },
  })
  const sampler = setInterval(() => void Promise.all(stage!.replicas.map((r) => r.sample())), 5_000)
  const pollMs = opts.pods >= 5_000 ? 1_000 : 300
  const timeoutMs = 120_000 + opts.pods * 6
  try {
    record.setupMs = Date.now() - record.startedAt
    const sync = await checkpoint(stage, Date.now(), 2 * timeoutMs, pollMs)
    record.checkpoints.push({ cycle: 0, kinds: [], healedAt: Date.now() - sync.ms, ...sync })
    opts.log(`initial sync: ${sync.passed ? `${sync.pods} pods in ${(sync.ms / 1000).toFixed(1)} s` : `FAILED\n${sync.failure}`}`)

    const schedule = createSchedule(FAULT_KINDS, { seed: opts.seed, scope, stormMs: [30_000, 60_000], faultsPerStorm: [2, 4] })
    const churn = createChurn(stage.sim, stage.plan)
    const soakStart = Date.now()
    for (let cycle = 1; Date.now() - soakStart < opts.minutes * 60_000; cycle++) {
      const plan = schedule(cycle)
      const storm = new AbortController()
      const startedAt = Date.now()
      const kinds: string[] = []
      const running = plan.faults.map(async (f) => {
        await pause(f.atMs, storm.signal)
        const injected: SoakRecord['injected'][number] = { cycle, kind: f.kind.name, side: f.kind.side, at: Date.now(), params: f.params }
        record.injected.push(injected)
        kinds.push(f.kind.name)
        opts.log(`cycle ${cycle} +${((Date.now() - startedAt) / 1000).toFixed(1)} s: ${f.kind.name} ${JSON.stringify(f.params)}`)
        await f.kind.run(stage!, f.params, storm.signal).catch((err: unknown) => record.faultErrors.push(`${f.kind.name}: ${(err as Error).message}`))
        injected.endedAt = Date.now()
      })
      const churning = (async () => {
        while (!storm.signal.aborted) {
          try {
            const action = churn(plan.churn)
            record.churn[action] = (record.churn[action] ?? 0) + 1
          } catch (err) {
            record.faultErrors.push(`churn: ${(err as Error).message}`)
          }
          await pause(plan.churn.int(300, 2_500), storm.signal)
        }
      })()
      await pause(plan.stormMs, new AbortController().signal)
      storm.abort()
      await churning
      await Promise.all(running)

      await healAll(stage)
      const healedAt = Date.now()
      const outcome = await checkpoint(stage, healedAt, timeoutMs, pollMs)
      record.checkpoints.push({ cycle, kinds, healedAt, ...outcome })
      const conn = outcome.connection
      opts.log(
        `checkpoint ${cycle} after ${kinds.join(', ')}: ` +
          (outcome.passed ? `passed in ${(outcome.ms / 1000).toFixed(1)} s (${outcome.pods} pods, ${conn!.replica} #${conn!.id}, epochs ${conn!.epochs.join(',')})${outcome.waitedOn ? `; waited last on: ${outcome.waitedOn}` : ''}` : `FAILED after ${(outcome.ms / 1000).toFixed(1)} s\n${outcome.failure}`),
      )
      if (!outcome.passed) for (const r of stage.replicas) opts.log(`${r.name} log tail:\n${r.logTail()}`)
    }
  } finally {
    clearInterval(sampler)
    closing = true
    for (const r of stage.replicas) {
      const exit = await r.stop()
      if (exit) record.shutdown.push({ replica: r.name, code: exit.code, signal: exit.signal })
    }
    record.endedAt = Date.now()
    for (const r of stage.replicas) record.replicas.push({ name: r.name, lives: [...r.lives], logLines: { ...r.logLines }, silentTeardowns: [...r.silentTeardowns] })
    await stage.close()
  }
  return record
}

/** Every fault off: simulator healed, API paths and the reducer path passing, tap and replicas up. */
async function healAll(stage: Stage): Promise<void> {
  stage.owners.clear()
  stage.sim.faults.heal()
  for (const p of stage.apiPaths) await p.setMode('pass')
  await stage.reducerPath.set('pass')
  await stage.ensureRunning()
}
