// URL routing: which API path a request addresses (discovery, a resource collection/object/subresource, admin, health).
import { resourceFor, type ResourceInfo } from '../api/resources.ts'

export type Route =
  | { readonly type: 'discovery'; readonly path: string }
  | { readonly type: 'health' }
  | { readonly type: 'openapi'; readonly path: string }
  | { readonly type: 'admin'; readonly segments: readonly string[] }
  | {
      readonly type: 'resource'
      readonly resource: ResourceInfo
      readonly namespace?: string
      readonly name?: string
      readonly subresource?: string
      /** The deprecated `/api/v1/watch/…` form. */
      readonly watchPath: boolean
    }
  | { readonly type: 'notFound' }

/** Parses a request path (without query). */
export function parseRoute(pathname: string): Route {
  const segs = pathname.split('/').filter(Boolean).map(decodeURIComponent)
  const path = '/' + segs.join('/')
  if (['healthz', 'livez', 'readyz'].includes(segs[0] ?? '')) return { type: 'health' }
  if (segs[0] === 'sim') return { type: 'admin', segments: segs.slice(1) }
  if (segs[0] === 'openapi') return { type: 'openapi', path }
  if (path === '/version' || path === '/api' || path === '/apis' || path === '/api/v1') return { type: 'discovery', path }
  let group: string
  let rest: string[]
  if (segs[0] === 'api' && segs[1] === 'v1') {
    group = ''
    rest = segs.slice(2)
  } else if (segs[0] === 'apis' && segs.length >= 2) {
    if (segs.length <= 3) return { type: 'discovery', path }
    group = segs[1]
    if (segs[2] !== 'v1') return { type: 'notFound' }
    rest = segs.slice(3)
  } else return { type: 'notFound' }
  let watchPath = false
  if (rest[0] === 'watch') {
    watchPath = true
    rest = rest.slice(1)
  }
  let namespace: string | undefined
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1]
    rest = rest.slice(2)
  }
  if (rest.length === 0 || rest.length > 3) return { type: 'notFound' }
  const [plural, name, subresource] = rest
  const resource = resourceFor(group, plural)
  if (!resource) return { type: 'notFound' }
  if (namespace !== undefined && !resource.namespaced) return { type: 'notFound' }
  if (namespace === undefined && resource.namespaced && name !== undefined) return { type: 'notFound' }
  if (subresource !== undefined && !resource.subresources.includes(subresource as 'status' | 'scale')) return { type: 'notFound' }
  return { type: 'resource', resource, namespace, name, subresource, watchPath }
}
