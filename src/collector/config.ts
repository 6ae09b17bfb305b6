// The collector's configuration: flags > environment > defaults, resolved and validated in one place
// (docs/behaviour.md §7, issue "k8s-collector run").

/** Everything `k8s-collector run` needs, with units in the names. */
export interface CollectorConfig {
  /** Reducer host (IP or DNS name, resolved on every connection attempt). Default 127.0.0.1. */
  readonly intakeHost: string
  /** Reducer port. Default 8000. */
  readonly intakePort: number
  /** How long a deleted ReplicaSet/Job stays resolvable (docs/behaviour.md §4). Default 60 s. */
  readonly deleteTtlSecs: number
  /** How many deleted owners are retained at most (docs/behaviour.md §4). Default 10,000. */
  readonly deleteCapacity: number
  /** Waiting pods that trigger a forced owner relist + new epoch (docs/behaviour.md §6). Default 10,000. */
  readonly waitingLimit: number
  /** Heartbeat + collector_health interval (docs/behaviour.md §7). Default 2 s. */
  readonly heartbeatIntervalSecs: number
  /** How long to wait for the initial lists before connecting anyway (docs/behaviour.md §6). Default 60 s. */
  readonly primingTimeoutSecs: number
  /** `connect.hostname` and `set_node_info.instance_id`. Default: the OS hostname. */
  readonly hostname: string
  /** `set_config_label` pairs, in order given (keys ≤ 20, values ≤ 40 characters). */
  readonly labels: ReadonlyArray<readonly [string, string]>
  /** `version_info` sent to the reducer; must be ≥ 0.9.0 or the reducer refuses it. Default 0.11.0. */
  readonly version: { readonly major: number; readonly minor: number; readonly patch: number }
  /** Kubeconfig path; unset → KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  readonly kubeconfig?: string
  /** Health and metrics listener. Default 0.0.0.0:8080. */
  readonly httpListen: { readonly host: string; readonly port: number }
  readonly logLevel: 'silent' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
  /** json by default when stderr is not a TTY. */
  readonly logFormat: 'pretty' | 'json'
}

/** A user-input problem: printed as one line, exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** The raw inputs: parsed flags (strings as given), repeated `--label` values, environment. */
export interface ConfigInputs {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>
  readonly labels: readonly string[]
  readonly env: Readonly<Record<string, string | undefined>>
  readonly osHostname: string
  readonly stderrIsTty: boolean
}

const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const

function pick(inputs: ConfigInputs, flag: string, envName?: string): { value: string; from: string } | undefined {
  const f = inputs.flags[flag]
  if (typeof f === 'string') return { value: f, from: `--${flag}` }
  if (f === true) throw new ConfigError(`--${flag} needs a value`)
  const e = envName ? inputs.env[envName] : undefined
  if (e !== undefined && e !== '') return { value: e, from: envName! }
  return undefined
}

function integer(inputs: ConfigInputs, flag: string, envName: string | undefined, fallback: number, min: number, max: number): number {
  const got = pick(inputs, flag, envName)
  if (!got) return fallback
  const text = got.value.trim()
  if (!/^\d+$/.test(text)) throw new ConfigError(`${got.from}=${JSON.stringify(got.value)} is not a whole number`)
  const n = Number(text)
  if (n < min || n > max) throw new ConfigError(`${got.from}=${n} is out of range (${min}…${max})`)
  return n
}

/** Parses `HOST:PORT` (IPv6 hosts in brackets) for listeners. */
export function parseHostPort(text: string, what: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim())
  const port = m ? Number(m[3]) : NaN
  if (!m || port > 65535) throw new ConfigError(`${what}=${JSON.stringify(text)} is not HOST:PORT (e.g. 0.0.0.0:8080)`)
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port }
}

function versionPart(inputs: ConfigInputs, name: 'MAJOR' | 'MINOR' | 'PATCH', fallback: number): number {
  const envName = `EBPF_NET_${name}_VERSION`
  const raw = inputs.env[envName]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 0xffffffff) throw new ConfigError(`${envName}=${JSON.stringify(raw)} is not a version number`)
  return Number(raw)
}

