// Help text from the option tables: plain text (bold headings only on a terminal), one line per
// option ending `[env: NAME, default: VALUE]`, no trailing spaces.
import { defaultText, plainText, type Option, type OptionTable } from './options.ts'

/** What the help of a command or of the whole program shows. */
export interface HelpPage {
  /** `k8s-collector run`. */
  readonly usage: string
  readonly description: string
  readonly options?: OptionTable
  readonly commands?: ReadonlyArray<readonly [name: string, description: string]>
  /** Bold headings (a terminal without NO_COLOR). */
  readonly color: boolean
}

const BUILTIN_ROWS: ReadonlyArray<readonly [string, string]> = [
  ['-h, --help', 'show this help'],
  ['-v, --version', 'print the version'],
]

/** The help page, ending with a newline. */
export function renderHelp(page: HelpPage): string {
  const heading = (s: string): string => (page.color ? `\x1b[1m${s}\x1b[22m` : s)
  const out = [`${page.usage}: ${page.description}`, '']
  const flagRows = Object.values(page.options ?? {}).filter((o) => o.flag)
  const envRows = Object.values(page.options ?? {}).filter((o) => !o.flag && o.env)
  out.push(`${heading('Usage:')} ${page.usage}${page.commands ? ' <command>' : ''} [options]`, '')
  if (page.commands) out.push(heading('Commands:'), ...columns(page.commands), '')
  out.push(heading('Options:'), ...columns([...flagRows.map((o) => [flagColumn(o), describe(o)] as const), ...BUILTIN_ROWS]), '')
  if (envRows.length > 0) out.push(heading('Environment only:'), ...columns(envRows.map((o) => [`${o.env}=${o.type.hint}`, describe(o)] as const)), '')
  if (page.commands) out.push(`A command's options: ${page.usage} <command> --help`)
  return out.join('\n').trimEnd() + '\n'
}

/** `--intake-port PORT`, `--[no-]print` (a switch that can be on by default), `--print-config`. */
function flagColumn(o: Option<unknown>): string {
  if (o.type.switch) return o.default === 'false' ? `--${o.flag}` : `--[no-]${o.flag}`
  return `--${o.flag} ${o.type.hint}${o.negated !== undefined ? `, --no-${o.flag}` : ''}`
}

function describe(o: Option<unknown>): string {
  const env = o.env && o.flag ? `env: ${o.env}, ` : ''
  const { choices, repeatable } = o.type
  const choice = choices && o.type.hint !== choices.join('|') ? ` (${choices.join(', ')})` : ''
  return `${plainText(o.help)}${choice}${repeatable ? ' (repeatable)' : ''} [${env}default: ${plainText(defaultText(o))}]`
}

/** Two aligned columns, two spaces apart, indented by two. */
function columns(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length))
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd())
}
