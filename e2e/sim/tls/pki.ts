// The simulator's PKI, generated at start: a CA, a server certificate for the listen address, and an admin client certificate.
import 'reflect-metadata'
import * as x509 from '@peculiar/x509'

x509.cryptoProvider.set(globalThis.crypto)

/** PEM material of one run. */
export interface Pki {
  readonly caCert: string
  readonly caKey: string
  readonly serverCert: string
  readonly serverKey: string
  readonly clientCert: string
  readonly clientKey: string
}

/** The subject CN of the admin client certificate; the server accepts no other certificate. */
export const ADMIN_CN = 'sim-admin'

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const
const DAY = 24 * 3600 * 1000

/**
 * Generates the CA and both leaf certificates (ECDSA P-256, valid for a year). The server
 * certificate names `localhost`, 127.0.0.1, ::1 and `host` (IP or DNS name).
 */
export async function generatePki(host: string): Promise<Pki> {
  const notBefore = new Date(Date.now() - DAY)
  const notAfter = new Date(Date.now() + 365 * DAY)
  const caKeys = await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(), name: 'CN=k8s-collector-sim-ca', notBefore, notAfter, keys: caKeys, signingAlgorithm: SIGN,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  })
  const names: x509.JsonGeneralNames = [
    { type: 'dns', value: 'localhost' }, { type: 'dns', value: 'kubernetes' }, { type: 'dns', value: 'kubernetes.default.svc' },
    { type: 'ip', value: '127.0.0.1' }, { type: 'ip', value: '::1' },
  ]
  if (host && !['localhost', '127.0.0.1', '::1', '0.0.0.0', '::'].includes(host)) {
    names.push(/^[\d.]+$|:/.test(host) ? { type: 'ip', value: host } : { type: 'dns', value: host })
  }
  const server = await leaf(ca, caKeys, 'CN=kube-apiserver', x509.ExtendedKeyUsage.serverAuth, notBefore, notAfter, names)
  const client = await leaf(ca, caKeys, `CN=${ADMIN_CN}, O=system:masters`, x509.ExtendedKeyUsage.clientAuth, notBefore, notAfter)
  const caKey = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', caKeys.privateKey), 'PRIVATE KEY')
  return {
    caCert: ca.toString('pem'), caKey,
    serverCert: server.cert, serverKey: server.key,
    clientCert: client.cert, clientKey: client.key,
  }
}

async function leaf(
  ca: x509.X509Certificate, caKeys: CryptoKeyPair, subject: string, usage: string,
  notBefore: Date, notAfter: Date, san?: x509.JsonGeneralNames,
): Promise<{ cert: string; key: string }> {
  const keys = await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([usage]),
    await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
  ]
  if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san))
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(), subject, issuer: ca.subject, notBefore, notAfter, publicKey: keys.publicKey,
    signingKey: caKeys.privateKey, signingAlgorithm: SIGN, extensions,
  })
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey)
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') }
}

function serial(): string {
  const b = crypto.getRandomValues(new Uint8Array(16))
  b[0] &= 0x7f // positive
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
}
