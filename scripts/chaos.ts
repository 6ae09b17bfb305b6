// `npm run chaos -- [--minutes N] [--seed S] [--pods N] [--runtime node|deno] [--replicas N]
// [--out FILE] [--logs DIR]`: the seeded chaos soak (e2e/chaos/README.md); prints the
// figures and writes them to bench/results/<date>-chaos.json. Exit 1 when the verdict is a failure.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { computeFigures } from '../e2e/chaos/figures.ts'
import { formatFigures } from '../e2e/chaos/report.ts'
import { runSoak } from '../e2e/chaos/soak.ts'

const USAGE = 'usage: npm run chaos -- [--minutes N] [--seed S] [--pods N] [--runtime node|deno] [--replicas N] [--out FILE] [--logs DIR]'

function main(): Promise<number> | number {
  let values
  try {
    ;({ values } = parseArgs({
      options: {
        minutes: { type: 'string', default: '30' },
        seed: { type: 'string', default: String(Date.now() % 100_000) },
        pods: { type: 'string', default: '10000' },
        runtime: { type: 'string', default: 'node' },
        replicas: { type: 'string', default: '1' },
        out: { type: 'string' },
        logs: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }))
  } catch (err) {
    console.error(`chaos: ${(err as Error).message}\n${USAGE}`)
    return 2
  }
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  const whole = (name: string, text: string, min: number): number => {
    const n = Number(text)
    if (!Number.isInteger(n) || n < min) throw new RangeError(`--${name}=${text}: a whole number ≥ ${min}`)
    return n
  }
  let opts
  try {
    const minutes = Number(values.minutes)
    if (!(minutes > 0)) throw new RangeError(`--minutes=${values.minutes}: a positive number`)
    if (!['node', 'deno', 'sea'].includes(values.runtime)) throw new RangeError(`--runtime=${values.runtime}: node, deno or sea`)
    opts = { minutes, seed: whole('seed', values.seed, 0), pods: whole('pods', values.pods, 10), runtime: values.runtime, replicas: whole('replicas', values.replicas, 1), ...(values.logs ? { logDir: values.logs } : {}) }
  } catch (err) {
    console.error(`chaos: ${(err as Error).message}\n${USAGE}`)
    return 2
  }
  if (opts.logDir) mkdirSync(opts.logDir, { recursive: true })
  return (async () => {
    const started = Date.now()
    const record = await runSoak({ ...opts, log: (line) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${line}`) })
    const figures = computeFigures(record)
    console.log(`\n${formatFigures(figures)}`)
    const root = join(dirname(fileURLToPath(import.meta.url)), '..')
    const out = values.out ?? join(root, 'bench', 'results', `${figures.date.slice(0, 10)}-chaos.json`)
    mkdirSync(dirname(out), { recursive: true })
    writeFileSync(out, JSON.stringify(figures, null, 2) + '\n')
    console.log(`written to ${out}`)
    return figures.verdict.passed ? 0 : 1
  })()
}

process.exitCode = await main()
