// Accept-header negotiation: plain JSON, metadata-only (PartialObjectMetadata[List]) or Table (docs/kube-api.md LIST).
import { errors } from '../api/errors.ts'

/** What the response carries: `protobuf` is the full object as Kubernetes protobuf (pods, when the simulator serves it). */
export type Representation = 'full' | 'meta' | 'table' | 'protobuf'

/** The endpoint shape: a list, a watch stream, or one object. */
export type Endpoint = 'list' | 'watch' | 'object'

/**
 * Picks the representation from `Accept`. Clauses are tried in order; media types the simulator
 * cannot produce (yaml, protobuf but of pods' lists and watches with `protobuf`, aggregated
 * discovery, Table on a watch) are skipped. A metadata
 * transform of the wrong arity (`PartialObjectMetadataList` on a watch or object,
 * `PartialObjectMetadata` on a list) is a 406, as on a real server; nothing acceptable is a 406 too.
 */
export function negotiate(accept: string | undefined, endpoint: Endpoint, kindName: string, protobuf = false): Representation {
  if (!accept || !accept.trim()) return 'full'
  for (const clause of accept.split(',')) {
    const [typePart, ...paramParts] = clause.split(';')
    const type = typePart.trim().toLowerCase()
    // Protobuf of the full object, where this simulator encodes the kind (`protobuf`); no transform parameters.
    if (type === 'application/vnd.kubernetes.protobuf' && protobuf && endpoint !== 'object' && paramParts.length === 0) return 'protobuf'
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue
    const params: Record<string, string> = {}
    for (const p of paramParts) {
      const eq = p.indexOf('=')
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim()
    }
    const as = params.as
    if (!as) return 'full'
    const metaGroup = (params.g ?? '') === 'meta.k8s.io' && ['v1', 'v1beta1'].includes(params.v ?? '')
    if (!metaGroup) continue
    switch (as) {
      case 'PartialObjectMetadataList':
        if (endpoint === 'list') return 'meta'
        throw errors.notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (*v1.${kindName})`)
      case 'PartialObjectMetadata':
        if (endpoint !== 'list') return 'meta'
        throw errors.notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (*v1.${kindName}List)`)
      case 'Table':
        if (endpoint !== 'watch') return 'table'
        continue
      default:
        continue
    }
  }
  throw errors.notAcceptable('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf')
}
