// Discovery documents (/version, /api, /apis, /api/v1, /apis/GROUP[/v1]) as kubectl and client libraries read them.
import { apiGroups, RESOURCES, type ResourceInfo } from '../api/resources.ts'

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']

/** The JSON body for a discovery path, or undefined when the path is not a discovery document. */
export function discoveryDocument(path: string, serverAddress: string): string | undefined {
  if (path === '/version') {
    return JSON.stringify({
      major: '1', minor: '32', gitVersion: 'v1.32.2-sim', gitCommit: '0000000000000000000000000000000000000000',
      gitTreeState: 'clean', buildDate: '2025-02-12T00:00:00Z', goVersion: 'go1.23.6', compiler: 'gc', platform: 'linux/amd64',
    })
  }
  if (path === '/api') {
    return JSON.stringify({
      kind: 'APIVersions', versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    })
  }
  if (path === '/apis') {
    return JSON.stringify({
      kind: 'APIGroupList', apiVersion: 'v1',
      groups: apiGroups().map(({ group }) => groupDoc(group)),
    })
  }
  if (path === '/api/v1') return resourceList('v1', RESOURCES.filter((r) => !r.group))
  const m = /^\/apis\/([^/]+)(?:\/(v1))?$/.exec(path)
  if (m) {
    const g = apiGroups().find((x) => x.group === m[1])
    if (!g) return undefined
    if (!m[2]) return JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g.group) })
    return resourceList(`${g.group}/v1`, g.resources)
  }
  return undefined
}

function groupDoc(group: string): object {
  const version = { groupVersion: `${group}/v1`, version: 'v1' }
  return { name: group, versions: [version], preferredVersion: version }
}

function resourceList(groupVersion: string, resources: readonly ResourceInfo[]): string {
  const list: object[] = []
  for (const r of resources) {
    list.push({
      name: r.plural, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: VERBS,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
    })
    for (const sub of r.subresources) {
      list.push(sub === 'scale'
        ? { name: `${r.plural}/scale`, singularName: '', namespaced: r.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] }
        : { name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] })
    }
  }
  return JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: list })
}
