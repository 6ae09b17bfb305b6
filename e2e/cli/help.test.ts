// The built CLI's help, version and usage errors, read through a pipe as a script or a pager would.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { RUN_OPTIONS } from '../../src/cli/run-options.ts'
import { TAP_OPTIONS } from '../../src/cli/tap-options.ts'
import { VERSION } from '../../src/cli/version.ts'
import { RUNTIMES } from '../harness/process.ts'

const [node, ...prefix] = RUNTIMES.node!
/** The bundle with stdout and stderr as pipes; NO_COLOR unset, so only the pipe keeps colours out. */
const cli = (...args: string[]) => {
  const env = { ...process.env }
  for (const k of ['NO_COLOR', 'CI', 'TEST', 'NODE_ENV']) delete env[k]
  return spawnSync(node!, [...prefix, ...args], { encoding: 'utf8', env, timeout: 20_000 })
}

/** Checks a help page: plain text, no padding at line ends, every option with its env and default. */
function expectHelp(text: string, options: Record<string, { flag?: string; env?: string }>): void {
  expect(text).not.toContain('\x1b')
  expect(text.split('\n').filter((l) => l !== l.trimEnd())).toEqual([])
  for (const o of Object.values(options)) {
    const line = text.split('\n').find((l) => (o.flag ? l.startsWith(`  --${o.flag} `) || l.startsWith(`  --[no-]${o.flag} `) : l.startsWith(`  ${o.env}=`)))
    expect(line, o.flag ?? o.env).toBeDefined()
    expect(line).toMatch(o.flag && o.env ? new RegExp(`\\[env: ${o.env}, default: [^\\]]+\\]$`) : /\[default: [^\]]+\]$/)
  }
}

describe('help', () => {
  it.each([['help'], ['--help'], ['-h']])('%s: the commands, exit 0', (arg) => {
    const r = cli(arg)
    expect(r.status).toBe(0)
    expect(r.stderr).toBe('')
    expectHelp(r.stdout, {})
    expect(r.stdout).toMatch(/^Commands:\n {2}run {2,}Watch pods.*\n {2}tap {2,}A reducer-compatible sink.*\n {2}help {2,}/m)
  })

  it.each([
    [['run', '--help'], RUN_OPTIONS],
    [['run', '-h'], RUN_OPTIONS],
    [['help', 'run'], RUN_OPTIONS],
    [['run', '--intake-port', '1', '--help'], RUN_OPTIONS],
    [['tap', '--help'], TAP_OPTIONS],
    [['help', 'tap'], TAP_OPTIONS],
  ])('%j: every option with its environment variable and default, exit 0', (args, options) => {
    const r = cli(...args)
    expect(r.status).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain(`Usage: k8s-collector ${args.includes('tap') ? 'tap' : 'run'} [options]`)
    expectHelp(r.stdout, options)
  })
})

describe('version', () => {
  it.each([['--version'], ['-v'], ['run', '--version'], ['tap', '-v']])('%s prints the version, exit 0', (...args) => {
    const r = cli(...args)
    expect([r.status, r.stdout, r.stderr]).toEqual([0, `${VERSION}\n`, ''])
  })
})

describe('usage errors name what was wrong and exit 2', () => {
  it.each([
    [['--bogus'], 'k8s-collector: unknown option --bogus (see k8s-collector --help)'],
    [['--bogus=1', 'run'], 'k8s-collector: unknown option --bogus (see k8s-collector --help)'],
    [['bogus'], 'k8s-collector: unknown command "bogus" (see k8s-collector --help)'],
    [['help', 'bogus'], 'k8s-collector: unknown command "bogus" (see k8s-collector --help)'],
    [['run', '--bogus'], 'k8s-collector run: unknown option --bogus'],
    [['tap', '--bogus'], 'k8s-collector tap: unknown option --bogus'],
  ])('%j', (args, line) => {
    const r = cli(...args)
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trimEnd().split('\n')).toEqual([line])
  })

  it('no command: the help and a line on stderr', () => {
    const r = cli()
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^Commands:$/m)
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('k8s-collector: no command given (see k8s-collector --help)')
  })

  it('every bad input of run on its own line', () => {
    const r = cli('run', '--intake-port', '0', '--label', 'x', '--log-format', 'xml')
    expect(r.status).toBe(2)
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'k8s-collector run: --intake-port="0" is out of range (1–65535)',
      'k8s-collector run: --label="x" is not key=value',
      'k8s-collector run: --log-format="xml" is not one of pretty, json',
    ])
  })
})
