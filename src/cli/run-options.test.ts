import { parseArgs } from 'citty'
import { describe, expect, it } from 'vitest'
import { cittyArgs, ConfigError, type DefaultContext, type OptionTable } from './options.ts'
import { printableConfig, resolveRunConfig, RUN_OPTIONS } from './run-options.ts'

interface Given {
  argv?: string[]
  env?: Record<string, string>
  osHostname?: string
  stderrIsTty?: boolean
  files?: string[]
  /** Files with their text (readable by the defaults). */
  texts?: Record<string, string>
}
const args = cittyArgs(RUN_OPTIONS)
const resolve = ({ argv = [], env = {}, osHostname = 'node-a', stderrIsTty = false, files = [], texts = {} }: Given = {}) => {
  const context: DefaultContext = { env, osHostname, stdoutIsTty: false, stderrIsTty, fileExists: (p) => files.includes(p) || p in texts, readTextFile: (p) => texts[p] }
  return resolveRunConfig({ argv, parsed: parseArgs(argv, args), context })
}
const config = (given: Given = {}) => resolve(given).config

describe('resolveRunConfig', () => {
  it('applies the documented defaults', () => {
    const { config: c, printConfig } = resolve()
    expect(c).toEqual({
      intakeHost: '127.0.0.1',
      intakePort: 8000,
      deleteTtlSecs: 60,
      deleteCapacity: 10_000,
      waitingLimit: 10_000,
      heartbeatIntervalSecs: 2,
      reducerSilenceLimitSecs: 20,
      primingTimeoutSecs: 60,
      hostname: 'node-a',
      labels: [],
      apiSilenceLimitSecs: 30,
      apiCompression: 'gzip',
      apiList: 'streaming',
      apiPageSize: 500,
      apiEncoding: 'protobuf',
      httpListen: { host: '0.0.0.0', port: 8080 },
      logLevel: 'info',
      logFormat: 'json',
      version: { major: 0, minor: 11, patch: 0 },
      kubeconfigSource: { source: 'none' },
    })
    expect(printConfig).toBe(false)
    expect(config({ stderrIsTty: true }).logFormat).toBe('pretty')
  })

  // Every row with both a flag and a variable: the variable over the default, the flag over both.
  const both = Object.values(RUN_OPTIONS as OptionTable).filter((o) => o.flag && o.env && o.flag !== 'kubeconfig' && !o.type.switch)
  const sample: Record<string, [string, string]> = {
    'lease-namespace': ['ns-a', 'ns-b'],
    'intake-host': ['reducer.ns.svc', 'other.host'],
    hostname: ['kc-host', 'other-host'],
    'http-listen': ['127.0.0.1:9000', ':9001'],
    'log-level': ['debug', 'warn'],
    'log-format': ['json', 'pretty'],
    'reducer-silence-limit-secs': ['25', '40'],
    'api-silence-limit-secs': ['45', '60'],
    'api-compression': ['gzip', 'none'],
    'api-list': ['streaming', 'pages'],
    'api-encoding': ['protobuf', 'json'],
  }
  it.each(both.map((o) => [o.flag!, o.env!] as const))('--%s over %s over the default', (flag, env) => {
    const [fromFlag, fromEnv] = sample[flag] ?? ['3', '4']
    // Leader election on (its rows print only then) with a fixed identity (the default is random).
    const base = { K8S_COLLECTOR_LEADER_ELECT: 'true', K8S_COLLECTOR_IDENTITY: 'fixed' }
    const shown = (given: Given) => JSON.stringify(printableConfig(config({ ...given, env: { ...base, ...given.env } })))
    const byEnv = shown({ env: { [env]: fromEnv } })
    expect(byEnv).not.toBe(shown({}))
    expect(shown({ env: { [env]: fromEnv }, argv: [`--${flag}`, fromFlag] })).not.toBe(byEnv)
    expect(shown({ env: { [env]: fromEnv }, argv: [`--${flag}`, fromFlag] })).toBe(shown({ argv: [`--${flag}=${fromFlag}`] }))
  })

  it('reads the wire version from EBPF_NET_*_VERSION', () => {
    expect(config({ env: { EBPF_NET_MAJOR_VERSION: '1', EBPF_NET_MINOR_VERSION: '2', EBPF_NET_PATCH_VERSION: '3' } }).version).toEqual({ major: 1, minor: 2, patch: 3 })
    expect(config({ env: { EBPF_NET_MINOR_VERSION: '9' } }).version).toEqual({ major: 0, minor: 9, patch: 0 })
  })

  it('parses repeated labels in order', () => {
    expect(config({ argv: ['--label', 'env=prod', '--label=team=a=b', '--label', 'empty='] }).labels).toEqual([
      ['env', 'prod'],
      ['team', 'a=b'],
      ['empty', ''],
    ])
  })

  it('accepts label lengths measured in characters, not bytes', () => {
    expect(config({ argv: ['--label', 'é'.repeat(20) + '=' + 'ü'.repeat(40)] }).labels[0]![0]).toHaveLength(20)
  })

  it.each<[Given, string]>([
    [{ env: { EBPF_NET_MINOR_VERSION: '8' } }, 'collector version 0.8.0 (EBPF_NET_MAJOR_VERSION (default 0), EBPF_NET_MINOR_VERSION=8) is below 0.9.0; the reducer would refuse it'],
    [{ env: { EBPF_NET_MAJOR_VERSION: 'x' } }, 'EBPF_NET_MAJOR_VERSION="x" is not a whole number'],
    [{ argv: ['--intake-port', '0'] }, '--intake-port="0" is out of range (1–65535)'],
    [{ argv: ['--intake-port', '80a'] }, '--intake-port="80a" is not a whole number'],
    [{ env: { EBPF_NET_INTAKE_PORT: '70000' } }, 'EBPF_NET_INTAKE_PORT="70000" is out of range (1–65535)'],
    [{ argv: ['--intake-host', 'a b'] }, '--intake-host="a b" is not a host name or address'],
    [{ argv: ['--intake-host'] }, '--intake-host needs a value'],
    [{ argv: ['--label', 'novalue'] }, '--label="novalue" is not key=value'],
    [{ argv: ['--label', 'k'.repeat(21) + '=v'] }, `--label="${'k'.repeat(21)}=v" has a key longer than 20 characters`],
    [{ argv: ['--label', 'k=' + 'v'.repeat(41)] }, `--label="k=${'v'.repeat(41)}" has a value longer than 40 characters`],
    [{ argv: ['--log-level', 'loud'] }, '--log-level="loud" is not one of silent, error, warn, info, debug, trace'],
    [{ env: { K8S_COLLECTOR_LOG_FORMAT: 'xml' } }, 'K8S_COLLECTOR_LOG_FORMAT="xml" is not one of pretty, json'],
    [{ argv: ['--http-listen', 'nope'] }, '--http-listen="nope" is not HOST:PORT (e.g. 0.0.0.0:8080)'],
    [{ argv: ['--heartbeat-interval-sec', '30'] }, '--heartbeat-interval-sec="30" is out of range (1–25)'],
    [{ argv: ['--api-silence-limit-secs', '5'] }, '--api-silence-limit-secs="5" is out of range (10–600)'],
    [{ osHostname: ' ' }, 'the OS hostname is empty; set --hostname'],
    [{ argv: ['--no-intake-port'] }, 'unknown option --no-intake-port'],
  ])('rejects bad input with one clear line: %j', (given, message) => {
    expect(() => resolve(given)).toThrowError(ConfigError)
    expect(() => resolve(given)).toThrowError(new ConfigError(message))
  })

  it('reports all bad inputs at once, one line each', () => {
    expect(() => resolve({ argv: ['--intake-port', '0', '--delete-ttl-secs', '-1'], env: { K8S_COLLECTOR_LOG_LEVEL: 'loud' } })).toThrowError(
      new ConfigError(
        ['--intake-port="0" is out of range (1–65535)', '--delete-ttl-secs="-1" is not a whole number', 'K8S_COLLECTOR_LOG_LEVEL="loud" is not one of silent, error, warn, info, debug, trace'].join('\n'),
      ),
    )
  })
})

