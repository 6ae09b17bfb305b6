// Line framing of a watch body: UTF-8 bytes in, one byte range per `\n`-terminated line out,
// decoded only when asked (`\n` never occurs inside a UTF-8 sequence, so splitting the bytes is
// exact and a character split across chunks is kept whole). A line spanning several chunks is
// kept as a list of parts and joined once when its `\n` arrives, so a huge line costs O(length),
// never a quadratic re-concatenation.
import { concatBytes, plainBytes } from '../bytes.ts'

const EMPTY = new Uint8Array(0)
const KEEP_BOM = new TextDecoder('utf-8', { ignoreBOM: true })

/** The line `buf[start, end)` decoded as UTF-8; a BOM is kept (JSON.parse rejects it, as it should). */
export function lineText(buf: Uint8Array, start: number, end: number): string {
  return KEEP_BOM.decode(buf.subarray(start, end))
}

/**
 * Splits a byte stream into lines without decoding it: after {@link ByteLineFramer.push}, each
 * {@link ByteLineFramer.next} that returns true exposes one line as `buf[start, end)` (without
 * its `\n`; a `\r` before it is kept), valid until the next call. A line inside one chunk is a
 * view of that chunk; a line spanning chunks is kept as a list of parts and joined once.
 * A UTF-8 BOM at the very start of the stream is dropped, as the streaming TextDecoder does.
 */
export class ByteLineFramer {
  buf: Uint8Array = EMPTY
  start = 0
  end = 0
  private chunk: Uint8Array = EMPTY
  private at = 0
  private parts: Uint8Array[] = []
  private pending = 0
  private first = true

  /** Hands over the next chunk; call {@link next} until it returns false before pushing again. */
  push(chunk: Uint8Array): void {
    this.chunk = plainBytes(chunk)
    this.at = 0
  }

  /** Exposes the next complete line of the pushed chunks; false when the chunk is used up. */
  next(): boolean {
    const chunk = this.chunk
    const at = this.at
    if (at >= chunk.length) return false
    const nl = chunk.indexOf(10, at)
    if (nl < 0) {
      this.parts.push(chunk.subarray(at))
      this.pending += chunk.length - at
      this.at = chunk.length
      return false
    }
    this.at = nl + 1
    if (this.parts.length === 0) {
      this.buf = chunk
      this.start = at
      this.end = nl
    } else {
      this.parts.push(chunk.subarray(at, nl))
      this.joinParts(this.pending + nl - at)
    }
    if (this.first) {
      this.first = false
      this.skipBom()
    }
    return true
  }

  /** The current line decoded (for messages and the JSON.parse path); a BOM inside is kept. */
  text(): string {
    return lineText(this.buf, this.start, this.end)
  }

  /** The bytes after the last `\n` decoded (a truncated last line); '' when the body ended on a line end. */
  rest(): string {
    if (this.parts.length === 0) return ''
    this.joinParts(this.pending)
    if (this.first) {
      this.first = false
      this.skipBom()
    }
    return this.text()
  }

  /** Bytes currently held for an unfinished line (for memory accounting). */
  get pendingLength(): number {
    return this.pending
  }

  /** The held parts (`length` bytes in all) become the current line. */
  private joinParts(length: number): void {
    this.buf = concatBytes(this.parts, length)
    this.start = 0
    this.end = this.buf.length
    this.parts = []
    this.pending = 0
  }

  private skipBom(): void {
    const b = this.buf
    const s = this.start
    if (this.end - s >= 3 && b[s] === 0xef && b[s + 1] === 0xbb && b[s + 2] === 0xbf) this.start = s + 3
  }
}
