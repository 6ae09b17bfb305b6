// Validates and skips JSON values over UTF-8 bytes as JSON.parse of the TextDecoder-decoded text
// would: the grammar half of the JSON cursor (json-cursor.ts), which builds nothing.
//
// - a byte ≥ 0x80 outside a string is an error (U+FFFD and other non-ASCII are not JSON whitespace);
// - nesting is unbounded, as JSON.parse's is: the skipper keeps its own stack of open brackets.

/** The bytes are not valid JSON (JSON.parse of the decoded text would throw too). */
export class JsonScanError extends SyntaxError {
  override readonly name = 'JsonScanError'
}

const EMPTY = new Uint8Array(0)
const TRUE: readonly number[] = [116, 114, 117, 101]
const FALSE: readonly number[] = [102, 97, 108, 115, 101]
const NULL: readonly number[] = [110, 117, 108, 108]

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)
}

/**
 * One JSON text at a time: {@link open} it on bytes, skip (or read, json-cursor.ts), then
 * {@link close} it. Synchronous. Index arguments are absolute indices into `buf`.
 */
export class JsonSkipper {
  /** The bytes being read; `end` is the end of the text in them. */
  buf: Uint8Array = EMPTY
  end = 0
  /** Set by the value readers: the index after the value just read. */
  pos = 0
  /** The start of the text, for error offsets. */
  private origin = 0
  /** Open brackets (their closing byte) of the value being skipped; a deeper value grows a copy local to that call. */
  private readonly stack = new Uint8Array(256)

  /**
   * Starts reading `buf[start, end)` (a BOM is not stripped: see {@link openText}); returns the
   * index of its first token. Throws JsonScanError when there is none.
   */
  open(buf: Uint8Array, start: number, end: number): number {
    this.buf = buf
    this.end = end
    this.origin = start
    const at = this.ws(start)
    if (at >= end) this.fail(at)
    return at
  }

  /** Like {@link open} on a whole text, skipping a UTF-8 BOM at its start as TextDecoder does. */
  openText(bytes: Uint8Array): number {
    const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
    return this.open(bytes, bom ? 3 : 0, bytes.length)
  }

  /** After the top-level value ending at `i`: only whitespace may follow. */
  expectEnd(i: number): void {
    i = this.ws(i)
    if (i < this.end) this.fail(i)
  }

  /** Lets go of the bytes (a LIST page or a joined watch line must not stay alive through the cursor). */
  close(): void {
    this.buf = EMPTY
    this.end = 0
  }

  /** Throws the JsonScanError for an unexpected byte at `i` (or the end of input). */
  fail(i: number): never {
    if (i >= this.end) throw new JsonScanError('Unexpected end of JSON input')
    const c = this.buf[i]
    const what = c >= 32 && c < 127 ? `token '${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`
    throw new JsonScanError(`Unexpected ${what} in JSON at byte ${i - this.origin}`)
  }

  /** The index of the first non-whitespace byte at or after `i`. */
  ws(i: number): number {
    const b = this.buf
    const end = this.end
    let c = 0
    while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
    return i
  }

