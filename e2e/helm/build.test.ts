// The pinned helm's build and resolution: the one-line failures of `npm run helm -- --build-only`
// without Go or with a K8S_COLLECTOR_HELM that names no file, and the build's stamps.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'vitest'
import { exec } from '../harness/exec.ts'
import { root } from '../harness/process.ts'
import { HELM_VERSION } from './build.ts'
import { helm } from './chart.ts'

async function buildOnly(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return exec(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'e2e', 'helm', 'cli.ts'), '--build-only'], { env, timeoutMs: 60_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  )
}

describe('helm build', () => {
  it('without a Go toolchain: one line saying so, exit 2', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'helm-nogo-'))
    try {
      const { code, stderr } = await buildOnly({ PATH: join(process.execPath, '..'), HOME: cache, XDG_CACHE_HOME: cache })
      assert.equal(code, 2)
      assert.equal(stderr.trim().split('\n').at(-1), 'helm: no Go toolchain: `go` is not on PATH (install Go 1.26 or newer, or set K8S_COLLECTOR_HELM to a helm binary)')
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  })

  it('K8S_COLLECTOR_HELM naming no file: one line, exit 2', async () => {
    const { code, stderr } = await buildOnly({ ...process.env, K8S_COLLECTOR_HELM: '/nonexistent/helm' })
    assert.equal(code, 2)
    assert.equal(stderr.trim(), `helm: helm ${HELM_VERSION} missing: no /nonexistent/helm; K8S_COLLECTOR_HELM names no file`)
  })

  it('the cached helm is the pinned version and assumes the Kubernetes of its client-go, not v1.20', async () => {
    assert.match(await helm(['version', '--template', '{{.Version}}']), new RegExp(`^${HELM_VERSION.replaceAll('.', '\\.')}$`))
    // Without a cluster, .Capabilities.KubeVersion is what the build stamped (the chart needs >= 1.25).
    const out = await helm(['template', 'x', join(root, 'charts', 'k8s-collector'), '--show-only', 'templates/deployment.yaml'])
    assert.match(out, /kind: Deployment/)
  })
})
