// Option tables: one row per option (flag, environment variable, default, value type, help) feeds
// the citty arguments, the resolution (flags > environment > defaults), the help and the README.
import type { ArgsDef } from 'citty'

/** Bad user input: one line per bad input (`--intake-port="0" is out of range (1–65535)`); exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Where a value came from: a flag (`--intake-port`) or an environment variable. */
export interface Origin {
  readonly kind: 'flag' | 'env'
  readonly name: string
}

/** A kind of value: how its text is parsed and validated, and how help and README describe it. */
export interface ValueType<T> {
  /** Placeholder after the flag in help (`PORT`, `SECONDS`, `HOST:PORT`); '' for a switch. */
  readonly hint: string
  /** What it accepts, with unit and range, for the README (`seconds, 1–25`). */
  readonly accepts: string
  /** The words it accepts, when it is a choice (help lists them). */
  readonly choices?: readonly string[]
  /** A switch: `--x`, `--no-x` as flags; `true`/`false` in the environment. */
  readonly switch?: true
  /** Each occurrence of the flag adds to the list (`--label a=1 --label b=2`). */
  readonly repeatable?: true
  /** Parses a flag's or variable's text; throws {@link ConfigError} saying what is wrong ("is not a whole number"). */
  parse(text: string, from: Origin): T
}

/** The machine facts a default may depend on. */
export interface DefaultContext {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly osHostname: string
  readonly stdoutIsTty: boolean
  readonly stderrIsTty: boolean
  fileExists(path: string): boolean
  /** The file's text, or undefined when it cannot be read. */
  readTextFile(path: string): string | undefined
}

/** A default that depends on the machine; `text` says which way for help and README. */
export interface Computed<T> {
  readonly text: string
  compute(ctx: DefaultContext): T
}

/** One option: a flag, an environment variable or both. */
export interface Option<T> {
  /** Flag name without dashes (`intake-port`); absent for environment-only settings. */
  readonly flag?: string
  readonly env?: string
  readonly type: ValueType<T>
  /** The default as one would type it (parsed like input; '' reads as none), or computed on the machine. */
  readonly default: string | Computed<T>
  /** What `--no-<flag>` stands for (tap: `--no-http` is `--http none`). */
  readonly negated?: string
  /** One line; `code` in backticks (kept in the README, dropped in help). */
  readonly help: string
}

/** Options by config key (`intakePort`), in help and README order. */
export type OptionTable = Readonly<Record<string, Option<unknown>>>

/** The resolved values of a table, typed per row. */
export type Values<T extends OptionTable> = { readonly [K in keyof T]: T[K] extends Option<infer V> ? V : never }

/** A rule across options (`duration > renew deadline`): returns a problem, naming the inputs with `show(key)`. */
export type Check<T extends OptionTable> = (values: Values<T>, show: (key: keyof T & string) => string) => string | undefined

export const computed = <T>(text: string, compute: (ctx: DefaultContext) => T): Computed<T> => ({ text, compute })

/** The citty arguments of a table (defaults are not citty's: the resolution applies them). */
export function cittyArgs(table: OptionTable): ArgsDef {
  const args: ArgsDef = {}
  for (const o of Object.values(table)) {
    if (!o.flag) continue
    const description = plainText(o.help)
    args[o.flag] = o.type.switch ? { type: 'boolean', description } : { type: 'string', description, valueHint: o.type.hint }
  }
  return args
}

/** Help text without the README's backticks. */
export const plainText = (help: string): string => help.replaceAll('`', '')

/** How help and README show a default. */
export const defaultText = (o: Option<unknown>): string => (typeof o.default === 'string' ? o.default || 'none' : o.default.text)

/** The raw inputs of one command. */
export interface OptionInputs {
  /** The arguments after the command name, as typed. */
  readonly argv: readonly string[]
  /** citty's parse of `argv`. */
  readonly parsed: Readonly<Record<string, unknown>>
  readonly context: DefaultContext
}

const camel = (s: string): string => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/**
 * Resolves every option of `table` (flag, else environment variable, else default), then the
 * cross-option `checks`. Throws one {@link ConfigError} listing every bad input, one per line.
 */
