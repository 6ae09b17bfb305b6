// UTF-8 lengths and prefixes of JavaScript strings, without encoding them (pure: no I/O, no state).

/** The UTF-8 length of `s` (a lone surrogate counts as U+FFFD, 3 bytes, as TextEncoder writes it). */
export function utf8Length(s: string): number {
  let bytes = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) continue
    if (c < 0x800) bytes += 1
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2 // a pair: 2 code units, 4 bytes
      i++
    } else bytes += 2
  }
  return bytes
}

/** The longest prefix of `s` whose UTF-8 encoding fits `maxBytes` (never splits a character). */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes) return s
  let bytes = 0
  let i = 0
  while (i < s.length) {
    const c = s.codePointAt(i)!
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4
    if (bytes + n > maxBytes) break
    bytes += n
    i += c >= 0x10000 ? 2 : 1
  }
  return s.slice(0, i)
}
