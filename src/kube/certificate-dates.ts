// Telling an expired serving certificate from an unknown authority as kubectl does. Go checks a
// certificate's dates before its chain; OpenSSL reports the chain first, and Deno's node:https
// reports an expired or not yet valid certificate as UNABLE_TO_VERIFY_LEAF_SIGNATURE even when its
// CA is the right one. One handshake that verifies nothing reads the dates (docs/kube-api.md
// "Transport failures"); no request is sent and no client certificate offered.
import { isIP } from 'node:net'
import { connect } from 'node:tls'
import { KubeTransportError } from './errors.ts'
import { TRANSPORT_REASONS } from './transport-reason.ts'

/** How long the reading handshake may take. */
const HANDSHAKE_MS = 5_000

/** The serving certificate's validity, or undefined when it cannot be read. */
function validityOf(url: URL, servername: string | undefined): Promise<{ from: Date; to: Date } | undefined> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const name = servername ?? (isIP(host) ? undefined : host)
    const socket = connect({ host, port: Number(url.port || 443), rejectUnauthorized: false, ...(name ? { servername: name } : {}) })
    const done = (v: { from: Date; to: Date } | undefined): void => {
      clearTimeout(timer)
      socket.destroy()
      resolve(v)
    }
    const timer = setTimeout(() => done(undefined), HANDSHAKE_MS)
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate()
      const from = new Date(cert?.valid_from ?? '')
      const to = new Date(cert?.valid_to ?? '')
      done(Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) ? undefined : { from, to })
    })
    socket.once('error', () => done(undefined))
  })
}

/**
 * `err` as kubectl would name it: a `tls_unknown_authority` failure of a server whose certificate
 * is outside its validity at `now` becomes `tls_expired`; anything else is returned as it is.
 */
export async function withCertificateDates(err: unknown, url: URL, servername: string | undefined, now: number): Promise<unknown> {
  if (!(err instanceof KubeTransportError) || err.reason !== 'tls_unknown_authority' || url.protocol !== 'https:') return err
  const valid = await validityOf(url, servername)
  if (valid === undefined || (valid.from.getTime() <= now && now <= valid.to.getTime())) return err
  const when = now < valid.from.getTime() ? `not valid before ${valid.from.toISOString()}` : `expired at ${valid.to.toISOString()}`
  // The transport's own words, without the reason it guessed: `host: <reason> (<words>)`.
  const guessed = `${url.host}: ${TRANSPORT_REASONS.tls_unknown_authority} (`
  const said = err.message.startsWith(guessed) && err.message.endsWith(')') ? err.message.slice(guessed.length, -1) : err.message
  return new KubeTransportError(`${url.host}: ${TRANSPORT_REASONS.tls_expired} (${when}; the TLS stack said ${said})`, { cause: err, reason: 'tls_expired' })
}
