// Builders shared by the matcher's tests (test-only module: imported by *.test.ts files alone).
import { expandMessages, type PodOutput } from '../../src/ingest/messages.ts'
import type { ContainerMeta, OwnerMeta, OwnerRef, PodMeta } from '../../src/model/index.ts'

export const rs = (uid: string, deployment?: string, over: Partial<OwnerMeta> = {}): OwnerMeta => ({
  kind: 'ReplicaSet',
  uid,
  name: `rs-${uid}`,
  namespace: 'default',
  resourceVersion: '1',
  ...(deployment ? { controller: { kind: 'Deployment', uid: deployment, name: `dep-${deployment}` } } : {}),
  ...over,
})

export const job = (uid: string, cronJob?: string): OwnerMeta => ({
  kind: 'Job',
  uid,
  name: `job-${uid}`,
  namespace: 'default',
  resourceVersion: '1',
  ...(cronJob ? { controller: { kind: 'CronJob', uid: cronJob, name: `cron-${cronJob}` } } : {}),
})

export const ctr = (id: string, name = 'c', image = 'img:1'): ContainerMeta => ({ id: `containerd://${id}`, name, image })

export const pod = (uid: string, owner?: OwnerRef, over: Partial<PodMeta> = {}): PodMeta => ({
  uid,
  name: `pod-${uid}`,
  namespace: 'default',
  resourceVersion: '1',
  ip: 0x0a000001,
  hasIp: true,
  hostNetwork: false,
  version: "'img:1'",
  containers: [ctr(`${uid}-0`)],
  ...(owner ? { owner } : {}),
  ...over,
})

export const ownedBy = (kind: string, uid: string, name = `${kind.toLowerCase()}-${uid}`): OwnerRef => ({ kind, uid, name })

/** A compact, readable rendering of messages for assertions. */
export function show(msgs: readonly PodOutput[]): string[] {
  return expandMessages(msgs).map((m) => {
    switch (m.type) {
      case 'pod_new_with_name':
        return `new ${m.uid} owner=${m.ownerKind}/${m.ownerUid}/${m.ownerName} ip=${m.ip.toString(16)} v=${m.version}${m.isHostNetwork ? ' host' : ''}`
      case 'pod_container':
        return `ctr ${m.uid} ${m.containerId}`
      case 'pod_delete':
        return `del ${m.uid}`
      case 'pod_resync':
        return `resync ${m.resyncCount}`
    }
  })
}

/**
 * Every field of a PodMeta as read, as plain objects (the converters build class instances whose
 * fields may be getters: src/model/records.ts), so two metas compare field for field.
 */
export const podMetaFields = (m: PodMeta) => ({
  uid: m.uid,
  name: m.name,
  namespace: m.namespace,
  resourceVersion: m.resourceVersion,
  ip: m.ip,
  hasIp: m.hasIp,
  hostNetwork: m.hostNetwork,
  version: m.version,
  containers: m.containers.map((c) => ({ id: c.id, name: c.name, image: c.image })),
  owner: m.owner && { ...m.owner },
})
