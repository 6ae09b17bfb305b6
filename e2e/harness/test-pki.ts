// Test support: a throw-away CA with a server and a client certificate (ECDSA P-256), as PEM.
import 'reflect-metadata'
import * as x509 from '@peculiar/x509'
import { webcrypto } from 'node:crypto'

x509.cryptoProvider.set(webcrypto as unknown as Crypto)

/** PEM material for a local HTTPS API server that requires client certificates. */
export interface TestPki {
  readonly caPem: string
  readonly serverCertPem: string
  readonly serverKeyPem: string
  readonly clientCertPem: string
  readonly clientKeyPem: string
}

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const

function keyPem(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`
}

async function leaf(
  ca: x509.X509Certificate,
  caKeys: CryptoKeyPair,
  subject: string,
  usage: string,
  san?: x509.JsonGeneralNames,
): Promise<{ cert: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([usage]),
  ]
  if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san))
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: ca.subject,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: alg,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 7 * 86_400_000),
    extensions,
  })
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as never)
  return { cert: cert.toString('pem'), key: keyPem(pkcs8 as ArrayBuffer) }
}

/** Creates a CA, a server certificate for 127.0.0.1/localhost and a client certificate (CN=collector). */
export async function createTestPki(): Promise<TestPki> {
  const caKeys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=test-ca',
    keys: caKeys,
    signingAlgorithm: alg,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 7 * 86_400_000),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  })
  const server = await leaf(ca, caKeys, 'CN=kube-apiserver', x509.ExtendedKeyUsage.serverAuth, [
    { type: 'ip', value: '127.0.0.1' },
    { type: 'dns', value: 'localhost' },
  ])
  const client = await leaf(ca, caKeys, 'CN=collector,O=system:collectors', x509.ExtendedKeyUsage.clientAuth)
  return {
    caPem: ca.toString('pem'),
    serverCertPem: server.cert,
    serverKeyPem: server.key,
    clientCertPem: client.cert,
    clientKeyPem: client.key,
  }
}

/** A kubeconfig YAML (JSON is valid YAML) for `server`, with client-cert and/or token auth. */
export function kubeconfigFor(server: string, pki: TestPki, auth: { cert?: boolean; token?: string; insecure?: boolean } = { cert: true }): string {
  const b64 = (s: string): string => Buffer.from(s).toString('base64')
  const user: Record<string, string> = {}
  if (auth.cert) {
    user['client-certificate-data'] = b64(pki.clientCertPem)
    user['client-key-data'] = b64(pki.clientKeyPem)
  }
  if (auth.token) user.token = auth.token
  const cluster: Record<string, unknown> = { server }
  if (auth.insecure) cluster['insecure-skip-tls-verify'] = true
  else cluster['certificate-authority-data'] = b64(pki.caPem)
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster }],
    users: [{ name: 'test', user }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: 'test' } }],
    'current-context': 'test',
  })
}
