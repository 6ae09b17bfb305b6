// One HTTP/2 connection to the API server over node:http2 (Node and Deno alike): the TLS handshake
// with the kubeconfig's material and ALPN `h2`, then a session whose liveness is checked by PING
// (h2-liveness.ts). A server that picks another protocol is reported, not used (docs/dead-links.md §2).
import type https from 'node:https'
import http2 from 'node:http2'
import { isIP } from 'node:net'
import tls from 'node:tls'
import type { Clock } from '../util/clock.ts'
import { KubeTransportError, transportError } from './errors.ts'
import { startLiveness, type Liveness, type LivenessTimes } from './h2-liveness.ts'
import { checkSubjectAltNames } from './server-identity.ts'
import { TRANSPORT_REASONS } from './transport-reason.ts'

/** What the handshake gave: a session, or the protocol the server chose instead (`''`: none). */
export type H2Open = { readonly protocol: 'h2'; readonly session: H2Session } | { readonly protocol: string }

/** A shared HTTP/2 connection. */
export interface H2Session {
  /** False once it is closing, closed, or told to go away: new requests need a new session. */
  readonly usable: boolean
  /** True once the connection is gone (closed or destroyed): a body that ended now may have been cut. */
  readonly dead: boolean
  /** Opens a stream; throws when the session cannot take one any more. */
  request(headers: http2.OutgoingHttpHeaders, endStream: boolean): http2.ClientHttp2Stream
  /** Something arrived for a stream: the connection is alive. */
  heard(): void
  /** A request went silent: check the connection now. */
  probe(): void
  /** Calls `onDeath` with the reason if the connection is found dead; returns the unregistering function. */
  track(onDeath: (reason: KubeTransportError) => void): () => void
  /** Lets open streams finish, then closes. */
  close(): void
}

/** The PINGs of a client's sessions so far; each is counted once, by its first outcome. */
export interface PingCounts {
  sent: number
  answered: number
  /** Not answered in time, or cancelled by the connection's end. */
  unanswered: number
}

/** How sessions are opened and checked. */
export interface H2SessionOptions {
  readonly clock: Clock
  readonly liveness: LivenessTimes
  /** Where the sessions count their PINGs. */
  readonly pings: PingCounts
  /** The TLS handshake must be through within this long (ms). */
  readonly connectTimeoutMs: number
}

/** The stream window (per watch or page) and the connection window the collector offers: bounded memory, few WINDOW_UPDATE round trips. */
const STREAM_WINDOW = 1 << 20
const CONNECTION_WINDOW = 8 << 20

/**
 * Connects to `url`'s origin with the TLS material of `options` (as `kc.applyToHTTPSOptions`
 * fills them: `ca`, `cert`, `key`, `pfx`, `passphrase`, `servername`, `rejectUnauthorized`),
 * offering `h2` and `http/1.1` by ALPN. Rejects with a {@link KubeTransportError}.
 */
export function openH2Session(url: URL, options: https.RequestOptions, opts: H2SessionOptions): Promise<H2Open> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const verify = options.rejectUnauthorized !== false
  const socket = tls.connect({
    host,
    port: Number(url.port || 443),
    // SNI carries names only; the name check then uses the host, as node:https does.
    ...(options.servername ? { servername: options.servername } : isIP(host) ? {} : { servername: host }),
    ca: options.ca,
    cert: options.cert,
    key: options.key,
    pfx: options.pfx,
    passphrase: options.passphrase,
    rejectUnauthorized: verify,
    ...(verify ? { checkServerIdentity: checkSubjectAltNames } : {}),
    ALPNProtocols: ['h2', 'http/1.1'],
  })
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (err: KubeTransportError): void => {
      if (settled) return
      settled = true
      opts.clock.clearTimeout(timer)
      socket.destroy()
      reject(err)
    }
    const timer = opts.clock.setTimeout(
      () => fail(new KubeTransportError(`${url.host}: ${TRANSPORT_REASONS.timeout} (no TLS handshake within ${opts.connectTimeoutMs / 1000} s)`, { reason: 'timeout' })),
      opts.connectTimeoutMs,
    )
    ;(timer as { unref?: () => void }).unref?.()
    // Never an unhandled 'error' event: before the session owns the socket, and after.
    socket.on('error', (err) => fail(transportError(url.host, err)))
    socket.once('close', () => fail(new KubeTransportError(`${url.host}: ${TRANSPORT_REASONS.reset} (closed during the TLS handshake)`, { reason: 'reset' })))
    socket.once('secureConnect', () => {
      if (settled) return
      settled = true
      opts.clock.clearTimeout(timer)
      const protocol = socket.alpnProtocol || ''
      if (protocol !== 'h2') {
        socket.destroy()
        resolve({ protocol })
        return
      }
      resolve({ protocol, session: sessionOver(url, socket, opts) })
    })
  })
}

