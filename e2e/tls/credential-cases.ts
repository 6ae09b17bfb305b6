// The matrix's credential cases whose credentials change while the collector runs: a token file
// rotated under it, and an exec plugin whose tokens expire (kubectl and client-go semantics).
import { chmodSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMatrixServer } from './api-server.ts'
import { byIp, caData, must, waitUntil, writeFile, writeKubeconfig, type MatrixCase } from './case-kit.ts'

/** `tokenFile` rotated while the collector runs: the new token is used, the old one never again. */
export const tokenFileRotated: MatrixCase = {
  name: 'token file (tokenFile) rotated while running',
  kubectl: 'connects',
  async setUp(dir, pki) {
    // As a real rotation (a projected service-account token), the old token stays valid a while after the new one is written.
    const OVERLAP_MS = 1000
    let rotatedAt = Number.POSITIVE_INFINITY
    const accepts = (t: string): boolean => (t === 'rotating-token-b' ? rotatedAt <= Date.now() : t === 'rotating-token-a' && Date.now() < rotatedAt + OVERLAP_MS)
    const server = await startMatrixServer({ host: '127.0.0.1', ...pki.server, authn: { type: 'token', accepts } })
    // A trailing newline, as `echo token > file` writes it: kubectl and client-go trim it.
    const tokenFile = writeFile(dir, 'token', 'rotating-token-a\n')
    // kubectl's key; client-node knows only `token-file`, read once (src/kube/token-file.ts).
    const kubeconfig = writeKubeconfig(dir, { ...byIp(server.url), ...caData(pki) }, { tokenFile })
    return {
      server,
      kubeconfig,
      async check(c) {
        // Rotate once for all runtimes (the second collector starts with the new token in the file).
        if (rotatedAt === Number.POSITIVE_INFINITY) {
          writeFileSync(`${tokenFile}.tmp`, 'rotating-token-b\n')
          renameSync(`${tokenFile}.tmp`, tokenFile)
          rotatedAt = Date.now()
        }
        // Every watch with the old token ends, also one whose request was on its way at the rotation
        // (over HTTP/2 it would otherwise last its 5 to 10 minutes).
        await waitUntil(`${c.runtime}: a watch of every stream with the rotated token`, () => {
          server.endWatches((token) => token !== 'rotating-token-b')
          const rotated = c.requests().filter((r) => r.token === 'rotating-token-b' && r.status === 200 && r.query.has('watch'))
          return new Set(rotated.map((r) => r.path)).size === 3
        })
        const stale = c.requests().filter((r) => r.token !== 'rotating-token-b' && r.at >= rotatedAt + OVERLAP_MS)
        must(stale.length === 0, `${c.runtime}: ${stale.length} requests with the old token after the overlap`)
        const refused = c.requests().filter((r) => r.status === 401)
        must(refused.length === 0, `${c.runtime}: ${refused.length} requests refused (401)`)
      },
      close: () => server.close(),
    }
  },
}

/** An exec credential plugin printing tokens that expire in 2-3 s: refreshed at expiry, never sent expired. */
export const execPluginRefreshed: MatrixCase = {
  name: 'exec credential plugin, token refreshed at its expiry',
  kubectl: 'connects',
  async setUp(dir, pki) {
    // Tokens say when they expire (exec-<unix seconds>-<n>); the server refuses them 1 s after that.
    const accepts = (t: string): boolean => {
      const m = /^exec-(\d+)-\d+$/.exec(t)
      return m !== null && Date.now() < Number(m[1]) * 1000 + 1000
    }
    const server = await startMatrixServer({ host: '127.0.0.1', ...pki.server, authn: { type: 'token', accepts }, watchMs: 1500 })
    const script = writeFile(
      dir,
      'credential.sh',
      [
        '#!/bin/sh',
        'n=$(cat "$MATRIX_EXEC_STATE" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$MATRIX_EXEC_STATE"',
        'exp=$(( $(date +%s) + 3 ))',
        'printf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-%s-%s","expirationTimestamp":"%s"}}\\n\' "$exp" "$n" "$(date -u -d "@$exp" +%Y-%m-%dT%H:%M:%SZ)"',
        '',
      ].join('\n'),
    )
    chmodSync(script, 0o755)
    const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: script, env: [{ name: 'MATRIX_EXEC_STATE', value: join(dir, 'exec-state') }], interactiveMode: 'Never' }
    return {
      server,
      kubeconfig: writeKubeconfig(dir, { ...byIp(server.url), ...caData(pki) }, { exec }),
      async check(c) {
        await waitUntil(`${c.runtime}: requests with two successive exec tokens`, () => new Set(c.requests().filter((r) => r.status === 200).map((r) => r.token)).size >= 2, 15_000)
        const refused = c.requests().filter((r) => r.status === 401)
        must(refused.length === 0, `${c.runtime}: ${refused.length} requests refused (401): an expired exec token was sent`)
      },
      close: () => server.close(),
    }
  },
}
