// Debian's `prometheus` as a child process on loopback (issue 32): scraping given targets every
// second, evaluating a rules file every second, its storage in a temporary folder, read through
// its HTTP API (/api/v1/alerts, /api/v1/rules, /api/v1/targets, /api/v1/query, label values).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../harness/process.ts'
import { waitFor } from '../harness/wait.ts'

/** One alert as /api/v1/alerts reports it. */
export interface PromAlert {
  labels: Record<string, string>
  state: 'pending' | 'firing'
  activeAt: string
  value: string
}

/** One scrape target: its address and the labels Kubernetes service discovery would give it. */
export interface ScrapeTarget {
  readonly address: string
  readonly labels: Record<string, string>
}

/** One series of an instant query's result: its labels and its value as Prometheus spells it ("1", "NaN", "+Inf"). */
export interface PromSample {
  readonly metric: Record<string, string>
  readonly value: string
}

export interface PrometheusServer {
  readonly url: string
  /** Evaluates `expr` now (/api/v1/query); rejects with Prometheus' error for a query it refuses. */
  query(expr: string): Promise<PromSample[]>
  /** The values of `label` on the series `match` selects, as Grafana's `label_values(match, label)` asks for them. */
  labelValues(label: string, match: string): Promise<string[]>
  alerts(): Promise<PromAlert[]>
  /** Every alerting rule's name, health and last error (empty when none). */
  rules(): Promise<Array<{ name: string; health: string; lastError: string }>>
  /** Each target's health (`up`, `down`, `unknown`). */
  targets(): Promise<Array<{ scrapeUrl: string; health: string }>>
  log(): string
  stop(): Promise<void>
}

async function api<T>(url: string): Promise<T> {
  const res = await fetch(url)
  const body = (await res.json()) as { status: string; data: T; error?: string }
  if (body.status !== 'success') throw new Error(`${url}: ${body.error ?? res.status}`)
  return body.data
}

/** Starts prometheus; resolves once it is ready and has loaded `rulesFile` (none when undefined). */
export async function startPrometheus(rulesFile: string | undefined, targets: readonly ScrapeTarget[]): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'))
  const port = await freePort()
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: rulesFile === undefined ? [] : [rulesFile],
    scrape_configs: [{ job_name: 'k8s-collector', static_configs: targets.map((t) => ({ targets: [t.address], labels: t.labels })) }],
  }
  // JSON is YAML.
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2))
  const child = spawn('prometheus', [
    `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
  ], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr!.on('data', (d: Buffer) => {
    log += d.toString()
    if (log.length > 200_000) log = log.slice(-100_000)
  })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  child.once('error', (err) => (log += `\n${String(err)}`))
  const url = `http://127.0.0.1:${port}`
  const server: PrometheusServer = {
    url,
    async query(expr) {
      const data = await api<{ resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> | [number, string] }>(
        `${url}/api/v1/query?${new URLSearchParams({ query: expr })}`,
      )
      if (data.resultType !== 'vector') throw new Error(`${expr}: a ${data.resultType}, not an instant vector`)
      return (data.result as Array<{ metric: Record<string, string>; value: [number, string] }>).map((r) => ({ metric: r.metric, value: r.value[1] }))
    },
    labelValues: (label, match) => api<string[]>(`${url}/api/v1/label/${encodeURIComponent(label)}/values?${new URLSearchParams({ 'match[]': match })}`),
    alerts: async () => (await api<{ alerts: PromAlert[] }>(`${url}/api/v1/alerts`)).alerts,
    rules: async () => (await api<{ groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> }>(`${url}/api/v1/rules?type=alert`))
      .groups.flatMap((g) => g.rules.map((r) => ({ name: r.name, health: r.health, lastError: r.lastError ?? '' }))),
    targets: async () => (await api<{ activeTargets: Array<{ scrapeUrl: string; health: string }> }>(`${url}/api/v1/targets`)).activeTargets,
    log: () => log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
      rmSync(dir, { recursive: true, force: true })
    },
  }
  try {
    await waitFor('prometheus to be ready', async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${log.slice(-2000)}`)
      const res = await fetch(`${url}/-/ready`).catch(() => undefined)
      return res?.ok ? true : undefined
    }, { timeoutMs: 30_000 })
  } catch (err) {
    await server.stop()
    throw err
  }
  return server
}
