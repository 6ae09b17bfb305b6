// The dashboard JSON against Grafana's published schema types (@grafana/schema): the JSON text is
// put into a TypeScript module as an object literal followed by `satisfies`, and the TypeScript
// compiler checks it (contextual types keep string literals narrow and report excess properties,
// which importing the .json file would not). Each diagnostic is given as a line of the JSON file.
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { root } from '../harness/process.ts'
import { DASHBOARD_FILE } from './dashboard.ts'

const require = createRequire(import.meta.url)

/** The @grafana/schema release the types come from. */
export const SCHEMA_PACKAGE_VERSION: string = (require('@grafana/schema/package.json') as { version: string }).version

const COMPOSABLE = '@grafana/schema/dist/esm/raw/composable'

/**
 * The module's head. `Json<T>` is a type as JSON spells it: an enum member as its value (JSON has
 * no enums; Grafana writes `"displayMode": "list"` for LegendDisplayMode.List). A panel's `options`
 * and `fieldConfig.defaults.custom` are checked against its plugin's published Options and
 * FieldConfig (@grafana/schema types them as records at the dashboard level). The Prometheus query
 * model is not in @grafana/schema: PrometheusQuery is DataQuery plus the fields the Prometheus data
 * source reads, as it writes them.
 */
const HEAD = `import type { Dashboard, DataQuery, FieldConfig, FieldConfigSource, Panel } from '@grafana/schema'
import type * as TimeSeries from '${COMPOSABLE}/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen'
import type * as Stat from '${COMPOSABLE}/stat/panelcfg/x/StatPanelCfg_types.gen'
import type * as StateTimeline from '${COMPOSABLE}/statetimeline/panelcfg/x/StateTimelinePanelCfg_types.gen'
type Json<T> = T extends string ? \`\${T}\` : T extends ReadonlyArray<infer U> ? Array<Json<U>> : T extends object ? { [K in keyof T]: Json<T[K]> } : T
interface PrometheusQuery extends Json<DataQuery> {
  datasource: { type: 'prometheus'; uid: string }
  expr: string
  legendFormat?: string
  range?: boolean
  instant?: boolean
  editorMode?: 'code' | 'builder'
  format?: 'time_series' | 'table' | 'heatmap'
  interval?: string
}
type PanelOf<Type extends string, Options, Custom> = Omit<Json<Panel>, 'type' | 'options' | 'fieldConfig' | 'targets'> & {
  type: Type
  options: Json<Options>
  fieldConfig: { defaults: Omit<Json<FieldConfig>, 'custom'> & { custom?: Json<Custom> }; overrides: Json<FieldConfigSource['overrides']> }
  targets: PrometheusQuery[]
}
type KnownPanel =
  | PanelOf<'timeseries', TimeSeries.Options, TimeSeries.FieldConfig>
  | PanelOf<'stat', Stat.Options, never>
  | PanelOf<'state-timeline', StateTimeline.Options, StateTimeline.FieldConfig>
export const dashboard = (
`
const TAIL = `
) satisfies Omit<Json<Dashboard>, 'panels'> & { panels: KnownPanel[] }
`

/** Where the module is compiled as if it were: beside this file, so that node_modules resolves. */
const VIRTUAL = join(root, 'e2e', 'grafana', 'dashboard.virtual.ts')

const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  skipLibCheck: true,
  types: [],
}

/** Checks one dashboard text; see {@link createDashboardTypeCheck}. */
export type DashboardTypeCheck = (jsonText: string) => string[]

/**
 * A checker returning the compiler's complaints about a dashboard's JSON text, each
 * `file:line:column: message`; empty when it conforms. The declarations are parsed once per
 * checker, so checking several variants of the file costs one parse.
 */
export function createDashboardTypeCheck(): DashboardTypeCheck {
  const host = ts.createCompilerHost(options)
  const parsed = new Map<string, ts.SourceFile | undefined>()
  const getSourceFile = host.getSourceFile.bind(host)
  let source = ''
  host.getSourceFile = (name, version, ...rest) => {
    if (name === VIRTUAL) return ts.createSourceFile(name, source, version)
    if (!parsed.has(name)) parsed.set(name, getSourceFile(name, version, ...rest))
    return parsed.get(name)
  }
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => name === VIRTUAL || fileExists(name)
  const firstJsonLine = HEAD.split('\n').length - 1
  const where = relative(root, DASHBOARD_FILE)
  return (jsonText) => {
    source = HEAD + jsonText + TAIL
    const program = ts.createProgram([VIRTUAL], options, host)
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n')
      if (!d.file || d.start === undefined) return text
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start)
      if (d.file.fileName !== VIRTUAL) return `${d.file.fileName}:${line + 1}:${character + 1}: ${text}`
      const jsonLine = line - firstJsonLine + 1
      return jsonLine >= 1 ? `${where}:${jsonLine}:${character + 1}: ${text}` : `(type declarations, line ${line + 1}): ${text}`
    })
  }
}
