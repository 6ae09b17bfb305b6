// The transport failure reasons, read from the error shapes each runtime produces: Deno's fetch
// (measured with Deno 2.9 against node:https servers, docs/kube-api.md "Transport failures"),
// node:https on Node and on Deno, and real sockets where the failure can be made here.
import { once } from 'node:events'
import https from 'node:https'
import { createServer, type AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { KubeTransportError, transportError } from './errors.ts'
import { transportFailure, type TransportReason } from './transport-reason.ts'

/** Deno's fetch: `TypeError: fetch failed` with the cause hyper and rustls give. */
const denoFetch = (inner: string): Error =>
  new TypeError('fetch failed', { cause: new Error(`error sending request for url (https://127.0.0.1:6443/api/v1/pods): client error (Connect): ${inner}`) })
const coded = (code: string, message: string): Error => Object.assign(new Error(message), { code })

const CASES: Array<[string, unknown, TransportReason, string]> = [
  ['deno: unknown issuer', denoFetch('invalid peer certificate: UnknownIssuer'), 'tls_unknown_authority', 'invalid peer certificate: UnknownIssuer'],
  ['deno: expired', denoFetch('invalid peer certificate: certificate expired: verification time 1795855295 (UNIX), but certificate is not valid after 1795423293 (432002 seconds ago)'), 'tls_expired', 'invalid peer certificate: certificate expired: verification time 1795855295 (UNIX), but certificate is not valid after 1795423293 (432002 seconds ago)'],
  ['deno: not yet valid', denoFetch('invalid peer certificate: certificate not valid yet: verification time 1795855295 (UNIX), but certificate is not valid before 1796287293 (431998 seconds in future)'), 'tls_expired', 'invalid peer certificate: certificate not valid yet: verification time 1795855295 (UNIX), but certificate is not valid before 1796287293 (431998 seconds in future)'],
  ['deno: another name', denoFetch('invalid peer certificate: certificate not valid for name "127.0.0.1"; certificate is only valid for DnsName("elsewhere.example")'), 'tls_wrong_name', 'invalid peer certificate: certificate not valid for name "127.0.0.1"; certificate is only valid for DnsName("elsewhere.example")'],
  ['deno: CA as serving certificate', denoFetch('invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))'), 'tls_ca_as_server', 'invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))'],
  ['deno: plain HTTP on the port', denoFetch('received corrupt message of type InvalidContentType'), 'tls_handshake', 'received corrupt message of type InvalidContentType'],
  ['deno: closed during the handshake', denoFetch('tls handshake eof'), 'tls_handshake', 'tls handshake eof'],
  ['deno: refused', denoFetch('tcp connect error: Connection refused (os error 111)'), 'refused', 'tcp connect error: Connection refused (os error 111)'],
  ['deno: reset', denoFetch('Connection reset by peer (os error 104)'), 'reset', 'Connection reset by peer (os error 104)'],
  ['deno: dns', denoFetch('dns error: failed to lookup address information: Name or service not known'), 'dns', 'dns error: failed to lookup address information: Name or service not known'],
  ['deno: timeout', denoFetch('tcp connect error: Connection timed out (os error 110)'), 'timeout', 'tcp connect error: Connection timed out (os error 110)'],
  ['deno: unreachable', denoFetch('tcp connect error: Network is unreachable (os error 101)'), 'unreachable', 'tcp connect error: Network is unreachable (os error 101)'],
  ['node: unknown CA', coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), 'tls_unknown_authority', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate'],
  ['node: self-signed', coded('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'tls_unknown_authority', 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate'],
  ['node: expired', coded('CERT_HAS_EXPIRED', 'certificate has expired'), 'tls_expired', 'CERT_HAS_EXPIRED: certificate has expired'],
  ['node: not yet valid', coded('CERT_NOT_YET_VALID', 'certificate is not yet valid'), 'tls_expired', 'CERT_NOT_YET_VALID: certificate is not yet valid'],
  ['node: another name', coded('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: "), 'tls_wrong_name', "ERR_TLS_CERT_ALTNAME_INVALID: Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list:"],
  ['node: no SAN (legacy CN)', coded('ERR_TLS_CERT_ALTNAME_INVALID', 'certificate relies on legacy Common Name field (CN=localhost), use SANs instead'), 'tls_wrong_name', 'ERR_TLS_CERT_ALTNAME_INVALID: certificate relies on legacy Common Name field (CN=localhost), use SANs instead'],
  ['node: plain HTTP on the port', coded('EPROTO', 'write EPROTO 80BCE2968B7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number'), 'tls_handshake', 'write EPROTO 80BCE2968B7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number'],
  ['node: closed during the handshake', coded('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'), 'tls_handshake', 'ECONNRESET: Client network socket disconnected before secure TLS connection was established'],
  ['deno node:https: plain HTTP', coded('ERR_SSL_WRONG_VERSION_NUMBER', 'received corrupt message of type InvalidContentType (SSL routines:ssl3_get_record:wrong version number)'), 'tls_handshake', 'ERR_SSL_WRONG_VERSION_NUMBER: received corrupt message of type InvalidContentType (SSL routines:ssl3_get_record:wrong version number)'],
  ['node: dns', coded('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example.invalid'), 'dns', 'getaddrinfo ENOTFOUND api.example.invalid'],
  ['node: dns, temporary', coded('EAI_AGAIN', 'getaddrinfo EAI_AGAIN api.example'), 'dns', 'getaddrinfo EAI_AGAIN api.example'],
  ['node: timeout', coded('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:6443'), 'timeout', 'connect ETIMEDOUT 10.0.0.1:6443'],
  ['node: unreachable', coded('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.1:6443'), 'unreachable', 'connect EHOSTUNREACH 10.0.0.1:6443'],
  ['node: reset mid-body', coded('ECONNRESET', 'aborted'), 'reset', 'ECONNRESET: aborted'],
  ['node: hang up', coded('ECONNRESET', 'socket hang up'), 'reset', 'ECONNRESET: socket hang up'],
  ['node:http2: stream reset by the server', coded('ERR_HTTP2_STREAM_ERROR', 'Stream closed with error code NGHTTP2_INTERNAL_ERROR'), 'reset', 'ERR_HTTP2_STREAM_ERROR: Stream closed with error code NGHTTP2_INTERNAL_ERROR'],
  ['node:http2: after GOAWAY', coded('ERR_HTTP2_GOAWAY_SESSION', 'New streams cannot be created after receiving a GOAWAY'), 'reset', 'ERR_HTTP2_GOAWAY_SESSION: New streams cannot be created after receiving a GOAWAY'],
  ['node:http2: not HTTP/2 after the handshake', coded('ERR_HTTP2_ERROR', 'Protocol error'), 'reset', 'ERR_HTTP2_ERROR: Protocol error'],
  ['proxy: CONNECT answered 403 (hpagent)', new Error('Bad response: 403'), 'proxy', 'Bad response: 403'],
  ['happy eyeballs: AggregateError', Object.assign(new AggregateError([coded('ECONNREFUSED', 'connect ECONNREFUSED ::1:6443'), coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443')], ''), { code: 'ECONNREFUSED' }), 'refused', 'connect ECONNREFUSED ::1:6443'],
  ['anything else', new Error('something odd'), 'network', 'something odd'],
]

describe('transportFailure', () => {
  it.each(CASES)('%s', (_, err, reason, detail) => {
    expect(transportFailure(err)).toEqual({ reason, detail })
  })

  it('never leaves a bare "fetch failed" in the message, even without a cause', () => {
    const err = transportError('127.0.0.1:6443', new TypeError('fetch failed'))
    expect(err.message).toBe('127.0.0.1:6443: connection failed (fetch failed)')
    expect(transportError('127.0.0.1:6443', denoFetch('invalid peer certificate: UnknownIssuer')).message).toBe(
      '127.0.0.1:6443: TLS: certificate signed by an unknown authority (invalid peer certificate: UnknownIssuer)',
    )
  })
})

describe('transportError on real sockets (node:https)', () => {
  const fail = (port: number): Promise<KubeTransportError> =>
    new Promise((resolve) => {
      https.get(`https://127.0.0.1:${port}/`, (res) => res.resume()).on('error', (err) => resolve(transportError(`127.0.0.1:${port}`, err)))
    })

  it('a closed port is refused', async () => {
    const s = createServer().listen(0, '127.0.0.1')
    await once(s, 'listening')
    const { port } = s.address() as AddressInfo
    await new Promise((r) => s.close(r))
    const err = await fail(port)
    expect(err.reason).toBe('refused')
    expect(err.message).toBe(`127.0.0.1:${port}: connection refused (connect ECONNREFUSED 127.0.0.1:${port})`)
  })

  it('a peer that resets the connection at once is a reset; one that closes it fails the handshake', async () => {
    const reset = createServer((sock) => sock.resetAndDestroy()).listen(0, '127.0.0.1')
    const closed = createServer((sock) => sock.end()).listen(0, '127.0.0.1')
    await Promise.all([once(reset, 'listening'), once(closed, 'listening')])
    try {
      const [a, b] = await Promise.all([fail((reset.address() as AddressInfo).port), fail((closed.address() as AddressInfo).port)])
      expect([a.reason, b.reason]).toEqual(['reset', 'tls_handshake'])
      expect(b.message).toContain('before secure TLS connection was established')
    } finally {
      reset.close()
      closed.close()
    }
  })
})
