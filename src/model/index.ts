// The model: compact metas, their converters and the caches they share (docs/behaviour.md §2).
export type { ContainerMeta, OwnerKind, OwnerMeta, OwnerRef, PodMeta, StreamEvent, WatchEvent } from './types.ts'
export { formatIpv4, ownerMetaOf, parseIpv4, podMetaOf } from './convert.ts'
export { compareUtf8 } from './utf8-order.ts'
export { createModelContext, type ModelContext, type ModelLimits, type ModelStats } from './context.ts'
