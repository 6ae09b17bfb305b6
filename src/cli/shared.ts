// Pieces shared by the commands: strict option checking and signal handling.
import { ConfigError } from '../collector/config.ts'

const camel = (s: string): string => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** Throws {@link ConfigError} for an option or positional argument the command does not define. */
export function rejectUnknownArgs(parsed: Record<string, unknown>, defined: Record<string, unknown>): void {
  const known = new Set(['_', ...Object.keys(defined).flatMap((k) => [k, camel(k)])])
  for (const key of Object.keys(parsed)) if (!known.has(key)) throw new ConfigError(`unknown option --${key}`)
  const positional = parsed._ as string[] | undefined
  if (positional && positional.length > 0) throw new ConfigError(`unexpected argument ${JSON.stringify(positional[0])}`)
}

/** Every value of a repeatable option (`--label a=b --label=c=d`), in order, from the raw argv. */
export function repeatedOption(rawArgs: readonly string[], name: string): string[] {
  const values: string[] = []
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!
    if (a === '--') break
    if (a === `--${name}`) {
      const v = rawArgs[i + 1]
      if (v === undefined || v.startsWith('--')) throw new ConfigError(`--${name} needs a value`)
      values.push(v)
      i++
    } else if (a.startsWith(`--${name}=`)) {
      values.push(a.slice(name.length + 3))
    }
  }
  return values
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
