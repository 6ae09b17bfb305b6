// A minimal HTTPS client for the control plane's own set-up and checks (node:https with the
// admin's client certificate): the launcher must not depend on the code it tests.
import { readFileSync } from 'node:fs'
import https from 'node:https'

export interface ApiResponse {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

export interface ApiClient {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>
  /** The parsed body of a 2xx answer; any other status throws with the body. */
  json(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<unknown>
}

/** A client of `server` trusting `ca`, with a client certificate (files or PEM) or a bearer token. */
export function createApiClient(server: string, auth: { ca: string; certFile?: string; keyFile?: string; certPem?: string; keyPem?: string; token?: string }): ApiClient {
  const base = new URL(server)
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
      const req = https.request(new URL(path, base), {
        method,
        ca: auth.ca,
        cert: auth.certPem ?? (auth.certFile ? readFileSync(auth.certFile) : undefined),
        key: auth.keyPem ?? (auth.keyFile ? readFileSync(auth.keyFile) : undefined),
        headers: {
          accept: 'application/json',
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
          ...headers,
        },
        timeout: 30_000,
      }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
        res.on('error', reject)
      })
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)))
      req.on('error', reject)
      req.end(payload)
    })
  return {
    request,
    async json(method, path, body, headers) {
      const res = await request(method, path, body, headers)
      if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: HTTP ${res.status} ${res.body.slice(0, 500)}`)
      return res.body ? JSON.parse(res.body) : undefined
    },
  }
}
