// An HTTP/2 client of kube-apiserver for the bench's own bulk writes (creating 10k pods, the churn):
// one TLS connection with many streams, where e2e/k8s/api-client.ts opens a connection per request.
import { connect, constants, type ClientHttp2Session } from 'node:http2'
import { readFileSync } from 'node:fs'

export interface H2Response {
  readonly status: number
  readonly body: string
}

export interface H2Client {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<H2Response>
  /** The parsed body of a 2xx answer; any other status throws with the body. */
  json<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>
  close(): void
}

/** A client of `server` trusting `ca` with a client certificate (the control plane's admin). */
export function createH2Client(server: string, auth: { ca: string; certFile: string; keyFile: string }): H2Client {
  let session: ClientHttp2Session | undefined
  const open = (): ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session
    const s = connect(server, { ca: auth.ca, cert: readFileSync(auth.certFile), key: readFileSync(auth.keyFile) })
    s.on('error', () => {
      if (session === s) session = undefined
    })
    s.on('close', () => {
      if (session === s) session = undefined
    })
    s.unref()
    session = s
    return s
  }
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<H2Response> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const req = open().request({
        [constants.HTTP2_HEADER_METHOD]: method,
        [constants.HTTP2_HEADER_PATH]: path,
        accept: 'application/json',
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      })
      req.setTimeout(60_000, () => req.close(constants.NGHTTP2_CANCEL))
      let status = 0
      let text = ''
      req.setEncoding('utf8')
      req.on('response', (h) => (status = Number(h[constants.HTTP2_HEADER_STATUS])))
      req.on('data', (d: string) => (text += d))
      req.on('end', () => (status ? resolve({ status, body: text }) : reject(new Error(`${method} ${path}: no answer`))))
      req.on('error', reject)
      req.end(payload)
    })
  return {
    request,
    async json<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
      const res = await request(method, path, body, headers)
      if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: HTTP ${res.status} ${res.body.slice(0, 500)}`)
      return (res.body ? JSON.parse(res.body) : undefined) as T
    },
    close() {
      session?.close()
      session = undefined
    },
  }
}

/** Runs `fn` over `items` with at most `limit` at a time; rejects with the first failure. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!, i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}
