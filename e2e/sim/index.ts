// The Kubernetes API simulator: an HTTPS API server speaking the real list/watch protocol
// (docs/kube-api.md), with mini controllers, fault injection and a bulk mode. See README.md.
//
//   const sim = await startSimulator({ nodes: 3 })
//   await sim.writeKubeconfig('/tmp/kubeconfig')
//   sim.create('deployments', { metadata: { name: 'web' }, spec: { … } })
//   sim.faults.dropWatches()
//   await sim.close()
import { writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:https'
import type { Socket } from 'node:net'
import { startGarbageCollector } from './api/gc.ts'
import { ObjectApi } from './api/object-api.ts'
import { resourceByPlural, type ResourceInfo } from './api/resources.ts'
import { SimApiError } from './api/errors.ts'
import { createBulk } from './bulk.ts'
import { nodeObject, startControllers, type Controllers } from './controllers/index.ts'
import type { ServerContext } from './http/context.ts'
import { FaultState } from './http/faults.ts'
import { createHandler } from './http/server.ts'
import { resolveOptions } from './options.ts'
import { SnapshotCache } from './store/snapshots.ts'
import { ObjectStore } from './store/store.ts'
import { renderKubeconfig } from './tls/kubeconfig.ts'
import { generatePki } from './tls/pki.ts'
import type { SimAuthOptions, SimFaults, SimOptions, Simulator } from './types.ts'

export type * from './types.ts'
export { SimApiError } from './api/errors.ts'
export { RUN_MS_ANNOTATION } from './controllers/index.ts'

const NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system']

/** Starts the simulator; resolves once it is listening. */
export async function startSimulator(opts: SimOptions = {}): Promise<Simulator> {
  const config = resolveOptions(opts)
  const store = new ObjectStore(config.historyWindow)
  const api = new ObjectApi(store, () => config.controllers)
  const ctx: ServerContext = {
    config, store, api,
    snapshots: new SnapshotCache(config.continueTtlMs),
    faults: new FaultState(),
    watches: new Set(),
    requests: 0,
  }
  for (const name of NAMESPACES) api.create(res('namespaces'), { metadata: { name } })
  for (let i = 1; i <= config.nodes; i++) api.create(res('nodes'), nodeObject(i))

  const dropAll = (abrupt: boolean) => {
    for (const w of [...ctx.watches]) w.end(abrupt)
  }
  const faults: SimFaults = {
    dropWatches: (o) => dropAll(o?.abrupt === true),
    stallWatches(on) {
      ctx.faults.stalled = on
      if (!on) for (const w of [...ctx.watches]) w.resume()
    },
    compact: () => store.compact(),
    restart() {
      store.compact()
      ctx.snapshots.clear()
      dropAll(true)
    },
    failRequests: (o) => ctx.faults.failRequests(o),
    clearFailures: () => ctx.faults.clearFailures(),
    slowResponses(ms) {
      if (!(ms >= 0)) throw new RangeError(`slowResponses needs a delay ≥ 0 ms, got ${ms}`)
      ctx.faults.delayMs = ms
    },
    malformedLine: (resource) => ctx.faults.malformedLine(resource),
  }

  const stopGc = startGarbageCollector(store, api)
  const controllers: Controllers | undefined = config.controllers ? startControllers(store, api, config) : undefined
  const runCronJobNow = (namespace: string, name: string) => {
    if (!controllers) throw new Error('runCronJobNow needs the controllers (controllers: true)')
    controllers.runCronJobNow(namespace, name)
  }
  const stats = () => ({ watchesOpen: ctx.watches.size, requests: ctx.requests, resourceVersion: store.resourceVersion })

  const pki = await generatePki(config.host)
  const server: Server = createServer(
    { key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: false },
    createHandler(ctx, { faults, runCronJobNow, stats }),
  )
  const sockets = new Set<Socket>()
  server.on('secureConnection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  server.on('tlsClientError', () => {}) // a client that hangs up mid-handshake is not the server's problem
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  if (address && typeof address === 'object') config.port = address.port
  const urlHost = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `https://${urlHost}:${config.port}`

  const kubeconfig = (o: SimAuthOptions = {}) => renderKubeconfig({
    server: url, caCert: pki.caCert, auth: o.auth ?? config.auth,
    clientCert: pki.clientCert, clientKey: pki.clientKey, token: config.token,
  })
  let closed = false

  return {
    url,
    kubeconfig,
    async writeKubeconfig(file, o) {
      await writeFile(file, kubeconfig(o), { mode: 0o600 })
    },
    create: (resource, obj) => api.create(res(resource), obj).toObject(),
    update: (resource, obj) => api.update(res(resource), obj).toObject(),
    patch: (resource, namespace, name, patch) => api.patch(res(resource), namespace, name, 'merge', patch).toObject(),
    delete: (resource, namespace, name) => api.delete(res(resource), namespace, name).entry.toObject(),
    get(resource, namespace, name) {
      const r = res(resource)
      return api.get(r, namespace, name)?.toObject()
    },
    list: (resource, namespace) => store.entries(res(resource), namespace).map((e) => e.toObject()),
    get resourceVersion() {
      return store.resourceVersion
    },
    runCronJobNow,
    faults,
    bulk: createBulk(store, config.nodes),
    stats: {
      get watchesOpen() {
        return ctx.watches.size
      },
      get requests() {
        return ctx.requests
      },
    },
    token: config.token,
    async close() {
      if (closed) return
      closed = true
      controllers?.stop()
      stopGc()
      dropAll(true)
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
      })
    },
  }
}

function res(plural: string): ResourceInfo {
  const r = resourceByPlural(plural)
  if (!r) throw new SimApiError(404, 'NotFound', `the server doesn't have a resource type "${plural}"`)
  return r
}
