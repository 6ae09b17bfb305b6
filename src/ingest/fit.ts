// Shortening of oversize blobs so every message fits docs/protocol.md §1.3 (docs/behaviour.md §9).
import { field, LAYOUT_BY_TYPE, MAX_LEN } from './layout.ts'
import type { IngestMessage } from './messages.ts'
import { truncateUtf8 } from '../util/utf8.ts'

const utf8 = new TextEncoder()
const utf8Length = (s: string): number => (s.length === 0 ? 0 : utf8.encode(s).length)

/**
 * Returns `msg` unchanged when it fits, else a copy whose blobs are shortened (at UTF-8
 * boundaries) until it does: `version` first, then the longest remaining blob; every non-last blob
 * also stays within its u16 length.
 */
export function fitMessage<M extends IngestMessage>(msg: M): { message: M; shortened: boolean } {
  const layout = LAYOUT_BY_TYPE.get(msg.type)
  if (!layout || layout.blobs.length === 0) return { message: msg, shortened: false }
  const blobs = layout.blobs
  let total = layout.headerSize
  const lengths = blobs.map((name) => {
    const n = utf8Length(String(field(msg, name) ?? ''))
    total += n
    return n
  })
  const perBlobOk = lengths.every((n, i) => i === blobs.length - 1 || n <= 0xffff)
  if (total <= MAX_LEN && perBlobOk) return { message: msg, shortened: false }

  const copy: Record<string, unknown> = { ...msg }
  for (let i = 0; i < blobs.length - 1; i++) {
    if (lengths[i]! > 0xffff) {
      const s = truncateUtf8(String(copy[blobs[i]!]), 0xffff)
      total -= lengths[i]! - utf8Length(s)
      lengths[i] = utf8Length(s)
      copy[blobs[i]!] = s
    }
  }
  const order = blobs.map((_, i) => i)
  const versionAt = blobs.indexOf('version')
  while (total > MAX_LEN) {
    // `version` first (docs/behaviour.md §9), then the longest blob.
    let pickAt = versionAt >= 0 && lengths[versionAt]! > 0 ? versionAt : -1
    if (pickAt < 0) pickAt = order.reduce((best, i) => (lengths[i]! > lengths[best]! ? i : best), 0)
    const name = blobs[pickAt]!
    const excess = total - MAX_LEN
    const s = truncateUtf8(String(copy[name]), Math.max(0, lengths[pickAt]! - excess))
    const n = utf8Length(s)
    total -= lengths[pickAt]! - n
    lengths[pickAt] = n
    copy[name] = s
  }
  return { message: copy as M, shortened: true }
}