function parseLabel(text: string): readonly [string, string] {
  const at = text.indexOf('=')
  if (at <= 0) throw new ConfigError(`--label ${JSON.stringify(text)} is not key=value`)
  const key = text.slice(0, at)
  const value = text.slice(at + 1)
  if ([...key].length > 20) throw new ConfigError(`--label key ${JSON.stringify(key)} is longer than 20 characters`)
  if ([...value].length > 40) throw new ConfigError(`--label value for ${JSON.stringify(key)} is longer than 40 characters`)
  return [key, value]
}

/** Resolves and validates the configuration; throws {@link ConfigError} on bad input. */
export function resolveConfig(inputs: ConfigInputs): CollectorConfig {
  const intakeHost = (pick(inputs, 'intake-host', 'EBPF_NET_INTAKE_HOST')?.value ?? '127.0.0.1').trim()
  if (!intakeHost || /[\s/]/.test(intakeHost)) throw new ConfigError(`intake host ${JSON.stringify(intakeHost)} is not a host name or address`)

  const version = {
    major: versionPart(inputs, 'MAJOR', 0),
    minor: versionPart(inputs, 'MINOR', 11),
    patch: versionPart(inputs, 'PATCH', 0),
  }
  // The reducer refuses version_info below 0.9.0 (docs/protocol.md §1.4): fail at start-up instead.
  const v = version.major * 1e12 + version.minor * 1e6 + version.patch
  if (v < 9e6) throw new ConfigError(`collector version ${version.major}.${version.minor}.${version.patch} is below 0.9.0; the reducer would refuse it`)

  const level = pick(inputs, 'log-level', 'K8S_COLLECTOR_LOG_LEVEL')
  if (level && !(LOG_LEVELS as readonly string[]).includes(level.value)) {
    throw new ConfigError(`${level.from}=${JSON.stringify(level.value)} is not one of ${LOG_LEVELS.join(', ')}`)
  }
  const format = pick(inputs, 'log-format', 'K8S_COLLECTOR_LOG_FORMAT')
  if (format && format.value !== 'pretty' && format.value !== 'json') {
    throw new ConfigError(`${format.from}=${JSON.stringify(format.value)} is not pretty or json`)
  }
  const hostname = (pick(inputs, 'hostname', 'K8S_COLLECTOR_HOSTNAME')?.value ?? inputs.osHostname).trim()
  if (!hostname) throw new ConfigError('the hostname is empty; set --hostname')
  const kubeconfig = pick(inputs, 'kubeconfig')?.value

  return {
    intakeHost,
    intakePort: integer(inputs, 'intake-port', 'EBPF_NET_INTAKE_PORT', 8000, 1, 65535),
    deleteTtlSecs: integer(inputs, 'delete-ttl-secs', 'K8S_COLLECTOR_DELETE_TTL_SECS', 60, 0, 86_400),
    deleteCapacity: integer(inputs, 'delete-capacity', 'K8S_COLLECTOR_DELETE_CAPACITY', 10_000, 0, 10_000_000),
    waitingLimit: integer(inputs, 'waiting-limit', 'K8S_COLLECTOR_WAITING_LIMIT', 10_000, 1, 10_000_000),
    heartbeatIntervalSecs: integer(inputs, 'heartbeat-interval-sec', 'K8S_COLLECTOR_HEARTBEAT_INTERVAL_SEC', 2, 1, 25),
    primingTimeoutSecs: integer(inputs, 'priming-timeout-secs', 'K8S_COLLECTOR_PRIMING_TIMEOUT_SECS', 60, 1, 3600),
    hostname,
    labels: inputs.labels.map(parseLabel),
    version,
    ...(kubeconfig ? { kubeconfig } : {}),
    httpListen: parseHostPort(pick(inputs, 'http-listen', 'K8S_COLLECTOR_HTTP_LISTEN')?.value ?? '0.0.0.0:8080', '--http-listen'),
    logLevel: (level?.value ?? 'info') as CollectorConfig['logLevel'],
    logFormat: (format?.value ?? (inputs.stderrIsTty ? 'pretty' : 'json')) as CollectorConfig['logFormat'],
  }
}
