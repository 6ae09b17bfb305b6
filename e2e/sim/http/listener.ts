// The simulator's HTTPS listener: serves the handler with the current PKI over HTTP/2 and HTTP/1.1
// (ALPN `h2`, `http/1.1`, as a kube-apiserver does) or HTTP/1.1 only, can stop (connections
// refused, every open one cut) and listen again on the same port, and swap its certificates in place.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createSecureServer } from 'node:http2'
import { createServer } from 'node:https'
import type { Socket } from 'node:net'
import type { Server } from 'node:tls'
import type { Pki } from '../tls/pki.ts'

/** How the listener serves. */
export interface SimListenerOptions {
  /** HTTP/1.1 only, as `kubectl proxy` (default false: h2 and HTTP/1.1). */
  readonly http1Only?: boolean
}

export class SimListener {
  readonly #server: Server
  readonly #sockets = new Set<Socket>()
  #listening = false
  #host = ''
  #port = 0

  constructor(pki: Pki, handler: (req: IncomingMessage, res: ServerResponse) => void, opts: SimListenerOptions = {}) {
    // The HTTP/2 compatibility API hands the same handler request and response objects of the same shape.
    this.#server = opts.http1Only
      ? createServer(tlsOptions(pki), handler)
      : createSecureServer({ ...tlsOptions(pki), allowHTTP1: true }, handler as never)
    this.#server.on('secureConnection', (s) => {
      this.#sockets.add(s)
      s.on('close', () => this.#sockets.delete(s))
    })
    this.#server.on('tlsClientError', () => {}) // a client that hangs up mid-handshake is not the server's problem
    this.#server.on('sessionError', () => {}) // nor an HTTP/2 client that breaks the protocol
  }

  /** The bound port (after the first listen). */
  get port(): number {
    return this.#port
  }

  get listening(): boolean {
    return this.#listening
  }

  /** Binds `host:port` (port 0: any free one, remembered for later listens). */
  async listen(host: string, port: number): Promise<number> {
    this.#host = host
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject)
        resolve()
      })
    })
    const address = this.#server.address()
    if (address && typeof address === 'object') this.#port = address.port
    this.#listening = true
    return this.#port
  }

  /** Listens again on the address and port of the first listen. */
  relisten(): Promise<number> {
    return this.listen(this.#host, this.#port)
  }

  /** Stops accepting (new connections are refused) and destroys every open connection. */
  async stop(): Promise<void> {
    if (!this.#listening) return
    this.#listening = false
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      for (const s of this.#sockets) s.destroy()
    })
  }

  /** New connections use `pki` from now on (open ones keep theirs). */
  setPki(pki: Pki): void {
    this.#server.setSecureContext(tlsOptions(pki))
  }
}

function tlsOptions(pki: Pki) {
  // requestCert without rejectUnauthorized: clients with a bearer token and no certificate get in too.
  return { key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: false }
}
