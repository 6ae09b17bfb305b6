// The Grafana dashboard (deploy/grafana/k8s-collector.json) as the tests read it: its panels, their
// queries and template variables, and the queries with the variables replaced as Grafana would.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root } from '../harness/process.ts'

export const DASHBOARD_FILE = join(root, 'deploy', 'grafana', 'k8s-collector.json')

/** The parts of a dashboard the tests read (schema.test.ts checks the whole against Grafana's types). */
export interface DashboardJson {
  readonly uid: string
  readonly title: string
  readonly schemaVersion: number
  readonly panels: readonly PanelJson[]
  readonly templating: { readonly list: readonly VariableJson[] }
}

export interface PanelJson {
  readonly id: number
  readonly type: string
  readonly title?: string
  readonly datasource?: { readonly type?: string; readonly uid?: string }
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number }
  readonly targets?: ReadonlyArray<{ readonly refId: string; readonly expr: string; readonly datasource?: { readonly type?: string; readonly uid?: string } }>
}

export interface VariableJson {
  readonly name: string
  readonly type: string
  readonly query?: string
  readonly datasource?: { readonly type?: string; readonly uid?: string }
}

/** One query of one panel. */
export interface PanelTarget {
  readonly panel: string
  readonly refId: string
  readonly expr: string
}

/** The datasource reference every panel and query variable uses: the `datasource` variable. */
export const DATASOURCE_REF = { type: 'prometheus', uid: '${datasource}' } as const

export function readDashboardText(): string {
  return readFileSync(DASHBOARD_FILE, 'utf8')
}

export function loadDashboard(text = readDashboardText()): DashboardJson {
  return JSON.parse(text) as DashboardJson
}

/** Every panel query, named `panel title / refId`. */
export function panelTargets(d: DashboardJson): PanelTarget[] {
  return d.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title ?? `panel ${p.id}`, refId: t.refId, expr: t.expr })))
}

/** A query variable's `label_values(selector, label)` (Grafana's Prometheus variable syntax) split in two. */
export function labelValuesQuery(query: string): { selector: string; label: string } {
  const m = /^label_values\((.*),\s*([A-Za-z_][A-Za-z0-9_]*)\)$/.exec(query.trim())
  if (!m) throw new Error(`not a label_values(selector, label) query: ${query}`)
  return { selector: m[1]!.trim(), label: m[2]! }
}

/**
 * `expr` with the template variables replaced as Grafana does before it sends a query: each
 * `$name`/`${name}` by its value (a single value, as when one job, namespace and pod are chosen),
 * `$__rate_interval` by `rateInterval`. Throws on a variable it was not given: the test must know
 * every variable a query uses.
 */
export function interpolate(expr: string, values: Readonly<Record<string, string>>, rateInterval: string): string {
  return expr.replace(/\$(?:\{(\w+)\}|(\w+))/g, (whole, braced?: string, bare?: string) => {
    const name = braced ?? bare!
    if (name === '__rate_interval') return rateInterval
    const value = values[name]
    if (value === undefined) throw new Error(`${whole} in ${expr}: no value given for it`)
    return value
  })
}
