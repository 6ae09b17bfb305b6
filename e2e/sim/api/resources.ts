// The resource table: every kind the simulator serves, with its API group, scope and discovery facts.

/** What the server knows about one resource type. */
export interface ResourceInfo {
  /** Plural, as in the URL: `pods`. */
  readonly plural: string
  readonly singular: string
  readonly kind: string
  /** '' for the core group. */
  readonly group: string
  readonly version: string
  /** `v1` or `apps/v1`: the apiVersion written into objects. */
  readonly apiVersion: string
  readonly namespaced: boolean
  readonly shortNames: readonly string[]
  /** Whether metadata.generation is tracked (every kind here except Pod, Namespace, Node, Lease). */
  readonly hasGeneration: boolean
  /** Subresources served besides the object itself. */
  readonly subresources: readonly ('status' | 'scale')[]
  /**
   * Set when the objects are another group's, stored once and shown in both (events.k8s.io/v1 Event
   * is core/v1 Event in storage): the group whose resource of the same plural stores them.
   */
  readonly storageGroup?: string
}

function info(
  plural: string, kind: string, group: string, namespaced: boolean, shortNames: string[],
  hasGeneration: boolean, subresources: ('status' | 'scale')[], storageGroup?: string,
): ResourceInfo {
  const version = 'v1'
  return {
    plural, singular: kind.toLowerCase(), kind, group, version,
    apiVersion: group ? `${group}/${version}` : version,
    namespaced, shortNames, hasGeneration, subresources,
    ...(storageGroup !== undefined ? { storageGroup } : {}),
  }
}

/** Every resource, in discovery order. */
export const RESOURCES: readonly ResourceInfo[] = [
  info('namespaces', 'Namespace', '', false, ['ns'], false, ['status']),
  info('nodes', 'Node', '', false, ['no'], false, ['status']),
  info('pods', 'Pod', '', true, ['po'], false, ['status']),
  info('events', 'Event', '', true, ['ev'], false, []),
  info('daemonsets', 'DaemonSet', 'apps', true, ['ds'], true, ['status']),
  info('deployments', 'Deployment', 'apps', true, ['deploy'], true, ['status', 'scale']),
  info('replicasets', 'ReplicaSet', 'apps', true, ['rs'], true, ['status', 'scale']),
  info('statefulsets', 'StatefulSet', 'apps', true, ['sts'], true, ['status', 'scale']),
  info('cronjobs', 'CronJob', 'batch', true, ['cj'], true, ['status']),
  info('jobs', 'Job', 'batch', true, [], true, ['status']),
  info('leases', 'Lease', 'coordination.k8s.io', true, [], false, []),
  info('events', 'Event', 'events.k8s.io', true, ['ev'], false, [], ''),
]

const byGroupPlural = new Map(RESOURCES.map((r) => [`${r.group}/${r.plural}`, r]))
/** By plural, the stored resource (core `events`, not its events.k8s.io view). */
const byPlural = new Map(RESOURCES.filter((r) => r.storageGroup === undefined).map((r) => [r.plural, r]))
const byKind = new Map(RESOURCES.filter((r) => r.storageGroup === undefined).map((r) => [r.kind, r]))

/** The stored resource for a plural (`events`: core/v1), or undefined. */
export function resourceByPlural(plural: string): ResourceInfo | undefined {
  return byPlural.get(plural)
}

/** The resource a group serves under a plural, or undefined. */
export function resourceFor(group: string, plural: string): ResourceInfo | undefined {
  return byGroupPlural.get(`${group}/${plural}`)
}

/** The resource whose store table holds `r`'s objects (`r` itself but for events.k8s.io events). */
export function storageOf(r: ResourceInfo): ResourceInfo {
  return r.storageGroup === undefined ? r : byGroupPlural.get(`${r.storageGroup}/${r.plural}`)!
}

/** The stored resource for a kind (`ReplicaSet`), or undefined. */
export function resourceByKind(kind: string): ResourceInfo | undefined {
  return byKind.get(kind)
}

/** API groups other than core, with their resources, for discovery. */
export function apiGroups(): Array<{ group: string; version: string; resources: ResourceInfo[] }> {
  const groups = new Map<string, ResourceInfo[]>()
  for (const r of RESOURCES) {
    if (!r.group) continue
    const list = groups.get(r.group) ?? []
    list.push(r)
    groups.set(r.group, list)
  }
  return [...groups].map(([group, resources]) => ({ group, version: 'v1', resources }))
}

/** The store key of an object: `namespace/name` for namespaced kinds, `name` otherwise (etcd key order). */
export function objectKey(resource: ResourceInfo, namespace: string | undefined, name: string): string {
  return resource.namespaced ? `${namespace ?? ''}/${name}` : name
}
