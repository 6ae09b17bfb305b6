// The control plane's build and binary resolution: the staging pins read from Kubernetes' own
// go.mod, and the one-line failures of `--build-only` without Go or without prebuilt binaries.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'vitest'
import { exec } from '../harness/exec.ts'
import { root } from '../harness/process.ts'
import { stagingReplaces } from './build.ts'

const GO_MOD = `module k8s.io/kubernetes

require (
\tgithub.com/spf13/cobra v1.10.2
\tk8s.io/api v0.0.0
\tk8s.io/client-go v0.0.0
\tk8s.io/utils v0.0.0-20260626114624-be93311217bd
)

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/client-go => ./staging/src/k8s.io/client-go
\tk8s.io/sample-controller => ./staging/src/k8s.io/sample-controller
)
`

/** `--build-only` with `env`; resolves with its exit code and stderr. */
async function buildOnly(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return exec(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'e2e', 'k8s', 'cli.ts'), '--build-only'], { env, timeoutMs: 60_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  )
}

describe('control plane build', () => {
  it('pins each required staging module to the published tag of the release', () => {
    assert.deepEqual(stagingReplaces(GO_MOD, 'v1.37.2'), [
      'k8s.io/api => k8s.io/api v0.37.2',
      'k8s.io/client-go => k8s.io/client-go v0.37.2',
    ])
  })

  it('without a Go toolchain: one line saying so, exit 2', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'cp-nogo-'))
    try {
      // PATH holds node only: no `go`. An empty cache: nothing built yet.
      const { code, stderr } = await buildOnly({ PATH: join(process.execPath, '..'), HOME: cache, XDG_CACHE_HOME: cache })
      assert.equal(code, 2)
      assert.match(stderr, /^control-plane: no Go toolchain: `go` is not on PATH/m)
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  })

  it('prebuilt binaries missing: one line naming them and the folder, exit 2', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'cp-bin-'))
    try {
      const { code, stderr } = await buildOnly({ ...process.env, K8S_COLLECTOR_CONTROL_PLANE_BIN: bin })
      assert.equal(code, 2)
      assert.equal(stderr.trim(), `control-plane: control plane binaries missing in ${bin} (K8S_COLLECTOR_CONTROL_PLANE_BIN): etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok; put them in K8S_COLLECTOR_CONTROL_PLANE_BIN`)
    } finally {
      rmSync(bin, { recursive: true, force: true })
    }
  })
})
