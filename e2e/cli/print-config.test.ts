// `run --print-config` of the built CLI: the effective configuration, the kubeconfig it would use
// (flag, KUBECONFIG, ~/.kube/config, in-cluster) and labels as key=value.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { RUNTIMES } from '../harness/process.ts'

const dir = mkdtempSync(join(tmpdir(), 'cli-print-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const emptyHome = join(dir, 'empty-home')
const home = join(dir, 'home')
mkdirSync(emptyHome)
mkdirSync(join(home, '.kube'), { recursive: true })
writeFileSync(join(home, '.kube', 'config'), 'apiVersion: v1\nkind: Config\n')

/** The printed configuration; the environment holds only what the case gives (and PATH). */
function printConfig(args: string[], env: Record<string, string>): Record<string, unknown> {
  const [node, ...prefix] = RUNTIMES.node!
  const r = spawnSync(node!, [...prefix, 'run', '--print-config', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 })
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  return JSON.parse(r.stdout) as Record<string, unknown>
}

it('--kubeconfig wins over KUBECONFIG; labels print as key=value, flags and variables as resolved', () => {
  const c = printConfig(['--kubeconfig', '/etc/kc.yaml', '--label', 'env=prod', '--label', 'team=a=b', '--intake-port', '7000'], {
    HOME: home,
    KUBECONFIG: '/elsewhere',
    EBPF_NET_INTAKE_PORT: '6000',
    K8S_COLLECTOR_DELETE_TTL_SECS: '5',
    EBPF_NET_MINOR_VERSION: '12',
  })
  expect(c).toMatchObject({
    kubeconfig: { source: 'flag', path: '/etc/kc.yaml' },
    labels: ['env=prod', 'team=a=b'],
    intakePort: 7000,
    deleteTtlSecs: 5,
    version: '0.12.0',
    httpListen: '0.0.0.0:8080',
    logFormat: 'json',
  })
})

it('KUBECONFIG (a list is passed on whole) over ~/.kube/config', () => {
  expect(printConfig([], { HOME: home, KUBECONFIG: '/a.yaml:/b.yaml' }).kubeconfig).toEqual({ source: 'KUBECONFIG', path: '/a.yaml:/b.yaml' })
})

it('~/.kube/config when it exists', () => {
  expect(printConfig([], { HOME: home }).kubeconfig).toEqual({ source: 'default file', path: join(home, '.kube', 'config') })
})

it('then the in-cluster service account, else none', () => {
  // This machine is not a pod unless the service account token is mounted; the unit tests cover both.
  const inCluster = existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token')
  expect(printConfig([], { HOME: emptyHome }).kubeconfig).toEqual(
    inCluster ? { source: 'in-cluster', path: '/var/run/secrets/kubernetes.io/serviceaccount' } : { source: 'none' },
  )
})
