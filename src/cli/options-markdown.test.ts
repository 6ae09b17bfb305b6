import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { markdownTable, OPTION_DOCUMENTS, withOptionTables } from './options-markdown.ts'
import { RUN_OPTIONS } from './run-options.ts'
import { TAP_OPTIONS } from './tap-options.ts'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const runTables = OPTION_DOCUMENTS[0].tables

describe('README option tables', () => {
  it.each(OPTION_DOCUMENTS)('$path holds the tables generated from the option tables (else: npx tsx scripts/options-table.ts)', ({ path, tables }) => {
    const doc = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
    expect(withOptionTables(doc, tables)).toBe(doc)
  })

  it('notices a stale table', () => {
    const stale = readme.replace('| `--intake-port` | `EBPF_NET_INTAKE_PORT` | `8000` |', '| `--intake-port` | `EBPF_NET_INTAKE_PORT` | `8001` |')
    expect(stale).not.toBe(readme)
    expect(withOptionTables(stale, runTables)).toBe(readme)
  })

  it('refuses a document without the markers', () => {
    expect(() => withOptionTables('# nothing here\n', runTables)).toThrow(/options:run/)
  })

  it('has one row per option, pipes escaped', () => {
    const rows = markdownTable(TAP_OPTIONS).split('\n').slice(2)
    expect(rows).toHaveLength(Object.keys(TAP_OPTIONS).length)
    expect(rows).toContain('| `--log-format` | `K8S_COLLECTOR_LOG_FORMAT` | `pretty` when stderr is a terminal, else `json` | `pretty`, `json` | log line format; every log line goes to stderr |')
    expect(rows).toContain('| `--[no-]print` | — | when stdout is a terminal | switch | print one line per message on stdout |')
    expect(rows).toContain('| `--http`, `--no-http` | — | `0.0.0.0:8081` | `HOST:PORT` or `none` | HTTP API: `/state`, `/events`, `/healthz`; `none` turns it off |')
    expect(markdownTable({ x: { ...RUN_OPTIONS.intakeHost, help: 'a|b' } })).toContain('| a\\|b |')
  })
})
