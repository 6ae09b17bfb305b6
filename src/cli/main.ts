// The `k8s-collector` command line: one citty command per file in this folder, help from their option tables.
import { runProgram, type Program } from './program.ts'
import { VERSION } from './version.ts'
import run from './run.ts'
import { RUN_OPTIONS } from './run-options.ts'
import tap from './tap.ts'
import { TAP_OPTIONS } from './tap-options.ts'

const program: Program = {
  name: 'k8s-collector',
  version: VERSION,
  description: 'Kubernetes metadata collector for the OpenTelemetry eBPF network reducer',
  commands: {
    run: { command: run, options: RUN_OPTIONS },
    tap: { command: tap, options: TAP_OPTIONS },
  },
}

runProgram(program, process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    if (code !== undefined) process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`${program.name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  },
)
