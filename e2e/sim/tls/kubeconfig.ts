// Kubeconfig YAML for the simulator: the CA, and either the admin client certificate or a bearer token.

export interface KubeconfigInput {
  server: string
  caCert: string
  auth: 'cert' | 'token'
  clientCert: string
  clientKey: string
  token: string
  /** Context/cluster/user name (default 'sim'). */
  name?: string
}

const b64 = (s: string) => btoa(s)

/** A kubeconfig with inline (base64) credentials that kubectl and @kubernetes/client-node both load. */
export function renderKubeconfig(k: KubeconfigInput): string {
  const name = k.name ?? 'sim'
  const user = k.auth === 'cert'
    ? [`    client-certificate-data: ${b64(k.clientCert)}`, `    client-key-data: ${b64(k.clientKey)}`]
    : [`    token: ${k.token}`]
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${k.server}`,
    `    certificate-authority-data: ${b64(k.caCert)}`,
    'users:',
    `- name: ${name}-admin`,
    '  user:',
    ...user,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}-admin`,
    '    namespace: default',
    `current-context: ${name}`,
    'preferences: {}',
    '',
  ].join('\n')
}
