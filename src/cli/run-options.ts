// The options of `k8s-collector run`, one row each (docs/behaviour.md §4, §6, §7, §11, §12), and the
// configuration they resolve to. README.md's flag table is generated from this table.
import { defaultIdentity, validateElectionTiming, validateLeaseRef } from '../lease/config.ts'
import { LOG_OPTIONS } from './log-options.ts'
import { defaultKubeconfig, kubeconfigPath, SERVICE_ACCOUNT, type KubeconfigSource } from './kubeconfig-source.ts'
import { computed, resolveOptions, type Check, type OptionInputs, type OptionTable, type Values } from './options.ts'
import { boolean, formatHostPort, hostName, hostPort, integer, keyValues, oneOf, positiveSeconds, text } from './value-types.ts'

const seconds = (min: number, max: number) => integer({ min, max, hint: 'SECONDS', unit: 'seconds' })
const count = (min: number, max: number) => integer({ min, max, hint: 'N' })
const versionPart = integer({ min: 0, max: 0xffffffff, hint: 'N' })

/** `run`'s options in help and README order; the rules across them are in RUN_CHECKS. */
export const RUN_OPTIONS = {
  intakeHost: { flag: 'intake-host', env: 'EBPF_NET_INTAKE_HOST', type: hostName, default: '127.0.0.1', help: 'reducer host; a DNS name is resolved on every connection attempt' },
  intakePort: { flag: 'intake-port', env: 'EBPF_NET_INTAKE_PORT', type: integer({ min: 1, max: 65535, hint: 'PORT' }), default: '8000', help: 'reducer port' },
  deleteTtlSecs: { flag: 'delete-ttl-secs', env: 'K8S_COLLECTOR_DELETE_TTL_SECS', type: seconds(0, 86_400), default: '60', help: 'how long a deleted ReplicaSet/Job stays resolvable' },
  deleteCapacity: { flag: 'delete-capacity', env: 'K8S_COLLECTOR_DELETE_CAPACITY', type: count(0, 10_000_000), default: '10000', help: 'deleted owners kept at most (oldest dropped first)' },
  waitingLimit: { flag: 'waiting-limit', env: 'K8S_COLLECTOR_WAITING_LIMIT', type: count(1, 10_000_000), default: '10000', help: 'pods waiting for their owner that force an owner relist and a new epoch' },
  heartbeatIntervalSecs: {
    flag: 'heartbeat-interval-sec',
    env: 'K8S_COLLECTOR_HEARTBEAT_INTERVAL_SEC',
    type: seconds(1, 25),
    default: '2',
    help: 'heartbeat and `collector_health` period (the reducer drops a connection silent for 30 s)',
  },
  reducerSilenceLimitSecs: {
    flag: 'reducer-silence-limit-secs',
    env: 'K8S_COLLECTOR_REDUCER_SILENCE_LIMIT_SECS',
    type: seconds(5, 600),
    default: '20',
    help: 'drop the reducer connection when the reducer acknowledges nothing for this long while bytes wait (`peer_silent`)',
  },
  primingTimeoutSecs: { flag: 'priming-timeout-secs', env: 'K8S_COLLECTOR_PRIMING_TIMEOUT_SECS', type: seconds(1, 3600), default: '60', help: 'connect without a stream whose initial list has not completed by then' },
  hostname: { flag: 'hostname', env: 'K8S_COLLECTOR_HOSTNAME', type: text('NAME', 'text'), default: computed('OS hostname', (ctx) => ctx.osHostname.trim()), help: '`connect.hostname` and `set_node_info.instance_id`' },
  labels: { flag: 'label', type: keyValues({ key: 20, value: 40 }), default: '', help: 'sent as `set_config_label`, in the order given' },
  majorVersion: { env: 'EBPF_NET_MAJOR_VERSION', type: versionPart, default: '0', help: '`version_info` sent to the reducer: major' },
  minorVersion: { env: 'EBPF_NET_MINOR_VERSION', type: versionPart, default: '11', help: '`version_info`: minor (below 0.9.0 is a start-up error: the reducer would refuse it)' },
  patchVersion: { env: 'EBPF_NET_PATCH_VERSION', type: versionPart, default: '0', help: '`version_info`: patch' },
  kubeconfig: { flag: 'kubeconfig', env: 'KUBECONFIG', type: kubeconfigPath, default: defaultKubeconfig, help: 'how to reach the API server' },
  apiSilenceLimitSecs: {
    flag: 'api-silence-limit-secs',
    env: 'K8S_COLLECTOR_API_SILENCE_LIMIT_SECS',
    type: seconds(10, 600),
    default: '30',
    help: 'tear down a list or watch request that gets nothing from the API server for this long (`peer_silent`); over HTTP/1.1 watches ask the server to end them after ½ to ⅔ of it; over HTTP/2 the shared connection gets a PING after this long without a frame and is closed as dead when no answer comes within half of it (`ping_timeout`)',
  },
  apiCompression: {
    flag: 'api-compression',
    env: 'K8S_COLLECTOR_API_COMPRESSION',
    type: oneOf(['gzip', 'none'] as const),
    default: 'gzip',
    help: 'ask the API server for gzip-compressed responses: it compresses streaming lists and LISTs past 128 KiB (13× fewer bytes to sync 10k pods), never ordinary watches; the collector decodes every gzip member (sync CPU: Node the same, Deno +7 %; on Deno the lists then go over HTTP/2, ~9 MB more RSS at 10k pods: bench/README.md "Compression"). `none` asks for uncompressed responses'
  },
  apiList: {
    flag: 'api-list',
    env: 'K8S_COLLECTOR_API_LIST',
    type: oneOf(['streaming', 'pages'] as const),
    default: 'streaming',
    help: 'how to list: `streaming` asks for streaming lists (`sendInitialEvents`, 3 requests to sync; paginated LIST where the server has none), as client-go\'s informers do since v1.35; `pages` always lists by paginated LIST (`--api-page-size` objects a page): at 10k pods on kube-apiserver v1.37 half its CPU and a third of its heap allocations for the sync (the streaming list\'s per-pod garbage), the same bytes, 29 requests instead of 6, ~9 MB more collector RSS (bench/README.md "List modes")',
  },
  apiPageSize: {
    flag: 'api-page-size',
    env: 'K8S_COLLECTOR_API_PAGE_SIZE',
    type: count(1, 10_000),
    default: '500',
    help: 'objects per paginated LIST page (`limit`), client-go\'s 500 by default; a page is read whole, so the collector holds up to this many objects\' bytes at once (~2 KB a pod as protobuf). Larger pages cost kube-apiserver fewer allocations: at 10k pods on v1.37, 37 MB at 500, 18 MB at 5,000 (bench/README.md "List modes")',
  },
  apiEncoding: {
    flag: 'api-encoding',
    env: 'K8S_COLLECTOR_API_ENCODING',
    type: oneOf(['protobuf', 'json'] as const),
    default: 'protobuf',
    help: 'what pods are asked for in: `protobuf` first and JSON second, as client-go does (0.6× the bytes of JSON; a streaming list of pods costs kube-apiserver v1.37 a third of its CPU as JSON: bench/README.md "Where kube-apiserver\'s time goes"); a server or proxy that answers JSON is read as JSON. `json` asks for JSON only. ReplicaSets and Jobs are read as JSON metadata either way',
  },
  httpListen: { flag: 'http-listen', env: 'K8S_COLLECTOR_HTTP_LISTEN', type: hostPort, default: '0.0.0.0:8080', help: '`/healthz`, `/readyz` and `/metrics` listener' },
  leaderElect: {
    flag: 'leader-elect',
    env: 'K8S_COLLECTOR_LEADER_ELECT',
    type: boolean,
    default: 'false',
    help: 'run as one of several replicas: only the holder of the Lease connects to the reducer, the others stay primed (warm standby)',
  },
  leaseNamespace: {
    flag: 'lease-namespace',
    env: 'K8S_COLLECTOR_LEASE_NAMESPACE',
    type: text('NAMESPACE', 'namespace name'),
    default: computed('the in-cluster service account\'s namespace, else `default`', (ctx) => ctx.readTextFile(`${SERVICE_ACCOUNT}/namespace`)?.trim() || 'default'),
    help: 'namespace of the leader-election Lease',
  },
  leaseName: { flag: 'lease-name', env: 'K8S_COLLECTOR_LEASE_NAME', type: text('NAME', 'object name'), default: 'k8s-collector', help: 'name of the leader-election Lease' },
  leaseDurationSecs: {
    flag: 'lease-duration-secs',
    type: integer({ min: 1, max: 3600, hint: 'SECONDS', unit: 'seconds' }),
    default: '15',
    help: 'how long a standby waits, after the Lease last changed, before taking it from a silent leader',
  },
  leaseRenewDeadlineSecs: {
    flag: 'lease-renew-deadline-secs',
    type: positiveSeconds,
    default: '10',
    help: 'a leader that has not renewed the Lease for this long closes its reducer connection and stands by',
  },
  leaseRetryPeriodSecs: { flag: 'lease-retry-period-secs', type: positiveSeconds, default: '2', help: 'time between attempts to acquire or renew the Lease' },
  identity: {
    flag: 'identity',
    env: 'K8S_COLLECTOR_IDENTITY',
    type: text('NAME', 'text'),
    default: computed('`<OS hostname>_<random UUID>`', (ctx) => defaultIdentity(ctx.osHostname.trim())),
    help: 'this replica\'s holder identity in the Lease; unique per replica',
  },
  ...LOG_OPTIONS,
  printConfig: { flag: 'print-config', type: boolean, default: 'false', help: 'print the effective configuration as JSON and exit' },
} satisfies OptionTable

