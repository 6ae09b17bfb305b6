import { describe, expect, it } from 'vitest'
import { renderHelp } from './help.ts'
import { RUN_OPTIONS } from './run-options.ts'
import { TAP_OPTIONS } from './tap-options.ts'

const page = (options: typeof RUN_OPTIONS | typeof TAP_OPTIONS, color = false) => renderHelp({ usage: 'k8s-collector x', description: 'what x does', options, color })

describe('renderHelp', () => {
  it.each([
    ['run', RUN_OPTIONS],
    ['tap', TAP_OPTIONS],
  ] as const)('%s: one line per option, each ending [env: …, default: …] or [default: …]', (_, options) => {
    const lines = page(options).split('\n')
    for (const o of Object.values(options)) {
      const name = o.flag ? `--${o.flag}` : o.env!
      const starts = o.flag ? [`  --${o.flag} `, `  --[no-]${o.flag} `] : [`  ${o.env}=`]
      const line = lines.find((l) => starts.some((s) => l.startsWith(s)))
      expect(line, name).toBeDefined()
      const expected = o.env && o.flag ? /\[env: [A-Z0-9_]+, default: [^\]]+\]$/ : /\[default: [^\]]+\]$/
      expect(line, name).toMatch(expected)
      if (o.env && o.flag) expect(line).toContain(`[env: ${o.env}, `)
    }
  })

  it('has no escape sequences, no trailing spaces and no backticks without colour', () => {
    const text = page(RUN_OPTIONS)
    expect(text).not.toContain('\x1b')
    expect(text).not.toContain('`')
    expect(text.split('\n').filter((l) => l !== l.trimEnd())).toEqual([])
    expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true)
  })

  it('makes headings bold with colour, and only headings', () => {
    const text = page(TAP_OPTIONS, true)
    expect(text).toContain('\x1b[1mOptions:\x1b[22m')
    expect(text.replaceAll('\x1b[1m', '').replaceAll('\x1b[22m', '')).toBe(page(TAP_OPTIONS))
  })

  it('shows switches, negations, choices and repeatable flags as typed', () => {
    const run = page(RUN_OPTIONS)
    const tap = page(TAP_OPTIONS)
    expect(run).toMatch(/^ {2}--print-config {2,}print the effective configuration as JSON and exit \[default: false\]$/m)
    expect(tap).toMatch(/^ {2}--\[no-\]print {2,}print one line per message on stdout \[default: when stdout is a terminal\]$/m)
    expect(tap).toMatch(/^ {2}--http HOST:PORT, --no-http {2,}/m)
    expect(run).toMatch(/^ {2}--log-level LEVEL {2,}log level \(silent, error, warn, info, debug, trace\) \[env: K8S_COLLECTOR_LOG_LEVEL, default: info\]$/m)
    expect(run).toMatch(/^ {2}--label KEY=VALUE {2,}.*\(repeatable\) \[default: none\]$/m)
    expect(run).toMatch(/^Environment only:\n {2}EBPF_NET_MAJOR_VERSION=N {2,}/m)
  })
})
