// A reader of JSON tokens over UTF-8 bytes that validates like JSON.parse (json-skip.ts) and
// builds only the strings asked for (json-strings.ts: like TextDecoder + JSON.parse, lone
// surrogates included). The caller walks objects and arrays with firstKey/nextKey and
// firstElement/nextElement, reads the values it wants and skips the others; each reader leaves
// `pos` after the value it read.
import { JsonSkipper } from './json-skip.ts'
import { asciiString, escapedString, utf8String, type ByteStringCache } from './json-strings.ts'

/** Object keys a reader looks for, as bytes and as names (see {@link JsonCursor.readKey}). */
export interface KeyTable {
  readonly bytes: readonly Uint8Array[]
  readonly names: readonly string[]
}

const encoder = new TextEncoder()

/** A {@link KeyTable} of these names, in this order. */
export function keyTable(...names: string[]): KeyTable {
  return { bytes: names.map((n) => encoder.encode(n)), names }
}

/** A cursor over one JSON text at a time (see {@link JsonSkipper}) that reads keys and values. */
export class JsonCursor extends JsonSkipper {
  // ---- objects and arrays ----------------------------------------------------------------------
  // Each object kind is one loop with a switch on the key (no callbacks):
  //   for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) switch (cur.readKey(k, TABLE)) { … }
  // where every case reads (or skips) the value at `pos` and leaves `pos` after it.

  /** `buf[i]` is `{`: the index of the first key's `"`, or -1 for `{}` (pos = after the `}`). */
  firstKey(i: number): number {
    return this.keyAt(this.first(i, 125))
  }

  /** `i` after a member's value: the index of the next key's `"`, or -1 at the `}` (pos = after it). */
  nextKey(i: number): number {
    return this.keyAt(this.next(i, 125))
  }

  /** `buf[i]` is `[`: the index of the first element, or -1 for `[]` (pos = after the `]`). */
  firstElement(i: number): number {
    return this.first(i, 93)
  }

  /** `i` after an element: the index of the next element, or -1 at the `]` (pos = after it). */
  nextElement(i: number): number {
    return this.next(i, 93)
  }

  /** Whether the value at `i` starts with the byte `open` (`{`, `[`, `"`); else it is skipped (pos = after it). */
  opens(i: number, open: number): boolean {
    if (this.buf[i] === open) return true
    this.pos = this.skipValue(i)
    return false
  }

  /** `buf[i]` opens a container closed by `close`: its first item, or -1 when empty (pos = after it). */
  private first(i: number, close: number): number {
    i = this.ws(i + 1)
    if (i >= this.end) this.fail(i)
    if (this.buf[i] !== close) return i
    this.pos = i + 1
    return -1
  }

  /** `i` after an item of a container closed by `close`: the next item, or -1 at its end (pos = after it). */
  private next(i: number, close: number): number {
    i = this.ws(i)
    if (i >= this.end) this.fail(i)
    const c = this.buf[i]
    if (c === 44) {
      i = this.ws(i + 1)
      if (i >= this.end) this.fail(i)
      return i
    }
    if (c !== close) this.fail(i)
    this.pos = i + 1
    return -1
  }

  /** An object's item `i` (-1: none) must be a key's `"`. */
  private keyAt(i: number): number {
    if (i >= 0 && this.buf[i] !== 34) this.fail(i)
    return i
  }

  /**
   * `buf[i]` is the `"` of a key: validates `"key" :` and returns the key's index in `table`
   * (-1 when absent, escaped keys decoded first); pos = the start of the value after it.
   */
  readKey(i: number, table: KeyTable): number {
    const b = this.buf
    const end = this.end
    const s = i + 1
    let j = s
    let escaped = false
    for (;;) {
      if (j >= end) this.fail(j)
      const c = b[j]
      if (c === 34) break
      if (c === 92) {
        escaped = true
        j = this.skipEscape(j)
      } else if (c < 32) this.fail(j)
      else j++
    }
    let k = this.ws(j + 1)
    if (k >= end || b[k] !== 58) this.fail(k)
    k = this.ws(k + 1)
    if (k >= end) this.fail(k)
    this.pos = k
    if (escaped) {
      const name = this.readEscaped(s, s, 0)
      this.pos = k
      return table.names.indexOf(name)
    }
    const n = j - s
    const list = table.bytes
    next: for (let t = 0; t < list.length; t++) {
      const key = list[t]
      if (key.length !== n) continue
      for (let q = 0; q < n; q++) if (b[s + q] !== key[q]) continue next
      return t
    }
    return -1
  }

  // ---- values ---------------------------------------------------------------------------------

  /** The value at `i` when it is a string (else '', the value skipped); pos = after it. */
  readStr(i: number): string {
    return this.opens(i, 34) ? this.readString(i) : ''
  }

  /** Whether the value at `i` is literally `true` (any other value skipped); pos = after it. */
  readTrue(i: number): boolean {
    const isTrue = this.buf[i] === 116 // else skipValue throws
    this.pos = this.skipValue(i)
    return isTrue
  }

  /** `buf[i]` is `"`: the decoded string; pos = after the closing quote. */
  readString(i: number): string {
    const b = this.buf
    const end = this.end
    const s = i + 1
    let j = s
    let high = 0
    for (;;) {
      if (j >= end) this.fail(j)
      const c = b[j]
      if (c === 34) break
      if (c === 92) return this.readEscaped(s, j, high)
      if (c < 32) this.fail(j)
      high |= c
      j++
    }
    this.pos = j + 1
    return high < 128 ? asciiString(b, s, j) : utf8String(b, s, j)
  }

  /**
   * Like {@link readStr}, through `cache` (strings keyed by their bytes): a repeated value costs
   * a byte compare instead of a new string.
   */
  readCached(i: number, cache: ByteStringCache): string {
    if (!this.opens(i, 34)) return ''
    const b = this.buf
    const end = this.end
    const s = i + 1
    let j = s
    let h = 0x811c9dc5 | 0
    let high = 0
    for (;;) {
      if (j >= end) this.fail(j)
      const c = b[j]
      if (c === 34) break
      if (c === 92) return cache.admit(this.readEscaped(s, j, high))
      if (c < 32) this.fail(j)
      high |= c
      h = Math.imul(h ^ c, 0x01000193)
      j++
    }
    this.pos = j + 1
    return cache.get(b, s, j, h, high)
  }

  /**
   * A string with escapes from its first content byte `s`, read on from `j` (`high`: the OR of the
   * bytes before `j`): validated to its closing quote, then decoded; pos = after it.
   */
  private readEscaped(s: number, j: number, high: number): string {
    const b = this.buf
    const end = this.end
    for (;;) {
      if (j >= end) this.fail(j)
      const c = b[j]
      if (c === 34) break
      if (c === 92) j = this.skipEscape(j)
      else if (c < 32) this.fail(j)
      else {
        high |= c
        j++
      }
    }
    this.pos = j + 1
    return escapedString(b, s - 1, j + 1, high >= 128)
  }
}
