// The model: compact metas and their converters (docs/behaviour.md §2).
export type { ContainerMeta, OwnerKind, OwnerMeta, OwnerRef, PodMeta, StreamEvent, WatchEvent } from './types.ts'
export { compareUtf8, controllerOf, formatIpv4, ownerMetaOf, parseIpv4, podMetaOf } from './convert.ts'