function sessionOver(url: URL, socket: tls.TLSSocket, opts: H2SessionOptions): H2Session {
  const session = http2.connect(url.origin, { createConnection: () => socket, settings: { initialWindowSize: STREAM_WINDOW, enablePush: false } })
  session.unref?.()
  let usable = true
  /** Streams open on the session. */
  let open = 0
  const deaths = new Set<(reason: KubeTransportError) => void>()
  const counts = opts.pings
  /** Settles the PING out (if any) as answered or not, once. */
  let settlePing: ((answered: boolean) => void) | undefined
  /** Tells every request still open on the connection that it is gone, and why. */
  const die = (reason: KubeTransportError): void => {
    for (const onDeath of [...deaths]) onDeath(reason)
    deaths.clear()
  }
  const end = (): void => {
    usable = false
    liveness.stop()
    settlePing?.(false)
  }
  const liveness: Liveness = startLiveness(
    opts.clock,
    opts.liveness,
    (answered) => {
      let settled = false
      const settle = (ok: boolean): void => {
        if (settled) return
        settled = true
        if (ok) counts.answered++
        else counts.unanswered++
      }
      settlePing = settle
      counts.sent++
      try {
        session.ping((err) => {
          settle(!err)
          if (!err) answered()
        })
      } catch {
        // A session that cannot send a PING any more is closing; its 'close' ends the check.
        settle(false)
      }
    },
    (silentMs) => {
      settlePing?.(false)
      end()
      die(
        new KubeTransportError(
          `${url.host}: ${TRANSPORT_REASONS.ping_timeout} (no answer within ${opts.liveness.answerMs / 1000} s, nothing received for ${(silentMs / 1000).toFixed(1)} s)`,
          { reason: 'ping_timeout' },
        ),
      )
      session.destroy()
    },
  )
  // Every failure reaches the requests still open on the connection (the first reason is theirs).
  session.on('error', (err) => {
    end()
    die(transportError(url.host, err))
  })
  session.on('close', () => {
    end()
    die(new KubeTransportError(`${url.host}: ${TRANSPORT_REASONS.reset} (the connection closed)`, { reason: 'reset' }))
  })
  session.on('goaway', () => {
    usable = false
  })
  session.on('frameError', () => {})
  session.on('ping', liveness.kick)
  session.on('remoteSettings', liveness.kick)
  session.once('connect', () => {
    try {
      session.setLocalWindowSize?.(CONNECTION_WINDOW)
    } catch {
      // Not every runtime implements it; the default window only costs round trips.
    }
  })
  return {
    get usable() {
      return usable && !session.closed && !session.destroyed
    },
    get dead() {
      return session.destroyed
    },
    request(headers, endStream) {
      const stream = session.request(headers, { endStream })
      // The connection keeps the process alive only while a request is open (as node:http's agent
      // unrefs its idle sockets): an idle session must not hold a shutdown up.
      if (open++ === 0) session.ref?.()
      stream.once('close', () => {
        if (--open === 0) session.unref?.()
      })
      return stream
    },
    heard: liveness.kick,
    probe: liveness.probe,
    track(onDeath) {
      deaths.add(onDeath)
      return () => deaths.delete(onDeath)
    },
    close() {
      // The check goes on until the last stream is through ('close').
      usable = false
      if (!session.closed && !session.destroyed) session.close()
    },
  }
}
