// Test support: a real HTTPS server for Events in both API groups, enforcing the API server's rules
// that the recorder must respect (pkg/apis/core/validation/events.go: MicroTime with six fractional
// digits, required fields, note ≤ 1 KiB, series.count ≥ 2, no deprecated* field on create, only the
// series changing on an events.k8s.io update), with scripted faults and every request recorded.
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { KubeConfig } from '@kubernetes/client-node'
import { createKubeClient } from '../../src/kube/client.ts'
import { sendJson, sendStatus } from './fake-apiserver.ts'
import { createTestPki, kubeconfigFor, type TestPki } from './test-pki.ts'
import { traceClient, type TracedClient } from './traced-client.ts'

type Json = Record<string, any>
export type EventsGroup = 'events.k8s.io/v1' | 'v1'

/** One request as the server saw it, and its answer. */
export interface SeenEventRequest {
  readonly method: string
  readonly group: EventsGroup
  readonly namespace: string
  readonly name: string
  /** On the test's clock (`now` of the options). */
  readonly at: number
  /** 0 until answered; stays 0 when stalled. */
  status: number
}

/** A stored event in one shape, whichever group wrote it. */
export interface EventView {
  readonly group: EventsGroup
  readonly name: string
  readonly namespace: string
  readonly reason: string
  readonly type: string
  readonly action: string
  readonly note: string
  readonly regarding: Json
  /** series.count, or 1 without a series. */
  readonly count: number
  readonly eventTime: string
  readonly lastObservedTime: string | undefined
  /** Writes that changed it after the create. */
  readonly updates: number
}

/** What a request meets instead of the normal answer: a failure status, no answer at all (`stall`), or undefined: served normally. */
export type EventsFault = (req: { method: string; group: EventsGroup }) => { status: number; reason: string; retryAfterSeconds?: number } | 'stall' | undefined

export interface FakeEventsApi {
  readonly url: string
  readonly pki: TestPki
  readonly kubeconfig: string
  readonly requests: SeenEventRequest[]
  fault: EventsFault | undefined
  /** False: events.k8s.io/v1 answers 404, as an API server that does not serve it. Default true. */
  servesEventsV1: boolean
  /** Requests as {@link client} sent them: when (on the `now` of the options), before any network delay. */
  readonly sent: TracedClient['sent']
  /** Answers {@link client} has read to the end (failures included). */
  readonly answered: number
  events(): EventView[]
  /** Deletes a stored event (its TTL ran out). */
  expire(namespace: string, name: string): void
  /** The client (test PKI) that notes what it sends ({@link sent}) and reads ({@link answered}). */
  client(): TracedClient
  close(): Promise<void>
}

const PATH = /^\/(?:apis\/(events\.k8s\.io)\/v1|api\/v1)\/namespaces\/([^/]+)\/events(?:\/([^/]+))?$/
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const DEPRECATED = ['deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount']

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message)
  }
}

