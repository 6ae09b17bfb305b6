// The judge of the TLS matrix: kubectl with the case's kubeconfig, and the reason its error names
// (Go's crypto/tls and net/http words) in the collector's vocabulary (src/kube/transport-reason.ts).
import { execFile } from 'node:child_process'
import type { TransportReason } from '../../src/kube/transport-reason.ts'

/** What kubectl did: connected, or refused for a reason (`unclassified` when its words are not in the table). */
export interface KubectlVerdict {
  readonly outcome: 'connects' | TransportReason | 'unclassified'
  readonly output: string
}

// Go's messages, as kubectl 1.32 prints them after "Unable to connect to the server: ".
const GO_WORDS: ReadonlyArray<readonly [TransportReason, RegExp]> = [
  ['tls_unknown_authority', /certificate signed by unknown authority/],
  ['tls_expired', /certificate has expired or is not yet valid/],
  ['tls_wrong_name', /certificate is valid for|doesn't contain any IP SANs|legacy Common Name field|certificate is not valid for any names/],
  ['proxy', /proxyconnect|^Unable to connect to the server: Forbidden$/m],
  ['refused', /connection refused|was refused/],
  ['reset', /connection reset by peer|EOF/],
  ['tls_handshake', /tls: |server gave HTTP response to HTTPS client/],
]

/**
 * Runs `kubectl get pods --all-namespaces -o name` (discovery, then the list, under the server's path
 * prefix if any: `get --raw` would drop it) with `kubeconfig` (HOME in `home`, so no cache or config of the
 * machine is used).
 */
export function kubectlVerdict(kubeconfig: string, home: string, env: Record<string, string> = {}): Promise<KubectlVerdict> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, '--request-timeout', '10s', 'get', 'pods', '--all-namespaces', '-o', 'name'],
      { env: { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: '', ...env }, timeout: 20_000 },
      (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`.trim()
        if (!err) return resolve({ outcome: 'connects', output })
        const hit = GO_WORDS.find(([, re]) => re.test(stderr))
        resolve({ outcome: hit ? hit[0] : 'unclassified', output })
      },
    )
  })
}
