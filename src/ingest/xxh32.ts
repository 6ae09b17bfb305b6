// xxHash32 (seed 0 by default), one-shot and streaming, for LZ4 frame checksums.

const P1 = 0x9e3779b1
const P2 = 0x85ebca77
const P3 = 0xc2b2ae3d
const P4 = 0x27d4eb2f
const P5 = 0x165667b1

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r))
const round = (acc: number, lane: number): number => Math.imul(rotl((acc + Math.imul(lane, P2)) | 0, 13), P1)
const u32le = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)

/** Streaming xxHash32: `update` any number of times, then `digest` (unsigned). */
export class Xxh32 {
  private v1: number
  private v2: number
  private v3: number
  private v4: number
  private total = 0
  private readonly tail = new Uint8Array(16)
  private tailLen = 0

  constructor(private readonly seed = 0) {
    this.v1 = (seed + P1 + P2) | 0
    this.v2 = (seed + P2) | 0
    this.v3 = seed | 0
    this.v4 = (seed - P1) | 0
  }

  update(data: Uint8Array): this {
    let i = 0
    const n = data.length
    this.total += n
    if (this.tailLen > 0) {
      const take = Math.min(16 - this.tailLen, n)
      this.tail.set(data.subarray(0, take), this.tailLen)
      this.tailLen += take
      i = take
      if (this.tailLen < 16) return this
      this.stripe(this.tail, 0)
      this.tailLen = 0
    }
    for (; i + 16 <= n; i += 16) this.stripe(data, i)
    if (i < n) {
      this.tail.set(data.subarray(i), 0)
      this.tailLen = n - i
    }
    return this
  }

  private stripe(b: Uint8Array, i: number): void {
    this.v1 = round(this.v1, u32le(b, i))
    this.v2 = round(this.v2, u32le(b, i + 4))
    this.v3 = round(this.v3, u32le(b, i + 8))
    this.v4 = round(this.v4, u32le(b, i + 12))
  }

  digest(): number {
    let h =
      this.total >= 16
        ? (rotl(this.v1, 1) + rotl(this.v2, 7) + rotl(this.v3, 12) + rotl(this.v4, 18)) | 0
        : (this.seed + P5) | 0
    h = (h + this.total) | 0
    const b = this.tail
    let i = 0
    for (; i + 4 <= this.tailLen; i += 4) h = Math.imul(rotl((h + Math.imul(u32le(b, i), P3)) | 0, 17), P4)
    for (; i < this.tailLen; i++) h = Math.imul(rotl((h + Math.imul(b[i]!, P5)) | 0, 11), P1)
    h ^= h >>> 15
    h = Math.imul(h, P2)
    h ^= h >>> 13
    h = Math.imul(h, P3)
    h ^= h >>> 16
    return h >>> 0
  }
}

/** xxHash32 of `data` (unsigned 32-bit). */
export function xxh32(data: Uint8Array, seed = 0): number {
  return new Xxh32(seed).update(data).digest()
}