describe('leader election', () => {
  const namespaceFile = '/var/run/secrets/kubernetes.io/serviceaccount/namespace'

  it('is off by default; --leader-elect or K8S_COLLECTOR_LEADER_ELECT=true turns it on with client-go\'s timing', () => {
    expect(config().leaderElection).toBeUndefined()
    expect(config({ env: { K8S_COLLECTOR_LEADER_ELECT: 'false' } }).leaderElection).toBeUndefined()
    const on = config({ argv: ['--leader-elect'], osHostname: 'collector-abc' }).leaderElection
    expect(on).toEqual({
      namespace: 'default',
      name: 'k8s-collector',
      identity: expect.stringMatching(/^collector-abc_[0-9a-f-]{36}$/),
      leaseDurationSecs: 15,
      renewDeadlineSecs: 10,
      retryPeriodSecs: 2,
    })
    expect(config({ env: { K8S_COLLECTOR_LEADER_ELECT: 'true' } }).leaderElection).toBeDefined()
    expect(config({ env: { K8S_COLLECTOR_LEADER_ELECT: 'true' }, argv: ['--no-leader-elect'] }).leaderElection).toBeUndefined()
  })

  it('takes the Lease namespace from the flag, the variable, the service account, else default', () => {
    const ns = (given: Given) => config({ ...given, argv: ['--leader-elect', ...(given.argv ?? [])] }).leaderElection!.namespace
    expect(ns({ texts: { [namespaceFile]: 'monitoring\n' } })).toBe('monitoring')
    expect(ns({ texts: { [namespaceFile]: 'monitoring' }, env: { K8S_COLLECTOR_LEASE_NAMESPACE: 'obs' } })).toBe('obs')
    expect(ns({ texts: { [namespaceFile]: 'monitoring' }, env: { K8S_COLLECTOR_LEASE_NAMESPACE: 'obs' }, argv: ['--lease-namespace', 'x'] })).toBe('x')
    expect(ns({ texts: { [namespaceFile]: '  ' } })).toBe('default')
  })

  it('accepts fractional renew deadlines and retry periods, and a fixed identity', () => {
    const le = config({ argv: ['--leader-elect', '--lease-duration-secs', '3', '--lease-renew-deadline-secs', '2', '--lease-retry-period-secs', '0.4', '--identity', 'me'] }).leaderElection
    expect(le).toMatchObject({ leaseDurationSecs: 3, renewDeadlineSecs: 2, retryPeriodSecs: 0.4, identity: 'me' })
  })

  it.each<[Given, string]>([
    [
      { argv: ['--lease-renew-deadline-secs', '15'] },
      'the lease duration (15 s) must be greater than the renew deadline (15 s) (--lease-duration-secs (default 15), --lease-renew-deadline-secs=15, --lease-retry-period-secs (default 2))',
    ],
    [
      { argv: ['--lease-retry-period-secs', '9'] },
      'the renew deadline (10 s) must be greater than the retry period × 1.2 (10.8 s) (--lease-duration-secs (default 15), --lease-renew-deadline-secs (default 10), --lease-retry-period-secs=9)',
    ],
    [{ argv: ['--lease-duration-secs', '1.5'] }, '--lease-duration-secs="1.5" is not a whole number'],
    [{ argv: ['--lease-retry-period-secs', '0'] }, '--lease-retry-period-secs="0" is not a positive number'],
    [{ env: { K8S_COLLECTOR_LEADER_ELECT: 'yes' } }, 'K8S_COLLECTOR_LEADER_ELECT="yes" is not true or false'],
    [
      { env: { K8S_COLLECTOR_LEASE_NAME: 'My_Lease' } },
      'the lease name "My_Lease" is not a valid object name (RFC 1123 subdomain) (--lease-namespace (default the in-cluster service account\'s namespace, else `default`), K8S_COLLECTOR_LEASE_NAME=My_Lease)',
    ],
  ])('rejects %j', (given, message) => {
    expect(() => resolve(given)).toThrowError(new ConfigError(message))
  })

  it('prints the Lease and the timing, or null when off', () => {
    expect(printableConfig(config()).leaderElection).toBeNull()
    expect(printableConfig(config({ argv: ['--leader-elect', '--identity', 'me'] })).leaderElection).toEqual({
      namespace: 'default',
      name: 'k8s-collector',
      identity: 'me',
      leaseDurationSecs: 15,
      renewDeadlineSecs: 10,
      retryPeriodSecs: 2,
    })
  })
})