  /**
   * Validates one JSON value starting at (whitespace before) `i` without building anything;
   * returns the index after it. Iterative, so nesting is bounded by the input only. The hot loops
   * (whitespace, strings, keys) are written out on locals: this is where most bytes go.
   */
  skipValue(i: number): number {
    const b = this.buf
    const end = this.end
    let stack = this.stack
    let depth = 0
    let c = 0
    value: for (;;) {
      while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
      if (i >= end) this.fail(i)
      if (c === 34) {
        i++
        for (;;) {
          // Four plain bytes (> '"', not '\\') at a time, then byte by byte.
          while (i + 3 < end && (c = b[i]) > 34 && c !== 92 && (c = b[i + 1]) > 34 && c !== 92 && (c = b[i + 2]) > 34 && c !== 92 && (c = b[i + 3]) > 34 && c !== 92) i += 4
          if (i >= end) this.fail(i)
          c = b[i]
          if (c > 34) {
            if (c !== 92) i++
            else i = this.skipEscape(i)
          } else if (c === 34) break
          else if (c < 32) this.fail(i)
          else i++
        }
        i++
      } else if (c === 123 || c === 91) {
        const close = c + 2 // } or ]
        i++
        while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
        if (i < end && c === close) i++
        else {
          if (depth === stack.length) {
            const grown = new Uint8Array(depth * 2)
            grown.set(stack)
            stack = grown
          }
          stack[depth++] = close
          if (close !== 125) continue value
          // The first key.
          if (i >= end || c !== 34) this.fail(i)
          i = this.skipKeyColon(i)
          continue value
        }
      } else if (c === 45 || (c >= 48 && c <= 57)) i = this.skipNumber(i)
      else if (c === 116) i = this.skipLiteral(i, TRUE)
      else if (c === 102) i = this.skipLiteral(i, FALSE)
      else if (c === 110) i = this.skipLiteral(i, NULL)
      else this.fail(i)
      // After a value: close containers, or go on with the next element / member.
      for (;;) {
        if (depth === 0) return i
        while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
        if (i >= end) this.fail(i)
        const close = stack[depth - 1]
        if (c === 44) {
          i++
          if (close === 125) {
            while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
            if (i >= end || c !== 34) this.fail(i)
            i = this.skipKeyColon(i)
          }
          continue value
        }
        if (c !== close) this.fail(i)
        depth--
        i++
      }
    }
  }

  /**
   * `buf[i]` is the `"` of a key: validates `"key" :`, returns the index after the `:`. The string
   * loop of skipValue again, on purpose: shared, it cost watch lines 4–10 % (bench/README.md).
   */
  private skipKeyColon(i: number): number {
    const b = this.buf
    const end = this.end
    let c = 0
    i++
    for (;;) {
      if (i >= end) this.fail(i)
      c = b[i]
      if (c > 34) {
        if (c !== 92) i++
        else i = this.skipEscape(i)
      } else if (c === 34) break
      else if (c < 32) this.fail(i)
      else i++
    }
    i++
    while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
    if (i >= end || c !== 58) this.fail(i)
    return i + 1
  }

  /** `buf[i]` is a backslash inside a string: validates the escape, returns the index after it. */
  protected skipEscape(i: number): number {
    const b = this.buf
    const end = this.end
    if (i + 1 >= end) this.fail(end)
    const e = b[i + 1]
    if (e === 117) {
      for (let k = i + 2; k < i + 6; k++) if (k >= end || !isHex(b[k])) this.fail(k)
      return i + 6
    }
    if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) return i + 2
    return this.fail(i + 1)
  }

  private skipDigits(i: number): number {
    const b = this.buf
    const end = this.end
    if (i >= end) this.fail(i)
    let c = b[i]
    if (c < 48 || c > 57) this.fail(i)
    i++
    while (i < end && (c = b[i]) >= 48 && c <= 57) i++
    return i
  }

  /** `buf[i]` is `-` or a digit: validates the number grammar, returns the index after it. */
  private skipNumber(i: number): number {
    const b = this.buf
    const end = this.end
    if (b[i] === 45) i++
    if (i >= end) this.fail(i)
    if (b[i] === 48) i++
    else i = this.skipDigits(i)
    if (i < end && b[i] === 46) i = this.skipDigits(i + 1)
    if (i < end && (b[i] | 32) === 101) {
      i++
      if (i < end && (b[i] === 43 || b[i] === 45)) i++
      i = this.skipDigits(i)
    }
    return i
  }

  private skipLiteral(i: number, lit: readonly number[]): number {
    for (let k = 0; k < lit.length; k++) if (i + k >= this.end || this.buf[i + k] !== lit[k]) this.fail(i + k)
    return i + lit.length
  }
}
