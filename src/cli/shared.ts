// Pieces shared by the commands: their inputs from the process, usage errors, signal handling.
import { existsSync, readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { ConfigError, type OptionInputs } from './options.ts'

/** A command's option inputs: its argv and citty's parse of it, this process's environment and terminal. */
export function processInputs(argv: readonly string[], parsed: Readonly<Record<string, unknown>>): OptionInputs {
  return {
    argv,
    parsed,
    context: {
      env: process.env,
      osHostname: hostname(),
      stdoutIsTty: process.stdout.isTTY === true,
      stderrIsTty: process.stderr.isTTY === true,
      fileExists: existsSync,
      readTextFile(path) {
        try {
          return readFileSync(path, 'utf8')
        } catch {
          return undefined // a default computed from it falls back (e.g. no service account mounted)
        }
      },
    },
  }
}

/** Prints a {@link ConfigError} one line per bad input and sets exit code 2; rethrows anything else. */
export function reportUsageError(command: string, err: unknown): void {
  if (!(err instanceof ConfigError)) throw err
  for (const line of err.message.split('\n')) process.stderr.write(`k8s-collector ${command}: ${line}\n`)
  process.exitCode = 2
}

/**
 * Resolves on the first SIGINT/SIGTERM with its name; a second one exits at once (130/143). One
 * listener per signal for the whole run: Deno also delivers the current signal to listeners added
 * while it is being dispatched, so arming a "second signal" listener inside the first would fire at once.
 */
export function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    let received = 0
    const onSignal = (signal: NodeJS.Signals): void => {
      if (++received > 1) process.exit(signal === 'SIGINT' ? 130 : 143)
      resolve(signal)
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
}
