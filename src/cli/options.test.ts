// The option-table machinery on a table shaped like the leader-election options to come: switches
// from the environment, per-option ranges, a cross-option rule, every bad input on its own line.
import { parseArgs } from 'citty'
import { describe, expect, it } from 'vitest'
import { cittyArgs, computed, ConfigError, resolveOptions, type Check, type DefaultContext } from './options.ts'
import { boolean, hostPortOrNone, integer, keyValues, text } from './value-types.ts'

const secs = (min: number, max: number) => integer({ min, max, hint: 'SECONDS', unit: 'seconds' })
const TABLE = {
  leaderElect: { flag: 'leader-elect', env: 'K8S_COLLECTOR_LEADER_ELECT', type: boolean, default: 'false', help: 'take part in leader election' },
  durationSecs: { flag: 'lease-duration-secs', env: 'K8S_COLLECTOR_LEASE_DURATION_SECS', type: secs(1, 600), default: '15', help: 'lease duration' },
  renewSecs: { flag: 'lease-renew-deadline-secs', env: 'K8S_COLLECTOR_LEASE_RENEW_DEADLINE_SECS', type: secs(1, 600), default: '10', help: 'renew deadline' },
  retrySecs: { flag: 'lease-retry-period-secs', env: 'K8S_COLLECTOR_LEASE_RETRY_PERIOD_SECS', type: secs(1, 600), default: '2', help: 'retry period' },
  identity: { flag: 'identity', env: 'K8S_COLLECTOR_IDENTITY', type: text('NAME', 'text'), default: computed('OS hostname', (ctx) => ctx.osHostname), help: 'identity' },
  http: { flag: 'http', type: hostPortOrNone, default: '0.0.0.0:8081', negated: 'none', help: 'listener' },
  labels: { flag: 'label', type: keyValues({ key: 5, value: 5 }), default: '', help: 'labels' },
  version: { env: 'K8S_COLLECTOR_TEST_VERSION', type: integer({ min: 0, max: 9, hint: 'N' }), default: '1', help: 'environment only' },
}
const CHECKS: readonly Check<typeof TABLE>[] = [
  (v, show) => (v.durationSecs > v.renewSecs ? undefined : `${show('durationSecs')} must be longer than ${show('renewSecs')}`),
  (v, show) => (v.renewSecs > v.retrySecs * 1.2 ? undefined : `${show('renewSecs')} must be longer than 1.2 × ${show('retrySecs')}`),
]

const context = (env: Record<string, string> = {}): DefaultContext => ({ env, osHostname: 'node-a', stdoutIsTty: false, stderrIsTty: false, fileExists: () => false, readTextFile: () => undefined })
const args = cittyArgs(TABLE)
const resolve = (argv: string[], env: Record<string, string> = {}) => resolveOptions(TABLE, { argv, parsed: parseArgs(argv, args), context: context(env) }, CHECKS)
const problems = (argv: string[], env: Record<string, string> = {}): string[] => {
  try {
    resolve(argv, env)
  } catch (err) {
    if (err instanceof ConfigError) return err.message.split('\n')
    throw err
  }
  throw new Error('no ConfigError')
}

