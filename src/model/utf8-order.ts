// String order as UTF-8 bytes compare, without encoding: image lists are sorted so (the "version"
// of a pod, docs/behaviour.md §2), and so is the tap's snapshot.

/**
 * Compares two strings in UTF-8 byte order (= code point order), which differs from JavaScript's
 * UTF-16 order when a supplementary character meets one in U+E000–U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const xs = x >= 0xd800 && x <= 0xdfff
    const ys = y >= 0xd800 && y <= 0xdfff
    if (xs && !ys && y >= 0xe000) return 1
    if (ys && !xs && x >= 0xe000) return -1
    return x - y
  }
  return a.length - b.length
}
