// The kubectl parity matrix (issue 33, docs/kube-api.md "kubectl parity"): each case is an API
// server with the TLS material and authentication of one kubeconfig shape, the kubeconfig, what
// kubectl is expected to do with it, and what to check of a collector that connected.
import { startMatrixServer } from './api-server.ts'
import { b64, byIp, caData, certAuthn, must, simple, TOKEN, tokenAuthn, writeFile, writeKubeconfig, type MatrixCase } from './case-kit.ts'
import { startConnectProxy } from './connect-proxy.ts'
import { execPluginRefreshed, tokenFileRotated } from './credential-cases.ts'
import { createCa, createSelfSignedCaServer } from './pki.ts'

export { createSharedPki } from './case-kit.ts'
export type { CaseSetup, Connected, MatrixCase, SharedPki } from './case-kit.ts'

/** Every case, in the order of the table in docs/kube-api.md "kubectl parity". */
export const CASES: readonly MatrixCase[] = [
  simple('CA as data, bearer token', 'connects', async (_, pki) => ({ server: { ...pki.server }, cluster: (url) => ({ ...byIp(url), ...caData(pki) }) })),
  simple('CA as a file, client certificate and key as data', 'connects', async (dir, pki) => ({
    server: { ...pki.server, clientCaPem: pki.ca.certPem, authn: certAuthn },
    cluster: (url) => ({ server: url, 'certificate-authority': writeFile(dir, 'ca.crt', pki.ca.certPem) }),
    user: { 'client-certificate-data': b64(pki.client.certPem), 'client-key-data': b64(pki.client.keyPem) },
  })),
  simple('client certificate and key as files', 'connects', async (dir, pki) => ({
    server: { ...pki.server, clientCaPem: pki.ca.certPem, authn: certAuthn },
    cluster: (url) => ({ ...byIp(url), ...caData(pki) }),
    user: { 'client-certificate': writeFile(dir, 'client.crt', pki.client.certPem), 'client-key': writeFile(dir, 'client.key', pki.client.keyPem) },
  })),
  simple('serving certificate that is its own CA (openssl req -x509)', 'connects', async () => {
    const own = await createSelfSignedCaServer('kube-apiserver', ['ip:127.0.0.1', 'dns:localhost'])
    return { server: { ...own }, cluster: (url) => ({ server: url, 'certificate-authority-data': b64(own.certPem) }) }
  }),
  simple('intermediate CA chain (server sends leaf + intermediate)', 'connects', async (_, pki) => {
    const inter = await pki.ca.intermediate('matrix-intermediate')
    const leaf = await inter.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1'], usage: 'server' })
    return { server: { certPem: leaf.certPem + inter.certPem, keyPem: leaf.keyPem }, cluster: (url) => ({ ...byIp(url), ...caData(pki) }) }
  }),
  simple('IP-only subject alternative name, server by IP', 'connects', async (_, pki) => ({
    server: { ...(await pki.ca.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1'], usage: 'server' })) },
    cluster: (url) => ({ ...byIp(url), ...caData(pki) }),
  })),
  simple('DNS-only subject alternative name, server by name', 'connects', async (_, pki) => ({
    server: { ...(await pki.ca.leaf({ cn: 'kube-apiserver', san: ['dns:localhost'], usage: 'server' })) },
    cluster: (url) => ({ server: url.replace('127.0.0.1', 'localhost'), ...caData(pki) }),
  })),
  tokenFileRotated,
  execPluginRefreshed,
  simple('insecure-skip-tls-verify (a CA the kubeconfig does not hold)', 'connects', async () => {
    const stranger = await createCa('unknown-ca')
    return { server: { ...(await stranger.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1'], usage: 'server' })) }, cluster: (url) => ({ server: url, 'insecure-skip-tls-verify': true }) }
  }),
  simple('tls-server-name (certificate for another name than the URL)', 'connects', async (_, pki) => ({
    server: { ...(await pki.ca.leaf({ cn: 'kube-apiserver', san: ['dns:kube.internal'], usage: 'server' })) },
    cluster: (url) => ({ ...byIp(url), ...caData(pki), 'tls-server-name': 'kube.internal' }),
  })),
  {
    name: 'proxy-url through an HTTP CONNECT proxy',
    kubectl: 'connects',
    transport: 'node:https (proxy-url)',
    async setUp(dir, pki) {
      const server = await startMatrixServer({ host: '127.0.0.1', ...pki.server, authn: tokenAuthn })
      const proxy = await startConnectProxy()
      const target = `127.0.0.1:${server.port}`
      return {
        server,
        proxy,
        kubeconfig: writeKubeconfig(dir, { ...byIp(server.url), ...caData(pki), 'proxy-url': proxy.url }, { token: TOKEN }),
        async check(c) {
          // Every connection went through the proxy: the server saw requests, the proxy as many tunnels to it as there were connections.
          must(c.requests().length > 0, `${c.runtime}: no request reached the server`)
          must(proxy.connects.some((p) => p.target === target && p.status === 200), `${c.runtime}: the proxy tunnelled nothing to ${target}: ${JSON.stringify(proxy.connects)}`)
        },
        async close() {
          await proxy.close()
          await server.close()
        },
      }
    },
  },
  simple('server URL with a path prefix (Rancher-style proxy)', 'connects', async (_, pki) => ({
    server: { ...pki.server, prefix: '/k8s/clusters/c-m-matrix' },
    cluster: (url) => ({ ...byIp(url), ...caData(pki) }),
  })),
  simple('IPv6 loopback server', 'connects', async (_, pki) => ({ server: { ...pki.server, host: '::1' }, cluster: (url) => ({ ...byIp(url), ...caData(pki) }) })),

  // Where kubectl refuses, the collector refuses for the same reason.
  simple('wrong CA (certificate signed by an unknown authority)', 'tls_unknown_authority', async (_, pki) => {
    const stranger = await createCa('unknown-ca')
    return { server: { ...(await stranger.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1'], usage: 'server' })) }, cluster: (url) => ({ ...byIp(url), ...caData(pki) }) }
  }),
  simple('expired serving certificate', 'tls_expired', async (_, pki) => ({
    server: { ...(await pki.ca.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1'], usage: 'server', validDays: [-10, -5] })) },
    cluster: (url) => ({ ...byIp(url), ...caData(pki) }),
  })),
  simple('serving certificate not yet valid', 'tls_expired', async (_, pki) => ({
    server: { ...(await pki.ca.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1'], usage: 'server', validDays: [5, 10] })) },
    cluster: (url) => ({ ...byIp(url), ...caData(pki) }),
  })),
  simple('expired serving certificate from an unknown CA (Go checks dates first)', 'tls_expired', async (_, pki) => {
    const stranger = await createCa('unknown-ca')
    return {
      server: { ...(await stranger.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1'], usage: 'server', validDays: [-10, -5] })) },
      cluster: (url) => ({ ...byIp(url), ...caData(pki) }),
    }
  }),
  simple('expired serving certificate with tls-server-name', 'tls_expired', async (_, pki) => ({
    server: { ...(await pki.ca.leaf({ cn: 'kube-apiserver', san: ['dns:kube.internal'], usage: 'server', validDays: [-10, -5] })) },
    cluster: (url) => ({ ...byIp(url), ...caData(pki), 'tls-server-name': 'kube.internal' }),
  })),
  simple('DNS-only subject alternative name, server by IP (another name)', 'tls_wrong_name', async (_, pki) => ({
    server: { ...(await pki.ca.leaf({ cn: 'kube-apiserver', san: ['dns:kube.internal'], usage: 'server' })) },
    cluster: (url) => ({ ...byIp(url), ...caData(pki) }),
  })),
  simple('no subject alternative name (legacy Common Name only)', 'tls_wrong_name', async (_, pki) => ({
    server: { ...(await pki.ca.leaf({ cn: 'localhost', usage: 'server' })) },
    cluster: (url) => ({ server: url.replace('127.0.0.1', 'localhost'), ...caData(pki) }),
  })),
  {
    name: 'proxy-url, the proxy refuses CONNECT (403)',
    kubectl: 'proxy',
    transport: 'node:https (proxy-url)',
    async setUp(dir, pki) {
      const server = await startMatrixServer({ host: '127.0.0.1', ...pki.server, authn: tokenAuthn })
      const proxy = await startConnectProxy({ refuse: true })
      return {
        server,
        proxy,
        kubeconfig: writeKubeconfig(dir, { ...byIp(server.url), ...caData(pki), 'proxy-url': proxy.url }, { token: TOKEN }),
        async close() {
          await proxy.close()
          await server.close()
        },
      }
    },
  },
  {
    name: 'nothing listens at the server address',
    kubectl: 'refused',
    async setUp(dir, pki) {
      const server = await startMatrixServer({ host: '127.0.0.1', ...pki.server, authn: tokenAuthn })
      await server.close()
      return { server, kubeconfig: writeKubeconfig(dir, { ...byIp(server.url), ...caData(pki) }, { token: TOKEN }), close: async () => {} }
    },
  },
]