/** Starts the server on 127.0.0.1; `now` stamps the requests (default Date.now). */
export async function startFakeEventsApi(opts: { now?: () => number } = {}): Promise<FakeEventsApi> {
  const now = opts.now ?? Date.now
  const pki = await createTestPki()
  const stored = new Map<string, { group: EventsGroup; obj: Json; updates: number }>()
  const requests: SeenEventRequest[] = []

  const serve = (method: string, group: EventsGroup, namespace: string, name: string, body: Json | undefined): [number, Json] => {
    const key = `${namespace}/${name}`
    const strict = group === 'events.k8s.io/v1'
    if (method === 'POST') {
      if (!body) throw new Refusal(400, 'BadRequest', 'no body')
      const objName = body.metadata?.name ?? ''
      if (body.metadata?.namespace && body.metadata.namespace !== namespace) throw new Refusal(400, 'BadRequest', 'the namespace of the object does not match the namespace of the request')
      if (stored.has(`${namespace}/${objName}`)) throw new Refusal(409, 'AlreadyExists', `events "${objName}" already exists`)
      checkTimes(body, 400)
      const problems = [...legacyProblems(body, strict), ...(strict ? strictCreateProblems(body) : [])]
      if (problems.length) throw new Refusal(422, 'Invalid', `Event "${objName}" is invalid: ${problems.join(', ')}`)
      const obj = { ...body, metadata: { ...body.metadata, namespace, uid: `uid-${stored.size + 1}`, resourceVersion: '1' } }
      stored.set(`${namespace}/${objName}`, { group, obj, updates: 0 })
      return [201, obj]
    }
    if (method === 'PATCH') {
      const old = stored.get(key)
      if (!old) throw new Refusal(404, 'NotFound', `events "${name}" not found`)
      checkTimes(body ?? {}, 422)
      const next = mergePatch(old.obj, body ?? {})
      if (strict) {
        const changed = Object.keys({ ...old.obj, ...next }).filter((k) => k !== 'series' && k !== 'metadata' && JSON.stringify(old.obj[k]) !== JSON.stringify(next[k]))
        const problems = [...changed.map((k) => `${k}: field is immutable`), ...seriesProblems(next)]
        if (problems.length) throw new Refusal(422, 'Invalid', `Event "${name}" is invalid: ${problems.join(', ')}`)
      }
      stored.set(key, { group: old.group, obj: next, updates: old.updates + 1 })
      return [200, next]
    }
    throw new Refusal(405, 'MethodNotAllowed', `${method} is not supported here`)
  }

  const server = https.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem, ca: pki.caPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://x')
      const m = PATH.exec(url.pathname)
      if (!m) return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource')
      const group: EventsGroup = m[1] ? 'events.k8s.io/v1' : 'v1'
      const seen: SeenEventRequest = { method: req.method ?? '', group, namespace: decodeURIComponent(m[2]!), name: decodeURIComponent(m[3] ?? ''), at: now(), status: 0 }
      requests.push(seen)
      const answer = (status: number, body: Json, headers: Record<string, string> = {}): void => {
        seen.status = status
        sendJson(res, status, body, headers)
      }
      const notFound = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' }
      if (group === 'events.k8s.io/v1' && !api.servesEventsV1) return answer(404, notFound)
      const fault = api.fault?.({ method: seen.method, group })
      if (fault === 'stall') return
      if (fault) {
        const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) }
        return answer(fault.status, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: fault.reason, code: fault.status, message: fault.reason }, headers)
      }
      try {
        const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as Json) : undefined
        if (seen.method === 'PATCH' && req.headers['content-type'] !== 'application/merge-patch+json') throw new Refusal(415, 'UnsupportedMediaType', 'merge patches only')
        const [status, obj] = serve(seen.method, group, seen.namespace, seen.name || (body?.metadata?.name ?? ''), body)
        answer(status, { kind: 'Event', apiVersion: group, ...obj })
      } catch (err) {
        const r = err instanceof Refusal ? err : new Refusal(400, 'BadRequest', String(err))
        answer(r.status, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: r.reason, code: r.status, message: r.message })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  const kubeconfig = kubeconfigFor(url, pki, { cert: true })
  const kc = new KubeConfig()
  kc.loadFromString(kubeconfig)
  const traced = traceClient(createKubeClient({ kubeConfig: kc }), now)

  const api: FakeEventsApi = {
    url,
    pki,
    kubeconfig,
    requests,
    fault: undefined,
    servesEventsV1: true,
    events: () => [...stored.values()].map(({ group, obj, updates }) => view(group, obj, updates)),
    expire: (namespace, name) => void stored.delete(`${namespace}/${name}`),
    get sent() {
      return traced.sent
    },
    get answered() {
      return traced.answered
    },
    client: () => traced,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return api
}

function view(group: EventsGroup, o: Json, updates: number): EventView {
  const strict = group === 'events.k8s.io/v1'
  return {
    group,
    name: o.metadata.name,
    namespace: o.metadata.namespace,
    reason: o.reason,
    type: o.type,
    action: o.action,
    note: strict ? o.note : o.message,
    regarding: strict ? o.regarding : o.involvedObject,
    count: o.series?.count ?? 1,
    eventTime: o.eventTime,
    lastObservedTime: o.series?.lastObservedTime,
    updates,
  }
}

/** Times that do not decode: a 400 on create, a 422 on patch, as the API server answers. */
function checkTimes(o: Json, status: number): void {
  for (const [field, v] of [['eventTime', o.eventTime], ['series.lastObservedTime', o.series?.lastObservedTime]] as const) {
    if (v !== undefined && v !== null && !MICRO_TIME.test(String(v))) throw new Refusal(status, status === 400 ? 'BadRequest' : 'Invalid', `${field}: parsing time "${v}" as "2006-01-02T15:04:05.000000Z07:00"`)
  }
}

function legacyProblems(e: Json, strict: boolean): string[] {
  if (!e.eventTime) return []
  const p: string[] = []
  const controller = strict ? e.reportingController : e.reportingComponent
  if (!controller) p.push('reportingController: Required value')
  if (!e.reportingInstance) p.push('reportingInstance: Required value')
  if ((e.reportingInstance ?? '').length > 128) p.push('reportingInstance: can have at most 128 characters')
  if (!e.action) p.push('action: Required value')
  if (!e.reason) p.push('reason: Required value')
  if (Buffer.byteLength((strict ? e.note : e.message) ?? '') > 1024) p.push('message: can have at most 1024 characters')
  return p
}

function strictCreateProblems(e: Json): string[] {
  const p = seriesProblems(e)
  if (!e.eventTime) p.push('eventTime: Required value')
  if (e.type !== 'Normal' && e.type !== 'Warning') p.push(`type: has invalid value: ${e.type}`)
  for (const f of DEPRECATED) if (e[f] !== undefined) p.push(`${f}: needs to be unset`)
  return p
}

function seriesProblems(e: Json): string[] {
  if (!e.series) return []
  const p: string[] = []
  if (!(e.series.count >= 2)) p.push('series.count: should be at least 2')
  if (!e.series.lastObservedTime) p.push('series.lastObservedTime: Required value')
  return p
}

/** RFC 7386. */
function mergePatch(target: Json, patch: Json): Json {
  const out: Json = { ...target }
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]
    else if (typeof v === 'object' && !Array.isArray(v) && typeof out[k] === 'object' && out[k] !== null) out[k] = mergePatch(out[k], v)
    else out[k] = v
  }
  return out
}
