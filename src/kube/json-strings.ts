// Strings out of JSON bytes: ASCII and UTF-8 slices, escaped strings, and a cache keyed by bytes.
//
// A slice of a string's bytes decodes like the same bytes inside the whole decoded text: bytes
// ≥ 0x80 are never JSON syntax and an ASCII byte always ends a malformed UTF-8 sequence, so
// invalid UTF-8 becomes the same U+FFFD characters TextDecoder gives for the whole text.

// Node's Buffer has a native Latin-1 slice, several times faster than building the string in JS;
// for ASCII bytes it gives exactly what the portable fallback gives (used where Buffer is absent).
const latin1Slice = (globalThis as { Buffer?: { prototype?: { latin1Slice?: unknown } } }).Buffer?.prototype?.latin1Slice as
  | ((this: Uint8Array, start: number, end: number) => string)
  | undefined
const nativeAscii = typeof latin1Slice === 'function' && latin1Slice.call(new Uint8Array([104, 105]), 0, 2) === 'hi'

// ignoreBOM: a BOM inside a string is a character like any other.
const SLICE_DECODER = new TextDecoder('utf-8', { ignoreBOM: true })

/** The string of ASCII bytes `b[s, e)`. */
export function asciiString(b: Uint8Array, s: number, e: number): string {
  if (s === e) return ''
  if (nativeAscii) return latin1Slice!.call(b, s, e)
  let out = ''
  let k = s
  for (; k + 8 <= e; k += 8) out += String.fromCharCode(b[k], b[k + 1], b[k + 2], b[k + 3], b[k + 4], b[k + 5], b[k + 6], b[k + 7])
  for (; k < e; k++) out += String.fromCharCode(b[k])
  return out
}

/** The string of UTF-8 bytes `b[s, e)`, decoded as TextDecoder does (U+FFFD for invalid sequences). */
export function utf8String(b: Uint8Array, s: number, e: number): string {
  return s === e ? '' : SLICE_DECODER.decode(b.subarray(s, e))
}

/**
 * The value of the validated JSON string `b[q0, q1)` (quotes included) that has escapes; `nonAscii`:
 * it has bytes ≥ 0x80. JSON.parse of the decoded slice gives exactly the reference's string,
 * flat and in time linear in its length, however many escapes and surrogates it holds.
 */
export function escapedString(b: Uint8Array, q0: number, q1: number, nonAscii: boolean): string {
  return JSON.parse(nonAscii ? utf8String(b, q0, q1) : asciiString(b, q0, q1)) as string
}

/** Where the cache's strings come from: each string it makes passes through `intern`. */
export interface StringSource {
  intern(s: string): string
}

const CACHE_SIZE = 2048
// Longer values are not kept (issue 22): the cache holds at most CACHE_SIZE × CACHED_BYTES bytes
// of keys, so one object with long strings cannot make every scanner keep them.
const CACHED_BYTES = 256

/**
 * Values that repeat across objects (namespaces, images, owner and container names), looked up
 * by their bytes before a string is made: a direct-mapped cache of interned strings, each at
 * most 256 bytes long (0.5 MiB of keys at most).
 */
export class ByteStringCache {
  private readonly keys: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(CACHE_SIZE).fill(undefined)
  private readonly strings: string[] = new Array<string>(CACHE_SIZE).fill('')

  constructor(private readonly source: StringSource) {}

  /** A string the cache does not keep (escaped values): interned only. */
  admit(s: string): string {
    return this.source.intern(s)
  }

  /**
   * The interned string of `b[s, e)`, a string's content without escapes; `h` is the FNV-1a hash
   * of those bytes, `high` their OR (≥ 128: not ASCII).
   */
  get(b: Uint8Array, s: number, e: number, h: number, high: number): string {
    const n = e - s
    if (n === 0) return ''
    if (high >= 128) return this.source.intern(utf8String(b, s, e))
    if (n > CACHED_BYTES) return this.source.intern(asciiString(b, s, e))
    const slot = (h ^ (h >>> 16)) & (CACHE_SIZE - 1)
    const key = this.keys[slot]
    if (key !== undefined && key.length === n) {
      let k = 0
      while (k < n && key[k] === b[s + k]) k++
      if (k === n) return this.strings[slot]
    }
    const str = this.source.intern(asciiString(b, s, e))
    this.keys[slot] = b.slice(s, e)
    this.strings[slot] = str
    return str
  }
}
