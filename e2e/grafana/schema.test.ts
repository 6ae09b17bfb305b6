// The dashboard's JSON (issue 32 item 3) against Grafana's published schema types (@grafana/schema,
// checked by the TypeScript compiler), and the layout rules Grafana does not type: unique panel
// ids, panels inside the 24-column grid and not overlapping, each titled and querying through the
// `datasource` variable, the job/namespace/pod variables chained from the collector's build_info.
import { defaultDashboard } from '@grafana/schema'
import { describe, expect, it } from 'vitest'
import { DATASOURCE_REF, labelValuesQuery, loadDashboard, readDashboardText, type PanelJson } from './dashboard.ts'
import { createDashboardTypeCheck, SCHEMA_PACKAGE_VERSION } from './schema-check.ts'

const text = readDashboardText()
const dashboard = loadDashboard(text)
const checkDashboardTypes = createDashboardTypeCheck()

// A compiler run takes seconds, more under the full suite's load.
describe(`the dashboard against @grafana/schema ${SCHEMA_PACKAGE_VERSION}`, { timeout: 60_000 }, () => {
  it('conforms to Dashboard, each panel to its plugin\'s Options and FieldConfig', () => {
    expect(checkDashboardTypes(text)).toEqual([])
  })

  it('is at the schemaVersion that release writes', () => {
    expect(dashboard.schemaVersion).toBe(defaultDashboard.schemaVersion)
  })

  // The check can fail: each breach, put into the real file, is reported at its line.
  it.each([
    ['a misspelled panel property', '"gridPos"', '"gridpos"', /'"gridpos"' does not exist in type/],
    ['a legend mode Grafana does not know', '"displayMode": "list"', '"displayMode": "lists"', /Type '"lists"' is not assignable/],
    ['a stat colour mode Grafana does not know', '"colorMode": "background"', '"colorMode": "backgroundx"', /Type '"backgroundx"' is not assignable/],
    ['a panel type without published options here', '"type": "state-timeline"', '"type": "graph"', /Type '"graph"' is not assignable/],
    ['a number as a string', '"rowHeight": 0.9', '"rowHeight": "0.9"', /Type 'string' is not assignable to type 'number'/],
    ['a variable of an unknown type', '"type": "datasource"', '"type": "data source"', /Type '"data source"' is not assignable/],
  ])('rejects %s', (_what, from, to, message) => {
    const bad = text.replace(from, to)
    expect(bad).not.toBe(text)
    const got = checkDashboardTypes(bad)
    expect(got).toHaveLength(1)
    expect(got[0]).toMatch(/^deploy\/grafana\/k8s-collector\.json:\d+:\d+: /)
    expect(got[0]).toMatch(message)
  })
})

describe('the dashboard layout', () => {
  const panels = dashboard.panels

  it('has unique panel ids and query refIds', () => {
    const ids = panels.map((p) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const p of panels) {
      const refs = (p.targets ?? []).map((t) => t.refId)
      expect(new Set(refs).size, p.title).toBe(refs.length)
    }
  })

  it('keeps every panel inside the 24 columns, none overlapping another', () => {
    const overlap = (a: PanelJson, b: PanelJson) =>
      a.gridPos.x < b.gridPos.x + b.gridPos.w && b.gridPos.x < a.gridPos.x + a.gridPos.w &&
      a.gridPos.y < b.gridPos.y + b.gridPos.h && b.gridPos.y < a.gridPos.y + a.gridPos.h
    const problems: string[] = []
    panels.forEach((a, i) => {
      const { x, y, w, h } = a.gridPos
      if (x < 0 || y < 0 || w < 1 || h < 1 || x + w > 24) problems.push(`${a.title}: outside the grid ${JSON.stringify(a.gridPos)}`)
      for (const b of panels.slice(i + 1)) if (overlap(a, b)) problems.push(`${a.title} overlaps ${b.title}`)
    })
    expect(problems).toEqual([])
  })

  it('gives every panel a title, queries, and the datasource variable for the panel and each query', () => {
    for (const p of panels) {
      expect(p.title, `panel ${p.id}`).toMatch(/\S/)
      expect(p.datasource, p.title).toEqual(DATASOURCE_REF)
      expect(p.targets?.length, p.title).toBeGreaterThan(0)
      for (const t of p.targets!) {
        expect(t.datasource, `${p.title} ${t.refId}`).toEqual(DATASOURCE_REF)
        expect(t.expr, `${p.title} ${t.refId}`).toMatch(/\S/)
      }
    }
  })

  it('has a prometheus datasource variable and job → namespace → pod variables read from build_info', () => {
    const vars = dashboard.templating.list
    expect(vars.map((v) => [v.name, v.type])).toEqual([['datasource', 'datasource'], ['job', 'query'], ['namespace', 'query'], ['pod', 'query']])
    expect(vars[0]!.query).toBe('prometheus')
    for (const v of vars.slice(1)) {
      expect(v.datasource, v.name).toEqual(DATASOURCE_REF)
      const { selector, label } = labelValuesQuery(v.query!)
      expect(label).toBe(v.name)
      expect(selector).toMatch(/^k8s_collector_build_info\b/)
    }
    // Each narrows by the ones before it, and every query filters by all three.
    expect(vars[2]!.query).toContain('job=~"$job"')
    expect(vars[3]!.query).toContain('namespace=~"$namespace"')
    for (const p of panels) for (const t of p.targets!) {
      for (const name of ['job', 'namespace', 'pod']) expect(t.expr, `${p.title} ${t.refId}`).toContain(`${name}=~"$${name}"`)
    }
  })
})
