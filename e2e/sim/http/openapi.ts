// /openapi/v2 and /openapi/v3: the generated documents served as the API server serves them (JSON;
// protobuf is not offered, a protobuf-only Accept gets 406), v3 group-versions behind content hashes.
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { errors } from '../api/errors.ts'
import { openApiV2Document, openApiV3Documents } from '../api/schema/openapi.ts'
import { sendJson } from './respond.ts'

interface Doc {
  readonly body: string
  readonly hash: string
}

const doc = (value: object): Doc => {
  const body = JSON.stringify(value)
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() }
}

/** A handler of `/openapi/…` paths; documents are built on first use and kept. */
export function createOpenApiHandler(): (path: string, req: IncomingMessage, res: ServerResponse) => void {
  let v2: Doc | undefined
  let v3: Map<string, Doc> | undefined
  const groupVersions = () => (v3 ??= new Map([...openApiV3Documents()].map(([gv, d]) => [gv, doc(d)])))

  return (path, req, res) => {
    if (!acceptsJson(req.headers.accept)) {
      throw errors.notAcceptable('only the following media types are accepted: application/json')
    }
    if (path === '/openapi/v2') {
      v2 ??= doc(openApiV2Document())
      return sendDoc(req, res, v2)
    }
    if (path === '/openapi/v3') {
      const paths: Record<string, { serverRelativeURL: string }> = {}
      for (const [gv, d] of groupVersions()) paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${d.hash}` }
      return sendJson(res, 200, JSON.stringify({ paths }))
    }
    const d = groupVersions().get(path.slice('/openapi/v3/'.length))
    if (!d) throw errors.resourceNotFound()
    const hash = new URL(req.url ?? '/', 'https://sim').searchParams.get('hash')
    sendDoc(req, res, d, hash === d.hash ? { 'Cache-Control': 'public, immutable', Expires: new Date(Date.now() + 365 * 86_400_000).toUTCString() } : {})
  }
}

function sendDoc(req: IncomingMessage, res: ServerResponse, d: Doc, headers: Record<string, string> = {}): void {
  const etag = `"${d.hash}"`
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ETag: etag, ...headers })
    res.end()
    return
  }
  sendJson(res, 200, d.body, { ETag: etag, ...headers })
}

/** Whether `Accept` allows JSON (kubectl asks v2 in protobuf only: then 406, and it does without). */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true
  return accept.split(',').some((c) => ['application/json', '*/*', 'application/*'].includes(c.split(';')[0].trim().toLowerCase()))
}
