// The three watched collections (docs/behaviour.md §1): where they live, what to Accept, how to convert.
import type { ModelContext } from '../model/context.ts'
import { ownerMetaOf, podMetaOf } from '../model/convert.ts'
import type { OwnerMeta, PodMeta } from '../model/types.ts'
import { createPodProtoScanner, PROTOBUF, type ProtoScanner } from './pod-proto.ts'
import { createOwnerScanner, createPodScanner, type ByteScanner } from './pod-scanner.ts'

/** What the watch layer reads of every converted object: its uid and its resource version. */
export interface KubeObject {
  readonly uid: string
  readonly resourceVersion: string
}

/** A watched collection across all namespaces and the converter applied to each of its objects. */
export interface ResourceSpec<T extends KubeObject> {
  /** The plural, used in logs and stats (`pods`, `replicasets`, `jobs`). */
  readonly name: string
  /** Collection path, e.g. `/api/v1/pods`. */
  readonly path: string
  /** `Accept` for LIST requests. */
  readonly listAccept: string
  /** `Accept` for WATCH requests (and streaming lists, which are watches). */
  readonly watchAccept: string
  /**
   * Parsed JSON object → compact meta; undefined when it has no `metadata.uid` (docs/behaviour.md §9).
   * `listed`: an item of the stream's first LIST, which the core keeps, not a watch event's object
   * or a relist's item (pods allocate it otherwise: src/model/records.ts).
   */
  readonly convert: (obj: unknown, listed: boolean) => T | undefined
  /**
   * Optional byte-level fast path (src/kube/pod-scanner.ts): LIST bodies and watch lines as UTF-8 bytes
   * straight to metas, with the same results as JSON.parse + `convert` (every collection has one;
   * `convert` stays for what the scanner rejects, and as the reference of the tests).
   */
  readonly scan?: ByteScanner<T>
  /**
   * Optional protobuf reader (pod-proto.ts): with a client that asks for protobuf
   * (`KubeClient.encoding`), LIST and WATCH ask for it first and JSON second, and each response
   * is read by its `Content-Type`.
   */
  readonly proto?: ProtoScanner<T>
}

/** `Accept` of a resource with a protobuf reader, when the client asks for protobuf. */
const PROTOBUF_FIRST = `${PROTOBUF},application/json`

/** The `Accept` of a LIST or WATCH of `spec`: protobuf first where it has a reader and the client asks for it, else `json`. */
export function acceptOf(spec: { readonly proto?: unknown }, encoding: 'protobuf' | 'json' | undefined, json: string): string {
  return spec.proto !== undefined && encoding === 'protobuf' ? PROTOBUF_FIRST : json
}

/** The collections' paths, by stream. */
export const RESOURCE_PATHS = {
  pods: '/api/v1/pods',
  replicasets: '/apis/apps/v1/replicasets',
  jobs: '/apis/batch/v1/jobs',
} as const

const JSON_ONLY = 'application/json'
// docs/kube-api.md "Metadata only": plural for LIST, singular for WATCH, full objects as the fallback.
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json'
const METADATA_WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json'

/** `v1/Pod`, full objects (containerStatuses and podIPs are needed), converted through `model`. */
export const podsResource = (model: ModelContext): ResourceSpec<PodMeta> => ({
  name: 'pods',
  path: RESOURCE_PATHS.pods,
  listAccept: JSON_ONLY,
  watchAccept: JSON_ONLY,
  convert: (obj, listed) => podMetaOf(model, obj, listed),
  scan: createPodScanner(model),
  proto: createPodProtoScanner(model),
})

/** `apps/v1` ReplicaSets, metadata only, converted through `model`. */
export const replicaSetsResource = (model: ModelContext): ResourceSpec<OwnerMeta> => ({
  name: 'replicasets',
  path: RESOURCE_PATHS.replicasets,
  listAccept: METADATA_LIST,
  watchAccept: METADATA_WATCH,
  convert: (obj) => ownerMetaOf(model, 'ReplicaSet', obj),
  scan: createOwnerScanner(model, 'ReplicaSet'),
})

/** `batch/v1` Jobs, metadata only, converted through `model`. */
export const jobsResource = (model: ModelContext): ResourceSpec<OwnerMeta> => ({
  name: 'jobs',
  path: RESOURCE_PATHS.jobs,
  listAccept: METADATA_LIST,
  watchAccept: METADATA_WATCH,
  convert: (obj) => ownerMetaOf(model, 'Job', obj),
  scan: createOwnerScanner(model, 'Job'),
})
