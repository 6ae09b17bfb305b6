// Garbage collection: background cascade through ownerReferences, and namespace termination.
import type { ObjectStore } from '../store/store.ts'
import type { StoreEvent } from '../store/history.ts'
import type { ObjectApi } from './object-api.ts'
import { RESOURCES, resourceByPlural } from './resources.ts'
import { SimApiError } from './errors.ts'
import { orderObject } from './meta.ts'

const NAMESPACES = resourceByPlural('namespaces')!

/**
 * Starts the garbage collector: when an object is removed, its dependents whose owners are all gone
 * are deleted (background propagation, like kube-controller-manager's GC); a namespace marked for
 * deletion has its content deleted, then disappears. Returns a stop function.
 */
export function startGarbageCollector(store: ObjectStore, api: ObjectApi): () => void {
  const timers = new Set<ReturnType<typeof setTimeout>>()
  let stopped = false
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t)
      if (!stopped) fn()
    }, ms)
    timers.add(t)
  }

  const collect = (ownerUid: string) => {
    for (const dep of store.dependentsOf(ownerUid)) {
      const refs: Array<{ uid: string }> = dep.obj.metadata.ownerReferences ?? []
      if (refs.some((ref) => store.byUid(ref.uid))) continue
      if (dep.obj.metadata.deletionTimestamp && dep.resource.kind !== 'Namespace') continue
      tryDelete(() => api.delete(dep.resource, dep.namespace, dep.name))
    }
  }

  const terminateNamespace = (ns: string) => {
    let remaining = 0
    for (const r of RESOURCES) {
      if (!r.namespaced || r.storageGroup !== undefined) continue
      for (const e of store.entries(r, ns)) {
        remaining++
        if (!e.obj.metadata.deletionTimestamp) tryDelete(() => api.delete(r, ns, e.name))
      }
    }
    const cur = store.get(NAMESPACES, ns)
    if (!cur || !cur.obj.metadata.deletionTimestamp) return
    if (remaining > 0) {
      later(20, () => terminateNamespace(ns))
      return
    }
    // The namespace finalizer is released: spec.finalizers empties, then the object goes.
    store.replace(NAMESPACES, cur.key, orderObject({ ...cur.obj, spec: { finalizers: [] } }))
    store.remove(NAMESPACES, cur.key)
  }

  const unsubscribe = store.subscribe((ev: StoreEvent) => {
    if (ev.type === 'DELETED') {
      const uid = ev.entry.uid
      later(0, () => collect(uid))
    } else if (ev.entry.resource === NAMESPACES && ev.entry.obj.metadata.deletionTimestamp && !ev.prev?.obj.metadata.deletionTimestamp) {
      const name = ev.entry.name
      later(0, () => terminateNamespace(name))
    }
  })

  return () => {
    stopped = true
    unsubscribe()
    for (const t of timers) clearTimeout(t)
    timers.clear()
  }
}

/** Deletes racing with other deletes may find the object gone already: that is fine. */
function tryDelete(fn: () => unknown): void {
  try {
    fn()
  } catch (err) {
    if (!(err instanceof SimApiError && err.code === 404)) throw err
  }
}
