import { describe, expect, it } from 'vitest'
import { isWatchedOwnerKind, ownerKindCode, ownerKindName, OwnerKindCode, WATCHED_OWNER_KINDS } from './owner-kinds.ts'

describe('owner kinds', () => {
  it.each([
    ['ReplicaSet', 0],
    ['Deployment', 1],
    ['Job', 2],
    ['CronJob', 3],
    ['DaemonSet', 255],
    ['StatefulSet', 255],
    ['Node', 255],
    // The protocol's own names are no Kubernetes kinds: a custom kind so named is Other.
    ['NoOwner', 255],
    ['Other', 255],
    ['toString', 255],
  ])('%s is code %i', (kind, code) => {
    expect(ownerKindCode(kind)).toBe(code)
  })

  it('names every code of the protocol and nothing else', () => {
    for (const [name, code] of Object.entries(OwnerKindCode)) expect(ownerKindName(code)).toBe(name)
    expect(ownerKindName(4)).toBeUndefined()
  })

  it('escalates ReplicaSet to Deployment and Job to CronJob, fed by their streams', () => {
    expect(WATCHED_OWNER_KINDS).toEqual({ ReplicaSet: { stream: 'replicasets', controller: 'Deployment' }, Job: { stream: 'jobs', controller: 'CronJob' } })
    expect(['ReplicaSet', 'Job', 'Deployment', 'CronJob', 'toString'].filter(isWatchedOwnerKind)).toEqual(['ReplicaSet', 'Job'])
  })
})
