// What a watch connection hands out for each line (watch.ts), and what its held queue
// (fair-order.ts) reorders.
import type { KubeApiError } from './errors.ts'

/**
 * One decoded watch line. Objects are already converted; `object` is undefined when it had no uid.
 * `receivedAt` (clock ms): when the line was read, for a line held for its size (fair-order.ts).
 */
export type WatchItem<T> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T | undefined; readonly resourceVersion: string; readonly receivedAt?: number }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string; readonly initialEventsEnd: boolean }
  | { readonly type: 'ERROR'; readonly error: KubeApiError }
