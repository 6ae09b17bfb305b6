// Kubeconfigs for the control plane: the same server and CA, with the credentials a test needs.

/** How a kubeconfig user authenticates. */
export type Credentials =
  | { readonly certFile: string; readonly keyFile: string }
  | { readonly certPem: string; readonly keyPem: string }
  | { readonly token: string }
  | { readonly tokenFile: string }

const b64 = (s: string) => Buffer.from(s).toString('base64')

/** A kubeconfig (JSON, which is YAML) for `server` trusting `caPem`, one context named `k8s`. */
export function kubeconfigYaml(server: string, caPem: string, credentials: Credentials): string {
  const user: Record<string, string> =
    'certFile' in credentials ? { 'client-certificate': credentials.certFile, 'client-key': credentials.keyFile }
      : 'certPem' in credentials ? { 'client-certificate-data': b64(credentials.certPem), 'client-key-data': b64(credentials.keyPem) }
        : 'token' in credentials ? { token: credentials.token }
          : { tokenFile: credentials.tokenFile }
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'k8s', cluster: { server, 'certificate-authority-data': b64(caPem) } }],
    users: [{ name: 'k8s', user }],
    contexts: [{ name: 'k8s', context: { cluster: 'k8s', user: 'k8s' } }],
    'current-context': 'k8s',
  }, null, 2) + '\n'
}
