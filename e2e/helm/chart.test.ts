// The chart judged by the real helm (issue 32): `helm lint --strict`, `helm template` of each value
// set in charts/k8s-collector/ci against its golden file, values.schema.json refusing wrong values
// with a message naming them, and kind/collector.yaml as the chart's default rendering.
// UPDATE_GOLDEN=1 rewrites the golden files (review the diff).
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAllYaml } from '@kubernetes/client-node'
import { describe, it } from 'vitest'
import { CommandError } from '../harness/exec.ts'
import { root } from '../harness/process.ts'
import { collectorManifest } from '../kind/setup.ts'
import { CHART_DIR, helm, renderCollectorManifest, template } from './chart.ts'

const golden = (name: string) => join(root, 'e2e', 'helm', 'golden', `${name}.yaml`)
/** `default` (no values file) and each `ci/<name>-values.yaml`. */
const VALUE_SETS: Array<[string, string[]]> = [
  ['default', []],
  ...readdirSync(join(CHART_DIR, 'ci')).filter((f) => f.endsWith('-values.yaml')).sort()
    .map((f): [string, string[]] => [f.replace(/-values\.yaml$/, ''), ['-f', join(CHART_DIR, 'ci', f)]]),
]

/** helm's exit code and stderr for `helm template` with `args`; 0 and '' when it renders. */
async function templateError(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  try {
    await template(args)
    return { code: 0, stderr: '' }
  } catch (err) {
    if (!(err instanceof CommandError)) throw err
    return { code: err.code, stderr: err.stderr }
  }
}

describe('charts/k8s-collector with the real helm', () => {
  it('has three value sets at least', () => {
    assert.ok(VALUE_SETS.length >= 3, VALUE_SETS.map(([n]) => n).join(', '))
  })

  it.each(VALUE_SETS)('helm lint --strict: %s', async (_name, args) => {
    const out = await helm(['lint', '--strict', CHART_DIR, ...args])
    assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/)
    assert.doesNotMatch(out, /\[(WARNING|ERROR)\]/)
  })

  it.each(VALUE_SETS)('helm template matches its golden file: %s', async (name, args) => {
    const out = await template(args)
    if (process.env.UPDATE_GOLDEN) writeFileSync(golden(name), out)
    assert.equal(out, readFileSync(golden(name), 'utf8'), `e2e/helm/golden/${name}.yaml is stale (UPDATE_GOLDEN=1 rewrites it)`)
    // Every document is YAML with a kind, in the release namespace unless cluster-scoped.
    const docs = loadAllYaml(out) as Array<{ kind: string; metadata: { namespace?: string } }>
    for (const d of docs) {
      if (d.kind === 'ClusterRole' || d.kind === 'ClusterRoleBinding') assert.equal(d.metadata.namespace, undefined)
      else assert.equal(d.metadata.namespace, 'k8s-collector', d.kind)
    }
  })

  it.each([
    ['a port out of range', ['--set', 'reducer.port=70000'], /at '\/reducer\/port': maximum/],
    ['an empty reducer host', ['--set', 'reducer.host='], /at '\/reducer\/host': minLength/],
    ['two replicas without leader election', ['--set', 'replicaCount=2', '--set', 'leaderElection.enabled=false'], /at '\/leaderElection\/enabled': value must be true/],
    ['an unknown cluster size', ['--set', 'clusterSize=huge'], /at '\/clusterSize': value must be one of 'small', 'medium', 'large'/],
    ['an unknown log format', ['--set', 'log.format=text'], /at '\/log\/format': value must be one of 'json', 'pretty'/],
    ['a log level typo', ['--set', 'log.level=warning'], /at '\/log\/level': value must be one of/],
    ['a label key over 20 characters', ['--set', 'labels.kubernetes_cluster_name=x'], /at '\/labels': additional properties 'kubernetes_cluster_name' not allowed/],
    ['a label value over 40 characters', ['--set', `labels.cluster=${'x'.repeat(41)}`], /at '\/labels\/cluster': maxLength: got 41, want 40/],
    ['a misspelt top-level key', ['--set', 'replicas=2'], /additional properties 'replicas' not allowed/],
    ['a memory limit that is no quantity', ['--set', 'resources.limits.memory=lots'], /at '\/resources\/limits\/memory': 'lots' does not match pattern/],
    ['a digest that is not sha256', ['--set', 'image.digest=latest'], /at '\/image\/digest'/],
    ['a dashboard sidecar label that is no label name', ['--set', 'grafanaDashboard.sidecarLabel=grafana dashboard'], /at '\/grafanaDashboard\/sidecarLabel': 'grafana dashboard' does not match pattern/],
    ['a sidecar label value given as a number (--set, not --set-string)', ['--set', 'grafanaDashboard.sidecarLabelValue=1'], /at '\/grafanaDashboard\/sidecarLabelValue': got number, want string/],
    ['a dashboard namespace in capitals', ['--set', 'grafanaDashboard.namespace=Monitoring'], /at '\/grafanaDashboard\/namespace': 'Monitoring' does not match pattern/],
  ])('values.schema.json refuses %s with a message naming it', async (_what, args, message) => {
    const { code, stderr } = await templateError(args)
    assert.equal(code, 1, stderr)
    assert.match(stderr, /values don't meet the specifications of the schema/)
    assert.match(stderr, message)
  })

  it('holds the Grafana dashboard, byte for byte, in a ConfigMap for the sidecar only when enabled', async () => {
    const configMaps = async (args: string[]) =>
      (loadAllYaml(await template(args)) as Array<{ kind: string; metadata: { name: string; namespace: string; labels: Record<string, string> }; data: Record<string, string> }>)
        .filter((d) => d.kind === 'ConfigMap')
    assert.deepEqual(await configMaps([]), [], 'no ConfigMap by default')
    const [cm, ...more] = await configMaps(['--set', 'grafanaDashboard.enabled=true', '--set', 'grafanaDashboard.namespace=monitoring'])
    assert.equal(more.length, 0)
    assert.deepEqual([cm!.metadata.name, cm!.metadata.namespace, cm!.metadata.labels.grafana_dashboard], ['k8s-collector-dashboard', 'monitoring', '1'])
    assert.deepEqual(Object.keys(cm!.data), ['k8s-collector.json'])
    assert.equal(cm!.data['k8s-collector.json'], readFileSync(join(root, 'deploy', 'grafana', 'k8s-collector.json'), 'utf8'))
  })

  it('kind/collector.yaml is the chart rendered with default values (npx tsx scripts/collector-manifest.ts)', async () => {
    const expected = await renderCollectorManifest()
    assert.equal(readFileSync(join(root, 'kind', 'collector.yaml'), 'utf8'), expected, 'kind/collector.yaml and the chart drifted: run npx tsx scripts/collector-manifest.ts')
  })

  it('the kind suite fills the image and the reducer host into kind/collector.yaml', () => {
    const text = collectorManifest(root, 'k8s-collector:e2e', 'tap')
    const docs = loadAllYaml(text) as Array<Record<string, any>>
    const container = docs.find((d) => d.kind === 'Deployment')!.spec.template.spec.containers[0]
    assert.equal(container.image, 'k8s-collector:e2e')
    assert.equal(container.env.find((e: { name: string }) => e.name === 'EBPF_NET_INTAKE_HOST')?.value, 'tap')
    assert.equal(docs[0]!.kind, 'Namespace')
  })
})
