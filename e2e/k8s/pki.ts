// The control plane's certificates, as kubeadm lays them out for a one-node cluster: a cluster CA,
// the API server's serving certificate (loopback and the `kubernetes` Service names), client
// certificates for the admin, the controller manager and the scheduler, and the service-account
// signing key. ECDSA P-256 throughout; PEM files in `dir`.
import 'reflect-metadata'
import * as x509 from '@peculiar/x509'
import { webcrypto } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

x509.cryptoProvider.set(webcrypto as unknown as Crypto)

/** The `kubernetes` Service's cluster IP: the first address of the service range the API server is given. */
export const SERVICE_CIDR = '10.96.0.0/16'
export const SERVICE_IP = '10.96.0.1'

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const
const DAY = 86_400_000

/** A certificate and its key, as PEM. */
export interface KeyPair {
  readonly cert: string
  readonly key: string
}

/** The files written, by role. */
export interface ControlPlanePki {
  readonly dir: string
  readonly caCert: string
  readonly caKey: string
  readonly servingCert: string
  readonly servingKey: string
  /** The service-account token signing key (private, PKCS#8) and its public half. */
  readonly saKey: string
  readonly saPub: string
  /** Client certificate + key files, by identity: admin (system:masters), controller-manager, scheduler. */
  readonly clients: Record<'admin' | 'controller-manager' | 'scheduler', { cert: string; key: string }>
  /** The CA as PEM text (for kubeconfigs with certificate-authority-data). */
  readonly caPem: string
  /** Issues another client certificate from the cluster CA (CN=`user`, O=`groups`). */
  issueClient(user: string, groups?: readonly string[]): Promise<KeyPair>
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`
}

const newKeys = async () => (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair
const privatePem = async (keys: CryptoKeyPair) => pem('PRIVATE KEY', (await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as never)) as ArrayBuffer)

/** A distinguished name with escaped values (kubeadm's subjects hold `:`). */
const dn = (cn: string, orgs: readonly string[] = []) => [`CN=${cn}`, ...orgs.map((o) => `O=${o}`)].join(', ')

/** The PKI in `dir`: the one a previous run left there (`--state-dir`), else a fresh one. */
export async function createControlPlanePki(dir: string): Promise<ControlPlanePki> {
  mkdirSync(dir, { recursive: true })
  const validity = { notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + 365 * DAY) }
  if (existsSync(join(dir, 'sa.pub'))) return loadPki(dir, validity)
  const caKeys = await newKeys()
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=kubernetes',
    keys: caKeys,
    signingAlgorithm: ALG,
    ...validity,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  })
  const issue = issuer(ca, caKeys, validity)
  const write = (name: string, text: string) => {
    const file = join(dir, name)
    writeFileSync(file, text, { mode: 0o600 })
    return file
  }
  const serving = await issue(dn('kube-apiserver'), x509.ExtendedKeyUsage.serverAuth, [
    { type: 'ip', value: '127.0.0.1' },
    { type: 'ip', value: '::1' },
    { type: 'ip', value: SERVICE_IP },
    ...['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'].map((value) => ({ type: 'dns' as const, value })),
  ])
  const client = async (name: string, cn: string, orgs: readonly string[] = []) => {
    const kp = await issue(dn(cn, orgs), x509.ExtendedKeyUsage.clientAuth)
    return { cert: write(`${name}.crt`, kp.cert), key: write(`${name}.key`, kp.key) }
  }
  const saKeys = await newKeys()
  write('ca.crt', ca.toString('pem'))
  write('ca.key', await privatePem(caKeys))
  write('apiserver.crt', serving.cert)
  write('apiserver.key', serving.key)
  write('sa.key', await privatePem(saKeys))
  await client('admin', 'kubernetes-admin', ['system:masters'])
  await client('controller-manager', 'system:kube-controller-manager')
  await client('scheduler', 'system:kube-scheduler')
  // Written last: its presence says the folder holds a whole PKI.
  write('sa.pub', pem('PUBLIC KEY', (await webcrypto.subtle.exportKey('spki', saKeys.publicKey as never)) as ArrayBuffer))
  return pkiFiles(dir, ca.toString('pem'), issue)
}

type Issue = (subject: string, usage: string, san?: x509.JsonGeneralNames) => Promise<KeyPair>

/** Issues leaf certificates from `ca`. */
function issuer(ca: x509.X509Certificate, caKeys: CryptoKeyPair, validity: { notBefore: Date; notAfter: Date }): Issue {
  return async (subject, usage, san) => {
    const keys = await newKeys()
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([usage]),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ]
    if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san))
    const cert = await x509.X509CertificateGenerator.create({
      subject, issuer: ca.subject, publicKey: keys.publicKey, signingKey: caKeys.privateKey, signingAlgorithm: ALG, ...validity, extensions,
    })
    return { cert: cert.toString('pem'), key: await privatePem(keys) }
  }
}

/** The files of a PKI in `dir`, by role. */
function pkiFiles(dir: string, caPem: string, issue: Issue): ControlPlanePki {
  const at = (name: string) => join(dir, name)
  const pair = (name: string) => ({ cert: at(`${name}.crt`), key: at(`${name}.key`) })
  return {
    dir,
    caCert: at('ca.crt'),
    caKey: at('ca.key'),
    caPem,
    servingCert: at('apiserver.crt'),
    servingKey: at('apiserver.key'),
    saKey: at('sa.key'),
    saPub: at('sa.pub'),
    clients: { admin: pair('admin'), 'controller-manager': pair('controller-manager'), scheduler: pair('scheduler') },
    issueClient: (user, groups = []) => issue(dn(user, groups), x509.ExtendedKeyUsage.clientAuth),
  }
}

/** A PKI written by an earlier run: its CA signs the new client certificates. */
async function loadPki(dir: string, validity: { notBefore: Date; notAfter: Date }): Promise<ControlPlanePki> {
  const caPem = readFileSync(join(dir, 'ca.crt'), 'utf8')
  const ca = new x509.X509Certificate(caPem)
  const der = Buffer.from(readFileSync(join(dir, 'ca.key'), 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64')
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign'])
  const publicKey = await ca.publicKey.export(ALG, ['verify'])
  return pkiFiles(dir, caPem, issuer(ca, { privateKey, publicKey } as CryptoKeyPair, validity))
}