describe('resolveOptions', () => {
  it('applies the defaults, computed ones on the machine', () => {
    expect(resolve([])).toEqual({ leaderElect: false, durationSecs: 15, renewSecs: 10, retrySecs: 2, identity: 'node-a', http: { host: '0.0.0.0', port: 8081 }, labels: [], version: 1 })
  })

  it('takes a flag over the environment over the default', () => {
    expect(resolve([], { K8S_COLLECTOR_LEASE_DURATION_SECS: '30' }).durationSecs).toBe(30)
    expect(resolve(['--lease-duration-secs', '20'], { K8S_COLLECTOR_LEASE_DURATION_SECS: '30' }).durationSecs).toBe(20)
    expect(resolve(['--lease-duration-secs=25']).durationSecs).toBe(25)
    expect(resolve([], { K8S_COLLECTOR_IDENTITY: 'me' }).identity).toBe('me')
    // An empty variable counts as unset.
    expect(resolve([], { K8S_COLLECTOR_LEASE_DURATION_SECS: '' }).durationSecs).toBe(15)
  })

  it('reads switches as flags and as true|false from the environment', () => {
    expect(resolve(['--leader-elect']).leaderElect).toBe(true)
    expect(resolve([], { K8S_COLLECTOR_LEADER_ELECT: 'true' }).leaderElect).toBe(true)
    expect(resolve([], { K8S_COLLECTOR_LEADER_ELECT: 'false' }).leaderElect).toBe(false)
    expect(resolve(['--no-leader-elect'], { K8S_COLLECTOR_LEADER_ELECT: 'true' }).leaderElect).toBe(false)
    expect(problems([], { K8S_COLLECTOR_LEADER_ELECT: 'yes' })).toEqual(['K8S_COLLECTOR_LEADER_ELECT="yes" is not true or false'])
  })

  it('reads an environment-only setting', () => {
    expect(resolve([], { K8S_COLLECTOR_TEST_VERSION: '7' }).version).toBe(7)
    expect(problems(['--version=7'])).toEqual(['unknown option --version'])
  })

  it('collects every value of a repeatable flag, in order', () => {
    expect(resolve(['--label', 'a=1', '--label=b=2=3']).labels).toEqual([
      ['a', '1'],
      ['b', '2=3'],
    ])
  })

  it('turns --no-<flag> into the negated value where the row has one', () => {
    expect(resolve(['--no-http']).http).toBeUndefined()
    expect(resolve(['--http', 'none']).http).toBeUndefined()
    expect(problems(['--no-identity'])).toEqual(['unknown option --no-identity'])
  })

  it('reports every bad input on its own line (an unknown option with its value), naming where it came from', () => {
    expect(problems(['--lease-duration-secs', '0', '--bogus', 'its-value', '--label', 'nokey', 'extra', '-x'], { K8S_COLLECTOR_LEASE_RETRY_PERIOD_SECS: '2.5' })).toEqual([
      'unknown option --bogus',
      'unknown option -x',
      'unexpected argument "extra"',
      '--lease-duration-secs="0" is out of range (1–600)',
      'K8S_COLLECTOR_LEASE_RETRY_PERIOD_SECS="2.5" is not a whole number',
      '--label="nokey" is not key=value',
    ])
  })

  it.each([
    [['--identity'], '--identity needs a value'],
    [['--identity='], '--identity needs a value'],
    [['--identity', '--leader-elect'], '--identity needs a value'],
    [['--label'], '--label needs a value'],
  ])('%j: %s', (argv, message) => {
    expect(problems(argv)).toContain(message)
  })

  it('checks rules across options once every option is valid, naming each input and its origin', () => {
    expect(problems(['--lease-renew-deadline-secs', '20'])).toEqual([
      '--lease-duration-secs (default 15) must be longer than --lease-renew-deadline-secs=20',
    ])
    expect(problems([], { K8S_COLLECTOR_LEASE_RETRY_PERIOD_SECS: '9' })).toEqual([
      '--lease-renew-deadline-secs (default 10) must be longer than 1.2 × K8S_COLLECTOR_LEASE_RETRY_PERIOD_SECS=9',
    ])
    expect(problems(['--lease-renew-deadline-secs', '20', '--lease-duration-secs', 'x'])).toEqual(['--lease-duration-secs="x" is not a whole number'])
  })
})

describe('cittyArgs', () => {
  it('makes a string argument per valued flag and a boolean per switch, with no citty defaults', () => {
    expect(args['lease-duration-secs']).toEqual({ type: 'string', valueHint: 'SECONDS', description: 'lease duration' })
    expect(args['leader-elect']).toEqual({ type: 'boolean', description: 'take part in leader election' })
    expect(Object.keys(args)).not.toContain('version')
  })
})
