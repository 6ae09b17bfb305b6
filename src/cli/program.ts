// The program's root: help (`help`, `--help`, `<command> --help`), `--version`, and usage errors
// that name what was wrong (exit 2); everything else runs a citty command.
import { runCommand, type ArgsDef, type CommandDef, type CommandMeta } from 'citty'
import { renderHelp } from './help.ts'
import type { OptionTable } from './options.ts'

/** A subcommand: its citty command (args made from `options`, a plain `meta`) and its option table for help. */
export interface ProgramCommand {
  readonly command: CommandDef<ArgsDef>
  readonly options: OptionTable
}

export interface Program {
  readonly name: string
  readonly version: string
  readonly description: string
  readonly commands: Readonly<Record<string, ProgramCommand>>
}

/** Output streams (the process's own in production). */
export interface ProgramIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean }
  readonly stderr: NodeJS.WritableStream
  readonly env: Readonly<Record<string, string | undefined>>
}

const descriptionOf = (c: ProgramCommand): string => (c.command.meta as CommandMeta | undefined)?.description ?? ''
const isHelp = (a: string): boolean => a === '--help' || a === '-h'
const isVersion = (a: string): boolean => a === '--version' || a === '-v'

/**
 * Runs the program with `argv` (the arguments after the executable). Returns the exit code of
 * what it handled itself; a command it runs sets `process.exitCode` as it sees fit.
 */
export async function runProgram(program: Program, argv: readonly string[], io: ProgramIo): Promise<number | undefined> {
  const color = io.stdout.isTTY === true && !io.env.NO_COLOR
  const usageError = (message: string): number => {
    io.stderr.write(`${program.name}: ${message} (see ${program.name} --help)\n`)
    return 2
  }
  const rootHelp = (): string =>
    renderHelp({
      usage: program.name,
      description: `${program.description} (${program.version})`,
      commands: [...Object.entries(program.commands).map(([name, c]) => [name, descriptionOf(c)] as const), ['help', 'Show the help of a command (help run)']],
      color,
    })
  const commandHelp = (name: string): string => {
    const c = program.commands[name]!
    return renderHelp({ usage: `${program.name} ${name}`, description: descriptionOf(c), options: c.options, color })
  }

  const [first, ...rest] = argv
  if (first === undefined) {
    io.stderr.write(rootHelp())
    return usageError('no command given')
  }
  if (isHelp(first) || (first === 'help' && rest.length === 0)) {
    io.stdout.write(rootHelp())
    return 0
  }
  if (isVersion(first)) {
    io.stdout.write(`${program.version}\n`)
    return 0
  }
  if (first === 'help') {
    if (!(rest[0]! in program.commands)) return usageError(`unknown command ${JSON.stringify(rest[0])}`)
    io.stdout.write(commandHelp(rest[0]!))
    return 0
  }
  if (first.startsWith('-')) return usageError(`unknown option ${first.split('=')[0]}`)
  const entry = program.commands[first]
  if (!entry) return usageError(`unknown command ${JSON.stringify(first)}`)

  const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest
  if (options.some(isHelp)) {
    io.stdout.write(commandHelp(first))
    return 0
  }
  if (options.some(isVersion)) {
    io.stdout.write(`${program.version}\n`)
    return 0
  }
  try {
    await runCommand(entry.command, { rawArgs: [...rest] })
  } catch (err) {
    // citty's own argument errors are usage errors too.
    if ((err as Error).name === 'CLIError') return usageError((err as Error).message)
    throw err
  }
  return undefined
}
