// The Kubernetes API simulator: an HTTPS API server speaking the real list/watch protocol
// (docs/kube-api.md), with mini controllers, fault injection and a bulk mode. See README.md.
//
//   const sim = await startSimulator({ nodes: 3 })
//   await sim.writeKubeconfig('/tmp/kubeconfig')
//   sim.create('deployments', { metadata: { name: 'web' }, spec: { … } })
//   sim.faults.dropWatches()
//   await sim.close()
import { writeFile } from 'node:fs/promises'
import { startGarbageCollector } from './api/gc.ts'
import { ObjectApi } from './api/object-api.ts'
import { resourceByPlural, type ResourceInfo } from './api/resources.ts'
import { SimApiError } from './api/errors.ts'
import { createBulk } from './bulk.ts'
import { nodeObject, startControllers, type Controllers } from './controllers/index.ts'
import { createFaults } from './fault-control.ts'
import type { ServerContext } from './http/context.ts'
import { FaultState } from './http/faults.ts'
import { SimListener } from './http/listener.ts'
import { createHandler } from './http/server.ts'
import { randomToken, resolveOptions } from './options.ts'
import { loadState, persistStore, saveState } from './store/persist.ts'
import { SnapshotCache } from './store/snapshots.ts'
import { ObjectStore } from './store/store.ts'
import { loadOrCreateCredentials } from './tls/credentials.ts'
import { renderKubeconfig } from './tls/kubeconfig.ts'
import type { SimAuthOptions, SimOptions, SimStats, Simulator } from './types.ts'

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
  const stateDir = config.stateDir || undefined
  const saved = stateDir && !config.freshState ? await loadState(stateDir) : undefined
  if (saved) store.restore(saved.objects, saved.resourceVersion)
  for (const name of NAMESPACES) if (!api.get(res('namespaces'), undefined, name)) api.create(res('namespaces'), { metadata: { name } })
  for (let i = 1; i <= config.nodes; i++) if (!api.get(res('nodes'), undefined, `node-${i}`)) api.create(res('nodes'), nodeObject(i))
  const persistence = stateDir ? persistStore(store, stateDir) : undefined

  let creds = await loadOrCreateCredentials(stateDir, config.host, { fresh: config.freshPki, token: opts.token, newToken: () => config.token })
  const stopGc = startGarbageCollector(store, api)
  const controllers: Controllers | undefined = config.controllers ? startControllers(store, api, config) : undefined
  const runCronJobNow = (namespace: string, name: string) => {
    if (!controllers) throw new Error('runCronJobNow needs the controllers (controllers: true)')
    controllers.runCronJobNow(namespace, name)
  }

  let listener: SimListener
  const { faults, active } = createFaults(ctx, {
    get listener() {
      return listener
    },
    async renewCredentials() {
      creds = await loadOrCreateCredentials(stateDir, config.host, { fresh: true, newToken: randomToken })
      listener.setPki(creds.pki)
    },
  })
  const stats = (): SimStats => ({
    watchesOpen: ctx.watches.size, requests: ctx.requests, resourceVersion: store.resourceVersion,
    faults: active(), faultLog: [...ctx.faults.log],
  })
  const auth = { token: () => creds.token }
  listener = new SimListener(creds.pki, createHandler(ctx, { faults, runCronJobNow, stats }, auth), { http1Only: config.http1Only })
  config.port = await listener.listen(config.host, config.port)
  const urlHost = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `https://${urlHost}:${config.port}`

  const kubeconfig = (o: SimAuthOptions = {}) => renderKubeconfig({
    server: url, caCert: creds.pki.caCert, auth: o.auth ?? config.auth,
    clientCert: creds.pki.clientCert, clientKey: creds.pki.clientKey, token: creds.token,
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
    get stats() {
      return stats()
    },
    get token() {
      return creds.token
    },
    async close() {
      if (closed) return
      closed = true
      controllers?.stop()
      stopGc()
      for (const w of [...ctx.watches]) w.end(true)
      await listener.stop()
      persistence?.stop()
      if (stateDir) await saveState(stateDir, store)
    },
  }
}

function res(plural: string): ResourceInfo {
  const r = resourceByPlural(plural)
  if (!r) throw new SimApiError(404, 'NotFound', `the server doesn't have a resource type "${plural}"`)
  return r
}
