// A pure TypeScript LZ4 block decoder that can see the previous 64 KiB of output, for frames with
// linked blocks (the original C++ relay sent them). Hand-written on purpose: lz4-wasm's decompress
// has no dictionary/prefix input, and the pure-JS LZ4 packages on npm either do not decode linked
// blocks or are unmaintained; this is the only decoder the tap needs.
import { Lz4FrameError } from './errors.ts'

/**
 * Decodes the LZ4 block `src` into `dst` starting at `dstStart`; matches may reach back to
 * `lowest` (the start of usable history: `dstStart` for independent blocks). Returns the new end
 * of output. Throws {@link Lz4FrameError} for corrupt input or output beyond `dstLimit`.
 */
export function decodeBlock(src: Uint8Array, dst: Uint8Array, dstStart: number, lowest: number, dstLimit: number): number {
  let i = 0
  let o = dstStart
  const end = src.length
  if (end === 0) throw new Lz4FrameError('empty compressed block')
  for (;;) {
    const token = src[i++]!
    let lit = token >>> 4
    if (lit === 15) {
      let b: number
      do {
        if (i >= end) throw new Lz4FrameError('corrupt block: literal length runs past the block')
        b = src[i++]!
        lit += b
      } while (b === 255)
    }
    if (i + lit > end) throw new Lz4FrameError('corrupt block: literals run past the block')
    if (o + lit > dstLimit) throw new Lz4FrameError('corrupt block: output exceeds the maximum block size')
    dst.set(src.subarray(i, i + lit), o)
    i += lit
    o += lit
    if (i === end) return o // the last sequence has literals only
    if (i + 2 > end) throw new Lz4FrameError('corrupt block: truncated match offset')
    const offset = src[i]! | (src[i + 1]! << 8)
    i += 2
    if (offset === 0 || o - offset < lowest) throw new Lz4FrameError(`corrupt block: match offset ${offset} reaches before the window`)
    let len = token & 15
    if (len === 15) {
      let b: number
      do {
        if (i >= end) throw new Lz4FrameError('corrupt block: match length runs past the block')
        b = src[i++]!
        len += b
      } while (b === 255)
    }
    len += 4
    if (o + len > dstLimit) throw new Lz4FrameError('corrupt block: output exceeds the maximum block size')
    let from = o - offset
    if (offset >= len) {
      dst.copyWithin(o, from, from + len)
      o += len
    } else {
      // Overlapping match: byte by byte repeats the pattern.
      for (const stop = o + len; o < stop; ) dst[o++] = dst[from++]!
    }
  }
}
