// `npm run e2e`'s preflight as a process: without docker/kind/kubectl (or with a Docker client but
// no engine) it prints one line saying what is missing and exits 1. The tools are real executables
// on a PATH made for each case (shell scripts standing in for them); the suite itself needs Docker.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preflight } from './kind/preflight.ts'

const root = resolve(import.meta.dirname, '..')
let dir = ''
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kind-preflight-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const NO_ENGINE = 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?'
const SCRIPTS: Record<string, string> = {
  kind: 'echo "kind v0.27.0"',
  kubectl: 'echo "Client Version: v1.32.2"',
  'docker-no-engine': `echo "${NO_ENGINE}" >&2; exit 1`,
  'docker-ok': 'echo 27.5.1',
}

/** A directory holding the given stand-ins (`docker-ok` is installed as `docker`), for PATH. */
function pathWith(name: string, tools: string[]): string {
  const bin = join(dir, name)
  mkdirSync(bin)
  for (const t of tools) {
    const file = join(bin, t.replace(/-.*$/, ''))
    writeFileSync(file, `#!/bin/sh\n${SCRIPTS[t]}\n`)
    chmodSync(file, 0o755)
  }
  return bin
}

/** `npm run e2e` with only `path` on PATH. */
function runE2e(path: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(root, 'e2e/kind/run.ts')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 25_000,
    env: { HOME: process.env.HOME, PATH: path, NO_COLOR: '1' },
  })
}

describe('npm run e2e preflight', () => {
  it('names docker, kind and kubectl with where to get them when none is on PATH; exit 1, one line', () => {
    const run = runE2e(pathWith('none', []))
    expect(run.status).toBe(1)
    expect(run.stdout).toBe('')
    const lines = run.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^npm run e2e needs Docker, kind and kubectl: missing docker \(https:\/\/docs\.docker\.com\/[^)]*\), kind \(.*kind\.sigs\.k8s\.io.*\), kubectl \(https:\/\/kubernetes\.io\/docs\/tasks\/tools\/\)/)
  })

  it('names only docker when kind and kubectl are there', () => {
    const run = runE2e(pathWith('no-docker', ['kind', 'kubectl']))
    expect(run.status).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining('missing docker (')])
    expect(run.stderr).not.toMatch(/kind \(|kubectl \(/)
  })

  it('says the Docker engine does not answer when only the client is installed', () => {
    const run = runE2e(pathWith('no-engine', ['docker-no-engine', 'kubectl']))
    expect(run.status).toBe(1)
    const lines = run.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('missing kind (')
    expect(lines[0]).toContain(`docker is installed but no Docker engine answers (\`docker info\`: ${NO_ENGINE}); start one or set DOCKER_HOST`)
    expect(lines[0]).not.toContain('kubectl (')
  })

  it('passes when all three are there and docker info answers', async () => {
    expect(await preflight({ PATH: pathWith('all', ['docker-ok', 'kind', 'kubectl']) })).toBeUndefined()
  })
})
