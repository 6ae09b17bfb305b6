// The server name check of kubectl and client-go, shared by every node:tls path (node:https and
// the HTTP/2 session): Go's crypto/x509 checks the subject alternative names only.
import { checkServerIdentity, type PeerCertificate } from 'node:tls'

/**
 * Checks `cert` against `host` as Go does. Node still falls back to the Common Name of a
 * certificate without subject alternative names; Go refuses it, and so does the collector (the
 * same reason on both runtimes, docs/kube-api.md "kubectl parity").
 */
export function checkSubjectAltNames(host: string, cert: PeerCertificate): Error | undefined {
  if (!cert.subjectaltname) {
    const err = new Error(`certificate relies on legacy Common Name field (CN=${String(cert.subject?.CN ?? '')}), use SANs instead`)
    return Object.assign(err, { code: 'ERR_TLS_CERT_ALTNAME_INVALID', host, cert })
  }
  return checkServerIdentity(host, cert)
}