describe('the kubeconfig source', () => {
  const home = '/home/u'
  const file = '/home/u/.kube/config'
  const token = '/var/run/secrets/kubernetes.io/serviceaccount/token'
  it.each<[string, Given, unknown, string | undefined]>([
    ['--kubeconfig', { argv: ['--kubeconfig', '/k'], env: { KUBECONFIG: '/e', HOME: home }, files: [file, token] }, { source: 'flag', path: '/k' }, '/k'],
    ['KUBECONFIG', { env: { KUBECONFIG: '/a:/b', HOME: home }, files: [file, token] }, { source: 'KUBECONFIG', path: '/a:/b' }, undefined],
    ['~/.kube/config', { env: { HOME: home }, files: [file, token] }, { source: 'default file', path: file }, undefined],
    ['in-cluster', { env: { HOME: home }, files: [token] }, { source: 'in-cluster', path: '/var/run/secrets/kubernetes.io/serviceaccount' }, undefined],
    ['none', { env: { HOME: home } }, { source: 'none' }, undefined],
  ])('%s', (_, given, source, flagPath) => {
    const c = config(given)
    expect(c.kubeconfigSource).toEqual(source)
    // Only a flag's path goes to the loader: it reads KUBECONFIG (a list) and the defaults itself.
    expect(c.kubeconfig).toBe(flagPath)
  })
})

describe('printableConfig', () => {
  it('shows values as one would type them', () => {
    const c = config({ argv: ['--label', 'a=b', '--label', 'c=d=e', '--http-listen', '[::1]:9090', '--print-config'], env: { KUBECONFIG: '/k' } })
    expect(printableConfig(c)).toMatchObject({
      labels: ['a=b', 'c=d=e'],
      httpListen: '[::1]:9090',
      version: '0.11.0',
      kubeconfig: { source: 'KUBECONFIG', path: '/k' },
    })
    expect(printableConfig(c)).not.toHaveProperty('kubeconfigSource')
  })

  it('is asked for by --print-config', () => {
    expect(resolve({ argv: ['--print-config'] }).printConfig).toBe(true)
  })
})
