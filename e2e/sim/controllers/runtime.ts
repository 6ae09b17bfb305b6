// What every mini controller shares: a coalescing work queue per object, tracked timers, and small write helpers.
import { SimApiError } from '../api/errors.ts'
import type { ObjectApi } from '../api/object-api.ts'
import { resourceByPlural, type ResourceInfo } from '../api/resources.ts'
import type { SimConfig } from '../options.ts'
import type { Entry, KubeObject } from '../store/entry.ts'
import type { ObjectStore } from '../store/store.ts'

export const R = {
  pods: resourceByPlural('pods')!,
  replicasets: resourceByPlural('replicasets')!,
  deployments: resourceByPlural('deployments')!,
  jobs: resourceByPlural('jobs')!,
  cronjobs: resourceByPlural('cronjobs')!,
  daemonsets: resourceByPlural('daemonsets')!,
  statefulsets: resourceByPlural('statefulsets')!,
  nodes: resourceByPlural('nodes')!,
}

/** A reconcile function: brings the object with this store key towards its desired state. */
export type Reconcile = (key: string) => void

export interface ControllerEnv {
  readonly store: ObjectStore
  readonly api: ObjectApi
  readonly config: SimConfig
  /** Runs `fn` after `ms` unless the controllers stopped meanwhile. */
  later(ms: number, fn: () => void): void
  /** Queues a reconcile of `resource`/`key` (coalesced, run on a later tick). */
  enqueue(resource: ResourceInfo, key: string): void
}

/** The controller owner reference of an object, if any. */
export function controllerRef(obj: KubeObject): { kind: string; name: string; uid: string } | undefined {
  return (obj.metadata.ownerReferences ?? []).find((r: any) => r.controller === true)
}

/** Live (not terminating) objects of `resource` whose controller is `owner`. */
export function ownedBy(env: ControllerEnv, owner: Entry, resource: ResourceInfo): Entry[] {
  return env.store.dependentsOf(owner.uid, resource).filter((e) => controllerRef(e.obj)?.uid === owner.uid)
}

export function ownerReference(owner: Entry): object {
  return {
    apiVersion: owner.resource.apiVersion, kind: owner.resource.kind, name: owner.name, uid: owner.uid,
    controller: true, blockOwnerDeletion: true,
  }
}

export const terminating = (e: Entry) => Boolean(e.obj.metadata.deletionTimestamp)
export const finished = (e: Entry) => e.obj.status?.phase === 'Succeeded' || e.obj.status?.phase === 'Failed'
export const podReady = (e: Entry) =>
  e.obj.status?.phase === 'Running' && (e.obj.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True')

/** Replaces the status subresource (no event when nothing changed). */
export function writeStatus(env: ControllerEnv, e: Entry, status: object): void {
  guard(() => env.api.update(e.resource, { ...e.obj, status }, { namespace: e.namespace, name: e.name, subresource: 'status', fieldManager: managerOf(e) }))
}

/** Applies a merge patch as a controller would (spec/metadata). */
export function patchObject(env: ControllerEnv, e: Entry, patch: object): void {
  guard(() => env.api.patch(e.resource, e.namespace, e.name, 'merge', patch, { fieldManager: managerOf(e) }))
}

export function deleteObject(env: ControllerEnv, e: Entry, opts: { gracePeriodSeconds?: number } = {}): void {
  guard(() => env.api.delete(e.resource, e.namespace, e.name, opts))
}

/** Creates an object; a name clash or a terminating namespace is not an error for a controller. */
export function createObject(env: ControllerEnv, resource: ResourceInfo, obj: object): Entry | undefined {
  let out: Entry | undefined
  guard(() => (out = env.api.create(resource, obj, { fieldManager: 'kube-controller-manager' })))
  return out
}

function managerOf(e: Entry): string {
  return e.resource.kind === 'Pod' ? 'kubelet' : 'kube-controller-manager'
}

/** Controllers race with users and each other: objects that vanished or moved on are skipped. */
function guard(fn: () => unknown): void {
  try {
    fn()
  } catch (err) {
    if (err instanceof SimApiError && [403, 404, 409].includes(err.code)) return
    throw err
  }
}

/** A pod built from a controller's template. */
export function podFromTemplate(owner: Entry, template: any, meta: { name?: string; generateName?: string; labels?: Record<string, string> }, spec: object = {}): object {
  const tm = template?.metadata ?? {}
  return {
    metadata: {
      ...(meta.name ? { name: meta.name } : { generateName: meta.generateName ?? `${owner.name}-` }),
      namespace: owner.namespace,
      labels: { ...(tm.labels ?? {}), ...(meta.labels ?? {}) },
      ...(tm.annotations ? { annotations: tm.annotations } : {}),
      ownerReferences: [ownerReference(owner)],
    },
    spec: { ...(template?.spec ?? {}), ...spec },
  }
}

/** FNV-1a 32-bit of a string, rendered with the API server's safe alphabet (pod-template-hash style). */
export function templateHash(value: unknown): string {
  const text = JSON.stringify(value)
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789'
  return Array.from(String(h), (d) => alphabet[d.charCodeAt(0) % alphabet.length]).join('')
}
