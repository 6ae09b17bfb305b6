// A forward-only reader of the protobuf wire format over a byte range, with range checks: what the
// protobuf readers of Kubernetes objects (pod-proto.ts) walk. Numbers past 2^53 are not needed
// (tags, lengths, booleans), so varints are read as JS numbers and a longer one is an error.

/** Bytes that are not the protobuf the reader expects (truncated, a bad tag or length). */
export class ProtoDecodeError extends Error {
  override name = 'ProtoDecodeError'
}

export const WIRE_VARINT = 0
export const WIRE_I64 = 1
export const WIRE_LEN = 2
export const WIRE_I32 = 5

/** Reads fields of `buf[pos, end)`; a length-delimited field's value is `[pos, valueEnd)` after {@link ProtoReader.len}. */
export class ProtoReader {
  buf: Uint8Array = new Uint8Array(0)
  pos = 0

  /** Starts on `buf` (kept for sub-ranges). */
  reset(buf: Uint8Array, pos: number): void {
    this.buf = buf
    this.pos = pos
  }

  /** A varint that fits 2^53 (a 10-byte int64 varint of a negative number is refused). */
  varint(end: number): number {
    const b = this.buf
    let value = 0
    let mul = 1
    for (let i = 0; i < 8; i++) {
      if (this.pos >= end) throw new ProtoDecodeError(`truncated varint at byte ${this.pos}`)
      const c = b[this.pos++]
      value += (c & 0x7f) * mul
      if (c < 0x80) return value
      mul *= 128
    }
    throw new ProtoDecodeError(`varint past 2^53 at byte ${this.pos}`)
  }

  /** A field's key: `field << 3 | wire type`. */
  tag(end: number): number {
    const t = this.varint(end)
    if (t < 8) throw new ProtoDecodeError(`field number 0 at byte ${this.pos}`)
    return t
  }

  /** A length-delimited value's end; pos = its first byte. */
  len(end: number): number {
    const n = this.varint(end)
    const valueEnd = this.pos + n
    if (valueEnd > end) throw new ProtoDecodeError(`length ${n} at byte ${this.pos} runs past its message (${end - this.pos} bytes left)`)
    return valueEnd
  }

  /** A bool (any non-zero varint is true, as in Go). */
  bool(end: number): boolean {
    return this.varint(end) !== 0
  }

  /** Skips the value of a field of wire type `wire` (groups are not Kubernetes' and are refused). */
  skip(wire: number, end: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint(end)
        return
      case WIRE_I64:
        this.pos += 8
        break
      case WIRE_LEN:
        this.pos = this.len(end)
        return
      case WIRE_I32:
        this.pos += 4
        break
      default:
        throw new ProtoDecodeError(`wire type ${wire} at byte ${this.pos}`)
    }
    if (this.pos > end) throw new ProtoDecodeError(`fixed-size value runs past its message at byte ${end}`)
  }
}
