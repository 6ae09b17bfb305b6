import { describe, expect, it } from 'vitest'
import { ConfigError, parseHostPort, resolveConfig, type ConfigInputs } from './config.ts'

const base: ConfigInputs = { flags: {}, labels: [], env: {}, osHostname: 'node-a', stderrIsTty: false }
const resolve = (over: Partial<ConfigInputs>) => resolveConfig({ ...base, ...over })

describe('resolveConfig', () => {
  it('applies the documented defaults', () => {
    const c = resolve({})
    expect(c).toMatchObject({
      intakeHost: '127.0.0.1',
      intakePort: 8000,
      deleteTtlSecs: 60,
      deleteCapacity: 10_000,
      waitingLimit: 10_000,
      heartbeatIntervalSecs: 2,
      primingTimeoutSecs: 60,
      hostname: 'node-a',
      labels: [],
      version: { major: 0, minor: 11, patch: 0 },
      httpListen: { host: '0.0.0.0', port: 8080 },
      logLevel: 'info',
      logFormat: 'json',
    })
    expect(c.kubeconfig).toBeUndefined()
    expect(resolve({ stderrIsTty: true }).logFormat).toBe('pretty')
  })

  it.each([
    ['intake-host', 'EBPF_NET_INTAKE_HOST', 'reducer.ns.svc', 'intakeHost', 'reducer.ns.svc'],
    ['intake-port', 'EBPF_NET_INTAKE_PORT', '7000', 'intakePort', 7000],
    ['delete-ttl-secs', 'K8S_COLLECTOR_DELETE_TTL_SECS', '5', 'deleteTtlSecs', 5],
    ['delete-capacity', 'K8S_COLLECTOR_DELETE_CAPACITY', '3', 'deleteCapacity', 3],
    ['hostname', 'K8S_COLLECTOR_HOSTNAME', 'kc-host', 'hostname', 'kc-host'],
  ] as const)('--%s and %s: the flag wins over the environment', (flag, env, value, key, expected) => {
    expect(resolve({ env: { [env]: value } })[key]).toEqual(expected)
    expect(resolve({ env: { [env]: 'ignored-9' }, flags: { [flag]: value } })[key]).toEqual(expected)
  })

  it('reads the wire version from EBPF_NET_*_VERSION', () => {
    expect(resolve({ env: { EBPF_NET_MAJOR_VERSION: '1', EBPF_NET_MINOR_VERSION: '2', EBPF_NET_PATCH_VERSION: '3' } }).version).toEqual({
      major: 1,
      minor: 2,
      patch: 3,
    })
    expect(resolve({ env: { EBPF_NET_MINOR_VERSION: '9' } }).version).toEqual({ major: 0, minor: 9, patch: 0 })
  })

  it('parses repeated labels in order', () => {
    expect(resolve({ labels: ['env=prod', 'team=a=b', 'empty='] }).labels).toEqual([
      ['env', 'prod'],
      ['team', 'a=b'],
      ['empty', ''],
    ])
  })

  it.each([
    [{ env: { EBPF_NET_MINOR_VERSION: '8' } }, /below 0\.9\.0/],
    [{ env: { EBPF_NET_MAJOR_VERSION: 'x' } }, /EBPF_NET_MAJOR_VERSION/],
    [{ flags: { 'intake-port': '0' } }, /--intake-port=0 is out of range/],
    [{ flags: { 'intake-port': '80a' } }, /not a whole number/],
    [{ env: { EBPF_NET_INTAKE_PORT: '70000' } }, /EBPF_NET_INTAKE_PORT=70000 is out of range/],
    [{ flags: { 'intake-host': 'a b' } }, /not a host name/],
    [{ flags: { 'intake-host': true } }, /--intake-host needs a value/],
    [{ labels: ['novalue'] }, /not key=value/],
    [{ labels: ['k'.repeat(21) + '=v'] }, /longer than 20/],
    [{ labels: ['k=' + 'v'.repeat(41)] }, /longer than 40/],
    [{ flags: { 'log-level': 'loud' } }, /not one of/],
    [{ flags: { 'log-format': 'xml' } }, /not pretty or json/],
    [{ flags: { 'http-listen': 'nope' } }, /not HOST:PORT/],
    [{ flags: { 'heartbeat-interval-sec': '30' } }, /out of range/],
  ] as const)('rejects bad input with one clear line: %j', (over, message) => {
    expect(() => resolve(over as Partial<ConfigInputs>)).toThrowError(ConfigError)
    expect(() => resolve(over as Partial<ConfigInputs>)).toThrowError(message)
  })

  it('accepts label lengths measured in characters, not bytes', () => {
    expect(resolve({ labels: ['é'.repeat(20) + '=' + 'ü'.repeat(40)] }).labels[0]![0]).toHaveLength(20)
  })
})

describe('parseHostPort', () => {
  it.each([
    ['0.0.0.0:8080', { host: '0.0.0.0', port: 8080 }],
    [':9000', { host: '0.0.0.0', port: 9000 }],
    ['[::1]:80', { host: '::1', port: 80 }],
    ['localhost:0', { host: 'localhost', port: 0 }],
  ])('%s', (text, expected) => expect(parseHostPort(text, 'x')).toEqual(expected))
  it.each(['8080', 'a:b', 'host:70000', ''])('rejects %j', (text) => expect(() => parseHostPort(text, 'x')).toThrow(ConfigError))
})