type RunValues = Values<typeof RUN_OPTIONS>

const RUN_CHECKS: readonly Check<typeof RUN_OPTIONS>[] = [
  (v) => (v.hostname ? undefined : 'the OS hostname is empty; set --hostname'),
  // The reducer refuses version_info below 0.9.0 (docs/protocol.md §1.4): fail at start-up instead.
  (v, show) =>
    v.majorVersion === 0 && v.minorVersion < 9
      ? `collector version ${v.majorVersion}.${v.minorVersion}.${v.patchVersion} (${show('majorVersion')}, ${show('minorVersion')}) is below 0.9.0; the reducer would refuse it`
      : undefined,
  (v, show) => {
    const problem = validateElectionTiming({ leaseDurationMs: v.leaseDurationSecs * 1000, renewDeadlineMs: v.leaseRenewDeadlineSecs * 1000, retryPeriodMs: v.leaseRetryPeriodSecs * 1000 })
    return problem && `${problem} (${show('leaseDurationSecs')}, ${show('leaseRenewDeadlineSecs')}, ${show('leaseRetryPeriodSecs')})`
  },
  (v, show) => {
    const problem = validateLeaseRef({ namespace: v.leaseNamespace, name: v.leaseName })
    return problem && `${problem} (${show('leaseNamespace')}, ${show('leaseName')})`
  },
]

