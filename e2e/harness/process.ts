// The built collector as a child process (any of its three forms) and its /metrics.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const denoBin = join(dirname(createRequire(import.meta.url).resolve('deno/package.json')), 'deno')

/** The V8 flags every form runs with: the bundle's shebang, the executables' baked-in flags. */
export const V8_FLAGS: readonly string[] = JSON.parse(readFileSync(join(root, 'scripts', 'v8-flags.json'), 'utf8')) as string[]

/** The three forms the collector ships in (issue 5), as command prefixes, with the flags they ship with. */
export const RUNTIMES: Record<string, string[]> = {
  node: [process.execPath, ...V8_FLAGS, join(root, 'dist', 'cli.mjs')],
  // --allow-all as scripts/compile.mjs: the link reads /proc/net/tcp (docs/dead-links.md).
  deno: [denoBin, 'run', `--v8-flags=${V8_FLAGS.join(',')}`, '--allow-all', join(root, 'dist', 'cli.mjs')],
  sea: [join(root, 'dist', 'k8s-collector-node')],
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolvePort(port))
    })
  })
}

export interface CollectorProcess {
  readonly child: ChildProcess
  readonly httpPort: number
  readonly stderr: () => string
  /** Sends SIGTERM; resolves with the exit code and how long the exit took. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>
  metrics(): Promise<string>
}

/** The `run` arguments of a collector reaching the reducer at 127.0.0.1:`intakePort`, logging JSON to stderr. */
export function runArgs(opts: { kubeconfig: string; intakePort: number; httpPort: number; hostname: string }): string[] {
  return [
    'run',
    '--kubeconfig', opts.kubeconfig,
    '--intake-host', '127.0.0.1',
    '--intake-port', String(opts.intakePort),
    '--http-listen', `127.0.0.1:${opts.httpPort}`,
    '--hostname', opts.hostname,
    '--log-format', 'json',
  ]
}

/** `env` is added to the collector's environment (the downward API variables of docs/events.md, say). */
export async function startCollector(
  runtime: string[],
  opts: { kubeconfig: string; intakePort: number; hostname: string; extraArgs?: string[]; env?: Record<string, string> },
): Promise<CollectorProcess> {
  const httpPort = await freePort()
  const [cmd, ...prefix] = runtime
  const child = spawn(
    cmd!,
    [
      ...prefix,
      ...runArgs({ ...opts, httpPort }),
      '--heartbeat-interval-sec', '1',
      '--log-level', 'debug',
      ...(opts.extraArgs ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', ...opts.env } },
  )
  let err = ''
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString()
    if (err.length > 2_000_000) err = err.slice(-1_000_000)
  })
  child.stdout!.resume()
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })))
  return {
    child,
    httpPort,
    stderr: () => err,
    async stop() {
      const t = Date.now()
      child.kill('SIGTERM')
      const result = await Promise.race([exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit 10 s after SIGTERM\n${err.slice(-3000)}`)), 10_000))])
      return { ...result, ms: Date.now() - t }
    },
    async metrics() {
      const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`)
      return res.text()
    },
  }
}

/** A metric's value from Prometheus text (first series matching the label filter), or undefined. */
export function metric(text: string, name: string, labels = ''): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue
    const rest = line.slice(name.length)
    if (labels ? rest.startsWith(`{`) && rest.includes(labels) : rest.startsWith(' ')) return Number(rest.slice(rest.lastIndexOf(' ') + 1))
  }
  return undefined
}

