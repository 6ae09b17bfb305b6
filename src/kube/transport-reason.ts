// Why a request to the API server failed below HTTP, as one of a small fixed set of reasons: read
// from the error's cause chain (Node's codes, Deno's rustls messages inside `TypeError: fetch
// failed`), for the log line, the error and the metric label (docs/kube-api.md "Transport failures").

/** The reasons, exactly these: they are label values of the API error metrics. */
export type TransportReason =
  | 'tls_unknown_authority'
  | 'tls_expired'
  | 'tls_wrong_name'
  | 'tls_ca_as_server'
  | 'tls_handshake'
  | 'dns'
  | 'refused'
  | 'reset'
  | 'timeout'
  | 'unreachable'
  | 'proxy'
  | 'ping_timeout'
  | 'credentials'
  | 'network'

/** Each reason as the log line says it (docs/kube-api.md "Transport failures" says what to check). */
export const TRANSPORT_REASONS: Readonly<Record<TransportReason, string>> = {
  tls_unknown_authority: 'TLS: certificate signed by an unknown authority',
  tls_expired: 'TLS: certificate expired or not yet valid',
  tls_wrong_name: 'TLS: certificate issued for another name',
  tls_ca_as_server: 'TLS: the serving certificate is a CA certificate',
  tls_handshake: 'TLS handshake failed',
  dns: 'DNS lookup failed',
  refused: 'connection refused',
  reset: 'connection reset',
  timeout: 'timed out',
  unreachable: 'network or host unreachable',
  proxy: 'the proxy refused the connection',
  ping_timeout: 'the API server did not answer an HTTP/2 PING',
  credentials: 'credentials failed',
  network: 'connection failed',
}

/** A failure's reason and the runtime's own words for it (the innermost message of the chain, with its code). */
export interface TransportFailure {
  readonly reason: TransportReason
  readonly detail: string
}

const BY_CODE: ReadonlyArray<readonly [TransportReason, readonly string[]]> = [
  ['tls_unknown_authority', ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_REJECTED', 'CERT_SIGNATURE_FAILURE']],
  ['tls_expired', ['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']],
  ['tls_wrong_name', ['ERR_TLS_CERT_ALTNAME_INVALID']],
  ['dns', ['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']],
  ['refused', ['ECONNREFUSED']],
  ['timeout', ['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']],
  ['unreachable', ['ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'ENETDOWN', 'EHOSTDOWN']],
]

// Deno's fetch (hyper + rustls) says it in words only; order matters (certificate reasons first).
const BY_MESSAGE: ReadonlyArray<readonly [TransportReason, RegExp]> = [
  ['tls_ca_as_server', /CaUsedAsEndEntity/],
  ['tls_unknown_authority', /UnknownIssuer|BadSignature|signed by unknown authority/],
  ['tls_expired', /certificate expired|certificate not valid yet|NotValidYet|\bExpired\b/],
  ['tls_wrong_name', /not valid for name|NotValidForName|legacy Common Name/],
  ['proxy', /^Bad response: \d+$|^Proxy timeout$|proxyconnect/],
  ['tls_handshake', /invalid peer certificate|handshake|fatal alert|AlertReceived|corrupt message|peer is incompatible|wrong version number|before secure TLS connection/i],
  ['dns', /dns error|failed to lookup address|Name or service not known|name resolution|nodename nor servname/i],
  ['refused', /Connection refused|os error 111\b/i],
  ['timeout', /timed out|os error 110\b/i],
  ['unreachable', /unreachable|No route to host|os error 11[03]\b/i],
  ['reset', /Connection reset|os error 104\b|Broken pipe|socket hang up|closed before message completed|error reading a body|unexpected end of file|IncompleteMessage|^aborted$|premature close/i],
]

/** A connection or an HTTP/2 stream or session that ended before the answer did. */
const RESET_CODES = new Set([
  'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'UND_ERR_SOCKET',
  'ERR_HTTP2_STREAM_ERROR', 'ERR_HTTP2_STREAM_CANCEL', 'ERR_HTTP2_SESSION_ERROR', 'ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_INVALID_SESSION', 'ERR_HTTP2_ERROR',
])

/** Node's TLS codes that are handshake failures other than the certificate reasons above. */
const isTlsCode = (code: string): boolean => code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO' || code === 'INVALID_CA' || code === 'INVALID_PURPOSE'

/** The chain `err`, `err.cause`, … (and the first of an AggregateError's errors), outermost first. */
function chainOf(err: unknown): Array<{ code: string; message: string }> {
  const out: Array<{ code: string; message: string }> = []
  let e: unknown = err
  for (let depth = 0; depth < 8 && e !== undefined && e !== null; depth++) {
    const o = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }
    out.push({ code: typeof o.code === 'string' ? o.code : '', message: typeof o.message === 'string' ? o.message : String(e) })
    e = o.cause ?? (Array.isArray(o.errors) ? o.errors[0] : undefined)
  }
  return out
}

/** Deno's fetch prefixes its cause with the URL and hyper's context; the URL is in our own message. */
function trimDeno(message: string): string {
  return message.replace(/^error sending request for url \([^)]*\):\s*/, '').replace(/^client error \((?:Connect|SendRequest)\):\s*/, '')
}

/**
 * Classifies a failed request's error (any shape, any depth of `cause`) into a
 * {@link TransportReason}, with the runtime's own words: the innermost message that says more
 * than `fetch failed`, prefixed by its code when it has one.
 */
export function transportFailure(err: unknown): TransportFailure {
  const chain = chainOf(err)
  const said = chain.filter((c) => c.message && c.message !== 'fetch failed')
  const inner = said.at(-1) ?? chain[0] ?? { code: '', message: String(err) }
  const coded = [...chain].reverse().find((c) => c.code !== '')
  const message = trimDeno(inner.message).trim()
  const detail = coded && !message.includes(coded.code) ? `${coded.code}: ${message}` : message
  return { reason: reasonOf(chain), detail }
}

function reasonOf(chain: ReadonlyArray<{ code: string; message: string }>): TransportReason {
  // Innermost first: the root cause decides, not a wrapper's summary.
  const inward = [...chain].reverse()
  for (const { message } of inward) for (const [reason, re] of BY_MESSAGE.slice(0, 4)) if (re.test(message)) return reason
  for (const { code } of inward) {
    if (code === '') continue
    for (const [reason, codes] of BY_CODE) if (codes.includes(code)) return reason
  }
  for (const { message } of inward) for (const [reason, re] of BY_MESSAGE.slice(4)) if (re.test(message)) return reason
  for (const { code } of inward) if (isTlsCode(code)) return 'tls_handshake'
  for (const { code } of inward) if (RESET_CODES.has(code)) return 'reset'
  return 'network'
}