/** Leader election as configured (docs/behaviour.md §11); durations in seconds, as typed. */
export interface LeaderElectionConfig {
  readonly namespace: string
  readonly name: string
  readonly identity: string
  readonly leaseDurationSecs: number
  readonly renewDeadlineSecs: number
  readonly retryPeriodSecs: number
}

/** The rows that make up {@link LeaderElectionConfig}. */
type LeaseKeys = 'leaderElect' | 'leaseNamespace' | 'leaseName' | 'leaseDurationSecs' | 'leaseRenewDeadlineSecs' | 'leaseRetryPeriodSecs' | 'identity'

/** What `run` needs: the table's values, with the wire version as one field and the kubeconfig path for the loader. */
export type CollectorConfig = Omit<RunValues, 'majorVersion' | 'minorVersion' | 'patchVersion' | 'kubeconfig' | 'printConfig' | LeaseKeys> & {
  readonly version: { readonly major: number; readonly minor: number; readonly patch: number }
  /** With `--leader-elect`; absent, the collector connects to the reducer as soon as it is primed. */
  readonly leaderElection?: LeaderElectionConfig
  /** `--kubeconfig`, else unset: the loader reads `KUBECONFIG` (a list) and the defaults itself. */
  readonly kubeconfig?: string
  readonly kubeconfigSource: KubeconfigSource
}

/** Resolves `run`'s options; throws {@link ConfigError} listing every bad input. */
export function resolveRunConfig(inputs: OptionInputs): { config: CollectorConfig; printConfig: boolean } {
  const values = resolveOptions(RUN_OPTIONS, inputs, RUN_CHECKS)
  const { majorVersion, minorVersion, patchVersion, kubeconfig, printConfig, leaderElect, leaseNamespace, leaseName, leaseDurationSecs, leaseRenewDeadlineSecs, leaseRetryPeriodSecs, identity, ...rest } = values
  const leaderElection: LeaderElectionConfig = {
    namespace: leaseNamespace,
    name: leaseName,
    identity,
    leaseDurationSecs,
    renewDeadlineSecs: leaseRenewDeadlineSecs,
    retryPeriodSecs: leaseRetryPeriodSecs,
  }
  const config: CollectorConfig = {
    ...rest,
    version: { major: majorVersion, minor: minorVersion, patch: patchVersion },
    ...(leaderElect ? { leaderElection } : {}),
    ...(kubeconfig.source === 'flag' ? { kubeconfig: kubeconfig.path } : {}),
    kubeconfigSource: kubeconfig,
  }
  return { config, printConfig }
}

/** `--print-config`'s JSON: the values as one would type them (labels `key=value`, listener `host:port`). */
export function printableConfig(config: CollectorConfig): Record<string, unknown> {
  const { kubeconfig: _flagPath, kubeconfigSource, ...rest } = config
  const { major, minor, patch } = config.version
  return {
    ...rest,
    labels: config.labels.map(([k, v]) => `${k}=${v}`),
    httpListen: formatHostPort(config.httpListen),
    version: `${major}.${minor}.${patch}`,
    kubeconfig: kubeconfigSource,
    leaderElection: config.leaderElection ?? null,
  }
}
