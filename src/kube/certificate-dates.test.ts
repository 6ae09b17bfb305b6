// An unknown-authority failure of a server whose certificate is out of its dates is named as kubectl
// names it (expired); the dates are read from a real TLS server.
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createCa } from '../../e2e/tls/pki.ts'
import { withCertificateDates } from './certificate-dates.ts'
import { KubeTransportError } from './errors.ts'

const servers: https.Server[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

async function serve(validDays: [number, number]): Promise<URL> {
  const ca = await createCa('dates-ca')
  const leaf = await ca.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1'], usage: 'server', validDays })
  const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (_, res) => res.end())
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/pods`)
}

const unknown = (url: URL): KubeTransportError =>
  new KubeTransportError(`${url.host}: TLS: certificate signed by an unknown authority (UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate)`, { reason: 'tls_unknown_authority' })

describe('withCertificateDates', () => {
  it('names an expired or not yet valid certificate as tls_expired, keeping what the transport said', async () => {
    const expired = await serve([-10, -5])
    const got = (await withCertificateDates(unknown(expired), expired, undefined, Date.now())) as KubeTransportError
    expect(got.reason).toBe('tls_expired')
    expect(got.message).toMatch(new RegExp(`^${expired.host}: TLS: certificate expired or not yet valid \\(expired at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; the TLS stack said UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate\\)$`))
    const future = await serve([5, 10])
    expect(((await withCertificateDates(unknown(future), future, undefined, Date.now())) as KubeTransportError).message).toContain('not valid before')
  })

  it('leaves a certificate within its dates, and other reasons, as they are', async () => {
    const valid = await serve([-1, 7])
    const err = unknown(valid)
    expect(await withCertificateDates(err, valid, undefined, Date.now())).toBe(err)
    const refused = new KubeTransportError('x: connection refused (…)', { reason: 'refused' })
    expect(await withCertificateDates(refused, valid, undefined, Date.now())).toBe(refused)
  })
})
