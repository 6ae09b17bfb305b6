// Test support: an in-memory coordination.k8s.io/v1 Lease API behind the KubeWriteClient `send`
// interface — GET, POST (409 AlreadyExists), PUT (409 Conflict on a stale resourceVersion, 400 on a
// MicroTime without six fractional digits, as the real server) — with per-client faults, so two
// electors can share one store on fake time and one of them can be cut off.
import { bodyReaders, type KubeResponse, type KubeSendOptions, type KubeWriteClient } from '../../src/kube/client.ts'
import { KubeAbortedError } from '../../src/kube/errors.ts'

type Json = Record<string, any>

/** What a client's requests meet. */
export type LeaseFault =
  /** Served normally. */
  | { readonly kind: 'none' }
  /** Never answered; the request fails only when its signal aborts (a blackholed connection). */
  | { readonly kind: 'stall' }
  /** Answered with this status and a Status body (e.g. 403 for missing RBAC, 500). */
  | { readonly kind: 'fail'; readonly status: number; readonly retryAfterSeconds?: number }

/** One request as the store saw it. */
export interface SeenRequest {
  readonly client: string
  readonly method: string
  readonly path: string
  readonly body: Json | undefined
}

export interface MemoryLeaseClient extends Pick<KubeWriteClient, 'send'> {
  fault: LeaseFault
}

export interface MemoryLeaseStore {
  /** A client named `name` (for `requests`), served normally until its `fault` is set. */
  client(name: string): MemoryLeaseClient
  /** The stored Lease, as the server would return it. */
  get(namespace: string, name: string): Json | undefined
  /** Stores `obj` as another writer would (kubectl replace/apply), without validation; bumps resourceVersion. */
  put(obj: Json): Json
  /** Every request, in order. */
  readonly requests: SeenRequest[]
}

const PATH = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/?]+))?$/
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/

export function createMemoryLeaseStore(): MemoryLeaseStore {
  const leases = new Map<string, Json>()
  const requests: SeenRequest[] = []
  let rv = 100

  const store = (obj: Json): Json => {
    const meta = obj.metadata as Json
    const key = `${meta.namespace}/${meta.name}`
    const old = leases.get(key)
    const saved = structuredClone(obj)
    saved.metadata = { ...saved.metadata, resourceVersion: String(++rv), uid: old?.metadata.uid ?? `uid-${rv}`, creationTimestamp: old?.metadata.creationTimestamp ?? '2024-01-01T00:00:00Z' }
    leases.set(key, saved)
    return saved
  }

  const serve = (method: string, path: string, body: Json | undefined): [number, Json] => {
    const m = PATH.exec(path)
    if (!m) return status(404, 'NotFound', 'the server could not find the requested resource')
    const [namespace, name] = [decodeURIComponent(m[1]!), m[2] && decodeURIComponent(m[2])]
    const key = `${namespace}/${name ?? body?.metadata?.name}`
    const current = leases.get(key)
    if (method === 'GET' && name) return current ? [200, current] : status(404, 'NotFound', `leases.coordination.k8s.io "${name}" not found`)
    if (!body || !isObject(body.metadata) || !isObject(body.spec ?? {})) return status(400, 'BadRequest', 'not a Lease')
    for (const f of ['acquireTime', 'renewTime']) {
      const v = body.spec?.[f]
      if (v !== undefined && v !== null && !(typeof v === 'string' && MICRO_TIME.test(v))) {
        return status(400, 'BadRequest', `parsing time "${v}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse`)
      }
    }
    if (method === 'POST' && !name) {
      if (current) return status(409, 'AlreadyExists', `leases.coordination.k8s.io "${body.metadata.name}" already exists`)
      return [201, store({ ...body, metadata: { ...body.metadata, namespace } })]
    }
    if (method === 'PUT' && name) {
      if (!current) return status(404, 'NotFound', `leases.coordination.k8s.io "${name}" not found`)
      const want = body.metadata.resourceVersion
      if (want && want !== current.metadata.resourceVersion) {
        return status(409, 'Conflict', `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`)
      }
      return [200, store({ ...body, metadata: { ...body.metadata, namespace, name } })]
    }
    return status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')
  }

  return {
    client(clientName) {
      const c: MemoryLeaseClient = {
        fault: { kind: 'none' },
        async send(path: string, opts: KubeSendOptions): Promise<KubeResponse> {
          const body = opts.body ? (JSON.parse(new TextDecoder().decode(opts.body)) as Json) : undefined
          requests.push({ client: clientName, method: opts.method, path, body })
          const fault = c.fault
          if (fault.kind === 'stall') return stalled(opts.signal)
          await Promise.resolve() // answered after the caller awaited, like I/O
          if (opts.signal?.aborted) throw new KubeAbortedError('aborted')
          if (fault.kind === 'fail') {
            const [code, obj] = status(fault.status, reasonOf(fault.status), `injected ${fault.status}`)
            return response(code, obj, fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) })
          }
          const [code, obj] = serve(opts.method, path, body)
          return response(code, obj)
        },
      }
      return c
    },
    get: (namespace, name) => leases.get(`${namespace}/${name}`),
    put: (obj) => store(obj),
    requests,
  }
}

function stalled(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (): void => reject(new KubeAbortedError('aborted'))
    if (signal?.aborted) fail()
    else signal?.addEventListener('abort', fail, { once: true })
  })
}

function response(status: number, obj: Json, headers: Record<string, string> = {}): KubeResponse {
  const chunks = [new TextEncoder().encode(JSON.stringify(obj))]
  const read = async (): Promise<Uint8Array | null> => chunks.shift() ?? null
  return { status, header: (n) => headers[n.toLowerCase()], read, ...bodyReaders(read), close: () => {} }
}

function status(code: number, reason: string, message: string): [number, Json] {
  return [code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }]
}

function reasonOf(code: number): string {
  return { 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable' }[code] ?? 'Unknown'
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
