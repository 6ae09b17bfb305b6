// Test support for the TLS matrix: CAs, intermediates and leaf certificates of every shape the
// matrix needs (own-CA serving certificates, IP-only or DNS-only names, expired, not yet valid), as PEM.
import 'reflect-metadata'
import * as x509 from '@peculiar/x509'
import { webcrypto } from 'node:crypto'

x509.cryptoProvider.set(webcrypto as unknown as Crypto)

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const
const DAY = 86_400_000

/** A certificate and its private key, as PEM. */
export interface Issued {
  readonly certPem: string
  readonly keyPem: string
}

/** A certificate authority that issues certificates. */
export interface TestCa extends Issued {
  /** Issues a leaf certificate (see {@link LeafOptions}). */
  leaf(opts: LeafOptions): Promise<Issued>
  /** Issues an intermediate CA signed by this one. */
  intermediate(name: string): Promise<TestCa>
}

/** What a leaf certificate says. */
export interface LeafOptions {
  readonly cn: string
  /** Subject alternative names: `ip:127.0.0.1`, `dns:localhost`. None → no SAN extension at all. */
  readonly san?: readonly string[]
  readonly usage: 'server' | 'client'
  /** Validity, as offsets from now in days (default: from a day ago to a week ahead). */
  readonly validDays?: readonly [from: number, to: number]
  /** Organisation (client certificates: the Kubernetes group). */
  readonly o?: string
}

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`
}

async function keys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair
}

async function keyPemOf(k: CryptoKeyPair): Promise<string> {
  return pemKey((await webcrypto.subtle.exportKey('pkcs8', k.privateKey as never)) as ArrayBuffer)
}

function sanExtension(san: readonly string[]): x509.SubjectAlternativeNameExtension {
  return new x509.SubjectAlternativeNameExtension(
    san.map((s) => {
      const [type, ...rest] = s.split(':')
      return { type: type === 'ip' ? ('ip' as const) : ('dns' as const), value: rest.join(':') }
    }),
  )
}

const caExtensions = async (k: CryptoKeyPair): Promise<x509.Extension[]> => [
  new x509.BasicConstraintsExtension(true, undefined, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
  await x509.SubjectKeyIdentifierExtension.create(k.publicKey),
]

function caOf(cert: x509.X509Certificate, k: CryptoKeyPair, keyPem: string): TestCa {
  return {
    certPem: pemOf(cert),
    keyPem,
    async leaf(opts) {
      const leafKeys = await keys()
      const [from, to] = opts.validDays ?? [-1, 7]
      const extensions: x509.Extension[] = [
        new x509.BasicConstraintsExtension(false),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([opts.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
        await x509.AuthorityKeyIdentifierExtension.create(cert),
      ]
      if (opts.san) extensions.push(sanExtension(opts.san))
      const leaf = await x509.X509CertificateGenerator.create({
        subject: `CN=${opts.cn}${opts.o ? `,O=${opts.o}` : ''}`,
        issuer: cert.subject,
        publicKey: leafKeys.publicKey,
        signingKey: k.privateKey,
        signingAlgorithm: alg,
        serialNumber: serial(),
        notBefore: new Date(Date.now() + from * DAY),
        notAfter: new Date(Date.now() + to * DAY),
        extensions,
      })
      return { certPem: pemOf(leaf), keyPem: await keyPemOf(leafKeys) }
    },
    async intermediate(name) {
      const ik = await keys()
      const inter = await x509.X509CertificateGenerator.create({
        subject: `CN=${name}`,
        issuer: cert.subject,
        publicKey: ik.publicKey,
        signingKey: k.privateKey,
        signingAlgorithm: alg,
        serialNumber: serial(),
        notBefore: new Date(Date.now() - DAY),
        notAfter: new Date(Date.now() + 7 * DAY),
        extensions: [...(await caExtensions(ik)), await x509.AuthorityKeyIdentifierExtension.create(cert)],
      })
      return caOf(inter, ik, await keyPemOf(ik))
    },
  }
}

/** PEM ending with a newline, so that certificates concatenate into a bundle. */
function pemOf(cert: x509.X509Certificate): string {
  return `${cert.toString('pem').trimEnd()}\n`
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex').replace(/^[89a-f]/, '1')
}

/** A root CA named `name`. */
export async function createCa(name: string): Promise<TestCa> {
  const k = await keys()
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys: k,
    signingAlgorithm: alg,
    serialNumber: serial(),
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 7 * DAY),
    extensions: await caExtensions(k),
  })
  return caOf(cert, k, await keyPemOf(k))
}

/**
 * A serving certificate that is its own CA, as `openssl req -x509 -subj /CN=… -addext
 * subjectAltName=…` makes it: self-signed, basicConstraints CA:TRUE, the SANs given. The
 * kubeconfig's CA is this certificate itself.
 */
export async function createSelfSignedCaServer(cn: string, san: readonly string[]): Promise<Issued> {
  const k = await keys()
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${cn}`,
    keys: k,
    signingAlgorithm: alg,
    serialNumber: serial(),
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 7 * DAY),
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), await x509.SubjectKeyIdentifierExtension.create(k.publicKey), sanExtension(san)],
  })
  return { certPem: pemOf(cert), keyPem: await keyPemOf(k) }
}