export function resolveOptions<T extends OptionTable>(table: T, inputs: OptionInputs, checks: readonly Check<T>[] = []): Values<T> {
  const problems = unknownArgs(table, inputs)
  const values: Record<string, unknown> = {}
  const shown: Record<string, string> = {}
  for (const [key, o] of Object.entries(table)) {
    const r = resolveOne(o, inputs)
    if (!r.ok) problems.push(...r.problems)
    else {
      values[key] = r.value
      shown[key] = r.shown
    }
  }
  if (problems.length === 0) {
    for (const check of checks) {
      const problem = check(values as Values<T>, (key) => shown[key]!)
      if (problem) problems.push(problem)
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'))
  return values as Values<T>
}

/** One option's value and how to name it in a cross-option problem (`--x=5`, `--x (default 15)`), or its problems. */
type Resolved = { readonly ok: true; readonly value: unknown; readonly shown: string } | { readonly ok: false; readonly problems: readonly string[] }

function resolveOne(o: Option<unknown>, inputs: OptionInputs): Resolved {
  const given = givenInput(o, inputs)
  switch (given.kind) {
    case 'problem':
      return { ok: false, problems: [given.problem] }
    case 'switch':
      return { ok: true, value: given.value, shown: `${given.from.name}=${given.value}` }
    case 'none':
      return { ok: true, value: defaultValue(o, inputs.context), shown: `${o.flag ? `--${o.flag}` : o.env} (default ${defaultText(o)})` }
    case 'texts': {
      const items: unknown[] = []
      const problems: string[] = []
      for (const [text, from] of given.texts) {
        try {
          items.push(o.type.parse(text, from))
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err
          problems.push(`${from.name}=${JSON.stringify(text)} ${err.message}`)
        }
      }
      if (problems.length > 0) return { ok: false, problems }
      const shown = given.texts.map(([text, from]) => `${from.name}=${text}`).join(' ')
      return { ok: true, value: o.type.repeatable ? items.flat() : items[0], shown }
    }
  }
}

/** A table's default for `o` (a programming error, not a user's, when it does not parse). */
function defaultValue<T>(o: Option<T>, ctx: DefaultContext): T {
  if (typeof o.default !== 'string') return o.default.compute(ctx)
  const origin: Origin = { kind: 'flag', name: `default of ${o.flag ?? o.env}` }
  return o.type.repeatable && o.default === '' ? ([] as T) : o.type.parse(o.default, origin)
}

/** What the user gave for one option. */
type Given =
  | { readonly kind: 'none' }
  /** Texts to parse, in order (several for a repeatable flag). */
  | { readonly kind: 'texts'; readonly texts: ReadonlyArray<readonly [string, Origin]> }
  /** A switch given as a flag, as citty parsed it. */
  | { readonly kind: 'switch'; readonly value: boolean; readonly from: Origin }
  | { readonly kind: 'problem'; readonly problem: string }

/** The flag's text(s) if given, else the variable's. */
function givenInput(o: Option<unknown>, inputs: OptionInputs): Given {
  if (o.flag) {
    const flag: Origin = { kind: 'flag', name: `--${o.flag}` }
    const v = inputs.parsed[o.flag]
    if (o.type.repeatable) {
      const texts = repeatedValues(inputs.argv, o.flag)
      if (texts.some((t) => t === '' || t.startsWith('--'))) return { kind: 'problem', problem: `${flag.name} needs a value` }
      if (texts.length > 0) return { kind: 'texts', texts: texts.map((t) => [t, flag] as const) }
    } else if (o.type.switch && typeof v === 'boolean') {
      return { kind: 'switch', value: v, from: flag }
    } else if (v === false) {
      if (o.negated === undefined) return { kind: 'problem', problem: `unknown option --no-${o.flag}` }
      return { kind: 'texts', texts: [[o.negated, { kind: 'flag', name: `--no-${o.flag}` }]] }
    } else if (typeof v === 'string') {
      // citty reads `--port --host x` as port "--host"; no value of ours starts with "--".
      if (v === '' || v.startsWith('--')) return { kind: 'problem', problem: `${flag.name} needs a value` }
      return { kind: 'texts', texts: [[v, flag]] }
    }
  }
  const e = o.env ? inputs.context.env[o.env] : undefined
  if (e !== undefined && e !== '') return { kind: 'texts', texts: [[e, { kind: 'env', name: o.env! }]] }
  return { kind: 'none' }
}

/** Every value of a repeatable flag (`--label a=b --label=c=d`), in order, from the raw argv. */
function repeatedValues(argv: readonly string[], flag: string): string[] {
  const values: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--') break
    if (a === `--${flag}`) values.push(argv[++i] ?? '')
    else if (a.startsWith(`--${flag}=`)) values.push(a.slice(flag.length + 3))
  }
  return values
}

/** One problem per option the table does not define and per positional argument (not counting an unknown option's value). */
function unknownArgs(table: OptionTable, inputs: OptionInputs): string[] {
  const known = new Set(['_'])
  for (const o of Object.values(table)) if (o.flag) known.add(o.flag).add(camel(o.flag))
  const problems: string[] = []
  const positional = [...((inputs.parsed._ as readonly string[] | undefined) ?? [])]
  for (const key of Object.keys(inputs.parsed)) {
    if (known.has(key)) continue
    const at = inputs.argv.findIndex((a) => a === `-${key}` || a === `--${key}` || a.startsWith(`--${key}=`) || a === `--no-${key}`)
    problems.push(`unknown option ${inputs.argv[at]?.split('=')[0] ?? `--${key}`}`)
    // `--lisen 1:2`: citty took "1:2" for a positional argument; it is the unknown option's value.
    const next = inputs.argv[at + 1]
    if (at >= 0 && !inputs.argv[at]!.includes('=') && next !== undefined && positional.includes(next)) positional.splice(positional.indexOf(next), 1)
  }
  for (const p of positional) problems.push(`unexpected argument ${JSON.stringify(p)}`)
  return problems
}
