// Length-prefixed framing of a protobuf watch body (docs/kube-api.md "Protobuf responses"): each
// frame is a 4-byte big-endian length and that many bytes. The same surface as ByteLineFramer
// (lines.ts), so the watch reads frames as it reads lines: a frame inside one chunk is a view of
// it; a frame spanning chunks is collected in parts and joined once.
import { concatBytes, plainBytes } from '../bytes.ts'

const EMPTY = new Uint8Array(0)

/** Splits a byte stream into length-prefixed frames; each {@link next} that returns true exposes one as `buf[start, end)`. */
export class ByteFrameFramer {
  buf: Uint8Array = EMPTY
  start = 0
  end = 0
  private chunk: Uint8Array = EMPTY
  private at = 0
  /** The prefix's bytes read so far (0–4) and its value. */
  private prefixBytes = 0
  private length = 0
  private parts: Uint8Array[] = []
  private pending = 0

  /** Hands over the next chunk; call {@link next} until it returns false before pushing again. */
  push(chunk: Uint8Array): void {
    this.chunk = plainBytes(chunk)
    this.at = 0
  }

  /** Exposes the next complete frame of the pushed chunks; false when the chunk is used up. */
  next(): boolean {
    const chunk = this.chunk
    while (this.prefixBytes < 4) {
      if (this.at >= chunk.length) return false
      this.length = this.length * 256 + chunk[this.at++]
      this.prefixBytes++
    }
    const need = this.length - this.pending
    const have = chunk.length - this.at
    if (have < need) {
      if (have > 0) this.parts.push(chunk.subarray(this.at))
      this.pending += have
      this.at = chunk.length
      return false
    }
    if (this.parts.length === 0) {
      this.buf = chunk
      this.start = this.at
      this.end = this.at + need
    } else {
      this.parts.push(chunk.subarray(this.at, this.at + need))
      this.buf = concatBytes(this.parts, this.length)
      this.start = 0
      this.end = this.length
      this.parts = []
    }
    this.at += need
    this.pending = 0
    this.prefixBytes = 0
    this.length = 0
    return true
  }

  /** '' when the body ended between frames, else what was left unfinished (for the error message). */
  rest(): string {
    if (this.prefixBytes === 0) return ''
    return this.prefixBytes < 4 ? `${this.prefixBytes} bytes of a length prefix` : `${this.pending} of a ${this.length}-byte frame`
  }

  /** Bytes currently held for an unfinished frame (for memory accounting). */
  get pendingLength(): number {
    return this.pending
  }
}
