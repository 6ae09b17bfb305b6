// A selective byte-level scanner for pod JSON: reads the UTF-8 bytes of a LIST page or a watch
// line and extracts exactly what `podMetaOf(JSON.parse(text))` extracts, skipping everything else
// without building objects. It validates the whole text the way JSON.parse does (skipped regions
// included) and throws a JsonScanError exactly when JSON.parse of the decoded text would throw.
//
// Semantics reproduced from JSON.parse + TextDecoder (non-fatal, BOM-stripping at the start):
// - duplicate keys: the last occurrence wins, also for whole nested objects (`metadata` twice);
// - keys and values may be escaped (`"meta\u0064ata"` is `metadata`), \uXXXX incl. lone surrogates;
// - invalid UTF-8 inside extracted strings decodes to U+FFFD like TextDecoder (bytes ≥ 0x80 are
//   never JSON syntax, and an ASCII byte always ends a malformed sequence, so decoding the
//   segments between escapes and quotes separately gives the same text);
// - any byte ≥ 0x80 outside a string is an error (U+FFFD and other non-ASCII are not JSON whitespace);
// - nesting is unbounded (the skipper keeps its own stack), as JSON.parse's is.
// No case needs a JSON.parse fallback; the callers (list.ts, watch.ts) still hand a rejected text to
// JSON.parse, for its error message, and count it should JSON.parse accept it (scanCounters).
//
// Speed: skipped values are validated by one iterative loop over the bytes (skipValue); the pod's
// own objects are walked key by key with a switch per object kind; strings are made only for the
// extracted fields (ASCII via Buffer#latin1Slice where present), and repeating ones (namespaces,
// images, owners, container names) come from a small cache keyed by their bytes.
import { parseIpv4 } from '../model/convert.ts'
import { listedContainerMeta, listedPodMeta, newContainerMeta, newOwnerRef, newPodMeta } from '../model/records.ts'
import type { ContainerMeta, OwnerRef, PodMeta } from '../model/types.ts'

/** The bytes are not valid JSON (JSON.parse of the decoded text would throw too). */
export class JsonScanError extends SyntaxError {
  override readonly name = 'JsonScanError'
}

/** One scanned LIST page. */
export interface ScannedList<T> {
  /** Converted items in order (no uid → left out); undefined when `items` is not an array. */
  readonly items: T[] | undefined
  /** Elements of `items` (converted or not). */
  readonly total: number
  /** `metadata.resourceVersion` when a string, else ''. */
  readonly resourceVersion: string
  /** `metadata.continue` when a string, else ''. */
  readonly continueToken: string
}

/** One scanned watch line: `type` when it is a string (else undefined), and the converted `object`. */
export interface ScannedLine<T> {
  readonly type: string | undefined
  /** The object converted (undefined: not an object, no uid, or absent). */
  readonly object: T | undefined
  /** `object.metadata.resourceVersion` when a string, else ''. */
  readonly resourceVersion: string
}

/** A byte-level converter a ResourceSpec may offer beside its JSON.parse converter. */
export interface ByteScanner<T> {
  /** A whole LIST response body. Throws JsonScanError for invalid JSON. */
  list(body: Uint8Array): ScannedList<T>
  /** One watch line, `buf[start, end)` (no `\n`; a BOM is not stripped). Throws JsonScanError for invalid JSON. */
  watchLine(buf: Uint8Array, start: number, end: number): ScannedLine<T>
}

/**
 * Times the JSON.parse path had to stand in for the scanner: it rejected a text JSON.parse
 * accepts (never expected; counted so the bench shows it). BOOKMARK/ERROR/unknown watch lines
 * take the JSON.parse path by design and are counted in `parsedLines`.
 */
export const scanCounters = { fallbacks: 0, parsedLines: 0 }

// ---- scanner state (the scanner is synchronous and not re-entrant) ----------------------------

let B: Uint8Array = new Uint8Array(0)
let END = 0
let ORIGIN = 0
/** Set by the value readers (read*, scan*): the index after the value just read. */
let POS = 0
let STACK = new Uint8Array(256)

const SLICE_DECODER = new TextDecoder('utf-8', { ignoreBOM: true })

function fail(i: number): never {
  if (i >= END) throw new JsonScanError('Unexpected end of JSON input')
  const c = B[i]
  const what = c >= 32 && c < 127 ? `token '${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`
  throw new JsonScanError(`Unexpected ${what} in JSON at byte ${i - ORIGIN}`)
}

function setInput(buf: Uint8Array, start: number, end: number): void {
  B = buf
  END = end
  ORIGIN = start
}

function ws(i: number): number {
  while (i < END) {
    const c = B[i]
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i
    i++
  }
  return i
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)
}

function hexValue(c: number): number {
  return c <= 57 ? c - 48 : (c | 32) - 87
}

/** `B[i]` is a backslash inside a string: validates the escape, returns the index after it. */
function skipEscape(i: number): number {
  if (i + 1 >= END) fail(END)
  const e = B[i + 1]
  if (e === 117) {
    for (let k = i + 2; k < i + 6; k++) if (k >= END || !isHex(B[k])) fail(k)
    return i + 6
  }
  if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) return i + 2
  return fail(i + 1)
}

function skipDigits(i: number): number {
  if (i >= END) fail(i)
  let c = B[i]
  if (c < 48 || c > 57) fail(i)
  i++
  while (i < END && (c = B[i]) >= 48 && c <= 57) i++
  return i
}

/** `B[i]` is `-` or a digit: validates the number grammar, returns the index after it. */
function skipNumber(i: number): number {
  if (B[i] === 45) i++
  if (i >= END) fail(i)
  const c = B[i]
  if (c === 48) i++
  else i = skipDigits(i)
  if (i < END && B[i] === 46) i = skipDigits(i + 1)
  if (i < END && (B[i] | 32) === 101) {
    i++
    if (i < END && (B[i] === 43 || B[i] === 45)) i++
    i = skipDigits(i)
  }
  return i
}

const TRUE = [116, 114, 117, 101]
const FALSE = [102, 97, 108, 115, 101]
const NULL = [110, 117, 108, 108]

function skipLiteral(i: number, lit: readonly number[]): number {
  for (let k = 0; k < lit.length; k++) if (i + k >= END || B[i + k] !== lit[k]) fail(i + k)
  return i + lit.length
}

/**
 * Validates one JSON value starting at (whitespace before) `i` without building anything;
 * returns the index after it. Iterative, so nesting is unbounded like JSON.parse. The hot loops
 * (whitespace, strings, keys) are written out here on locals: this is where most bytes go.
 */
function skipValue(i: number): number {
  const b = B
  const end = END
  let depth = 0
  let c = 0
  value: for (;;) {
    while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
    if (i >= end) fail(i)
    if (c === 34) {
      i++
      for (;;) {
        // Four plain bytes (> '"', not '\\') at a time, then byte by byte.
        while (i + 3 < end && (c = b[i]) > 34 && c !== 92 && (c = b[i + 1]) > 34 && c !== 92 && (c = b[i + 2]) > 34 && c !== 92 && (c = b[i + 3]) > 34 && c !== 92) i += 4
        if (i >= end) fail(i)
        c = b[i]
        if (c > 34) {
          if (c !== 92) i++
          else i = skipEscape(i)
        } else if (c === 34) break
        else if (c < 32) fail(i)
        else i++
      }
      i++
    } else if (c === 123 || c === 91) {
      const close = c + 2 // } or ]
      i++
      while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
      if (i < end && c === close) i++
      else {
        if (depth === STACK.length) {
          const grown = new Uint8Array(depth * 2)
          grown.set(STACK)
          STACK = grown
        }
        STACK[depth++] = close
        if (close !== 125) continue value
        // The first key.
        if (i >= end || c !== 34) fail(i)
        i = skipKeyColon(b, end, i)
        continue value
      }
    } else if (c === 45 || (c >= 48 && c <= 57)) i = skipNumber(i)
    else if (c === 116) i = skipLiteral(i, TRUE)
    else if (c === 102) i = skipLiteral(i, FALSE)
    else if (c === 110) i = skipLiteral(i, NULL)
    else fail(i)
    // After a value: close containers, or go on with the next element / member.
    for (;;) {
      if (depth === 0) return i
      while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
      if (i >= end) fail(i)
      const close = STACK[depth - 1]
      if (c === 44) {
        i++
        if (close === 125) {
          while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
          if (i >= end || c !== 34) fail(i)
          i = skipKeyColon(b, end, i)
        }
        continue value
      }
      if (c !== close) fail(i)
      depth--
      i++
    }
  }
}

/** `b[i]` is the `"` of a key: validates `"key" :`, returns the index after the `:`. */
function skipKeyColon(b: Uint8Array, end: number, i: number): number {
  let c = 0
  i++
  for (;;) {
    if (i >= end) fail(i)
    c = b[i]
    if (c > 34) {
      if (c !== 92) i++
      else i = skipEscape(i)
    } else if (c === 34) break
    else if (c < 32) fail(i)
    else i++
  }
  i++
  while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
  if (i >= end || c !== 58) fail(i)
  return i + 1
}

// ---- strings ------------------------------------------------------------------------------

// Node's Buffer has a native Latin-1 slice, several times faster than building the string in JS;
// for ASCII bytes it gives exactly what the portable fallback gives (used where Buffer is absent).
const latin1Slice = (globalThis as { Buffer?: { prototype?: { latin1Slice?: unknown } } }).Buffer?.prototype?.latin1Slice as
  | ((this: Uint8Array, start: number, end: number) => string)
  | undefined
const nativeAscii = typeof latin1Slice === 'function' && latin1Slice.call(new Uint8Array([104, 105]), 0, 2) === 'hi'

/** One-byte string from ASCII bytes `B[s, e)`. */
function ascii(s: number, e: number): string {
  if (s === e) return ''
  if (nativeAscii) return latin1Slice!.call(B, s, e)
  const b = B
  let out = ''
  let k = s
  for (; k + 8 <= e; k += 8) out += String.fromCharCode(b[k], b[k + 1], b[k + 2], b[k + 3], b[k + 4], b[k + 5], b[k + 6], b[k + 7])
  for (; k < e; k++) out += String.fromCharCode(b[k])
  return out
}

function decodeSlice(s: number, e: number): string {
  return s === e ? '' : SLICE_DECODER.decode(B.subarray(s, e))
}

/** `B[i]` is `"`: the decoded string; POS = after the closing quote. */
function readString(i: number): string {
  const b = B
  const end = END
  const s = i + 1
  let j = s
  let high = 0
  for (;;) {
    if (j >= end) fail(j)
    const c = b[j]
    if (c === 34) break
    if (c === 92) return readEscaped(s)
    if (c < 32) fail(j)
    high |= c
    j++
  }
  POS = j + 1
  return high < 128 ? ascii(s, j) : decodeSlice(s, j)
}

/** The slow path of {@link readString}: a string with escapes, from its first content byte `s`. */
function readEscaped(s: number): string {
  let out = ''
  let seg = s
  let j = s
  for (;;) {
    if (j >= END) fail(j)
    const c = B[j]
    if (c === 34) {
      POS = j + 1
      return out + decodeSlice(seg, j)
    }
    if (c === 92) {
      const next = skipEscape(j)
      out += decodeSlice(seg, j)
      const e = B[j + 1]
      if (e === 117) {
        out += String.fromCharCode((hexValue(B[j + 2]) << 12) | (hexValue(B[j + 3]) << 8) | (hexValue(B[j + 4]) << 4) | hexValue(B[j + 5]))
      } else if (e === 110) out += '\n'
      else if (e === 116) out += '\t'
      else if (e === 114) out += '\r'
      else if (e === 98) out += '\b'
      else if (e === 102) out += '\f'
      else out += String.fromCharCode(e) // " \ /
      j = next
      seg = j
    } else if (c < 32) fail(j)
    else j++
  }
}

// Values that repeat across pods (namespaces, images, owner and container names) are looked up
// by their bytes before a string is made: a small direct-mapped cache of interned strings.
const CACHE_SIZE = 2048
const cacheKeys: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(CACHE_SIZE).fill(undefined)
const cacheStrings: string[] = new Array<string>(CACHE_SIZE).fill('')

/** What the scanner needs of the model context (src/model/context.ts): its interner and version cache. */
export interface ScanModel {
  intern(s: string): string
  versionOf(images: string[], n: number): string
}

/** The model of the scan in progress (set by each entry point). */
let MODEL: ScanModel = { intern: (s) => s, versionOf: () => '' }

/** Scans with `model`; the byte cache holds another model's strings, so it starts empty. */
function useModel(model: ScanModel): void {
  if (model === MODEL) return
  MODEL = model
  cacheKeys.fill(undefined)
}

/** Like {@link readStr}, interned (by the model's `intern`). */
function readInterned(i: number): string {
  if (B[i] !== 34) {
    POS = skipValue(i)
    return ''
  }
  const b = B
  const end = END
  const s = i + 1
  let j = s
  let h = 0x811c9dc5 | 0
  let high = 0
  for (;;) {
    if (j >= end) fail(j)
    const c = b[j]
    if (c === 34) break
    if (c === 92) return MODEL.intern(readEscaped(s))
    if (c < 32) fail(j)
    high |= c
    h = Math.imul(h ^ c, 0x01000193)
    j++
  }
  POS = j + 1
  const n = j - s
  if (n === 0) return ''
  if (high >= 128) return MODEL.intern(decodeSlice(s, j))
  const slot = (h ^ (h >>> 16)) & (CACHE_SIZE - 1)
  const key = cacheKeys[slot]
  if (key !== undefined && key.length === n) {
    let k = 0
    while (k < n && key[k] === b[s + k]) k++
    if (k === n) return cacheStrings[slot]
  }
  const str = MODEL.intern(ascii(s, j))
  cacheKeys[slot] = b.slice(s, j)
  cacheStrings[slot] = str
  return str
}

/** A value read as `str()` does: the string, or '' for any other (validated, skipped) value. */
function readStr(i: number): string {
  if (B[i] === 34) return readString(i)
  POS = skipValue(i)
  return ''
}

/** A value compared `=== true`. */
function readTrue(i: number): boolean {
  if (B[i] === 116) {
    POS = skipLiteral(i, TRUE)
    return true
  }
  POS = skipValue(i)
  return false
}

// ---- keys ---------------------------------------------------------------------------------

const enc = new TextEncoder()
const keys = (...names: string[]): { bytes: Uint8Array[]; names: string[] } => ({ bytes: names.map((n) => enc.encode(n)), names })

/**
 * `B[i]` is the `"` of a key: returns the index of the key in `table` (-1 when none), after
 * validating `"key" :`; POS = after the `:` and following whitespace (always < END, a value follows).
 */
function readKey(i: number, table: { bytes: Uint8Array[]; names: string[] }): number {
  const b = B
  const end = END
  const s = i + 1
  let j = s
  let escaped = false
  for (;;) {
    if (j >= end) fail(j)
    const c = b[j]
    if (c === 34) break
    if (c === 92) {
      escaped = true
      j = skipEscape(j)
    } else if (c < 32) fail(j)
    else j++
  }
  let k = j + 1
  let c = 0
  while (k < end && (c = b[k]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) k++
  if (k >= end || c !== 58) fail(k)
  k++
  while (k < end && (c = b[k]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) k++
  if (k >= end) fail(k)
  POS = k
  if (escaped) {
    const name = readEscaped(s)
    POS = k
    return table.names.indexOf(name)
  }
  const n = j - s
  const list = table.bytes
  next: for (let t = 0; t < list.length; t++) {
    const key = list[t]
    if (key.length !== n || key[0] !== b[s]) continue
    for (let q = 1; q < n; q++) if (b[s + q] !== key[q]) continue next
    return t
  }
  return -1
}

// Members and elements are walked with cursor functions, so that each object kind is one loop
// with a switch on the key and its fields in locals (no callbacks, no shared mutable fields):
//   for (let k = firstKey(at); k >= 0; k = nextKey(POS)) switch (readKey(k, TABLE)) { … }
// where every case reads the value at POS and leaves POS after it.

/** `B[i]` is `{`: the index of the first key's `"`, or -1 for `{}` (POS = after the `}`). */
function firstKey(i: number): number {
  const b = B
  const end = END
  let c = 0
  i++
  while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
  if (i >= end) fail(i)
  if (c === 34) return i
  if (c !== 125) fail(i)
  POS = i + 1
  return -1
}

/** `i` after a member's value: the index of the next key's `"`, or -1 at the `}` (POS = after it). */
function nextKey(i: number): number {
  const b = B
  const end = END
  let c = 0
  while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
  if (i >= end) fail(i)
  if (c === 44) {
    i++
    while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
    if (i >= end || c !== 34) fail(i)
    return i
  }
  if (c !== 125) fail(i)
  POS = i + 1
  return -1
}

/** `B[i]` is `[`: the index of the first element, or -1 for `[]` (POS = after the `]`). */
function firstElement(i: number): number {
  const b = B
  const end = END
  let c = 0
  i++
  while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
  if (i >= end) fail(i)
  if (c !== 93) return i
  POS = i + 1
  return -1
}

/** `i` after an element: the index of the next element, or -1 at the `]` (POS = after it). */
function nextElement(i: number): number {
  const b = B
  const end = END
  let c = 0
  while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
  if (i >= end) fail(i)
  if (c === 44) {
    i++
    while (i < end && (c = b[i]) <= 32 && (c === 32 || c === 10 || c === 13 || c === 9)) i++
    if (i >= end) fail(i)
    return i
  }
  if (c !== 93) fail(i)
  POS = i + 1
  return -1
}

// ---- the pod ------------------------------------------------------------------------------

const POD_KEYS = keys('metadata', 'spec', 'status')
const META_KEYS = keys('uid', 'name', 'namespace', 'resourceVersion', 'ownerReferences')
const REF_KEYS = keys('controller', 'kind', 'uid', 'name')
const SPEC_KEYS = keys('hostNetwork')
const STATUS_KEYS = keys('podIP', 'podIPs', 'containerStatuses')
const IP_KEYS = keys('ip')
const CS_KEYS = keys('image', 'containerID', 'name')

/** What the pod needs of `metadata` (an object; each key's last occurrence). */
interface MetaFields {
  readonly uid: string
  readonly name: string
  readonly namespace: string
  readonly rv: string
  readonly owner: OwnerRef | undefined
}

/** What the pod needs of `status` (an object; each key's last occurrence). */
interface StatusFields {
  readonly podIP: string
  /** The first IPv4 among the object entries of `podIPs`, -1 when none. */
  readonly podIPsIp: number
  readonly images: string[]
  readonly containers: ContainerMeta[]
}

const NO_STATUS: StatusFields = { podIP: '', podIPsIp: -1, images: [], containers: [] }

/** `ownerReferences` at `at`: its first `controller: true` entry (controllerOf); POS = after it. */
function scanOwnerRefs(at: number): OwnerRef | undefined {
  if (B[at] !== 91) {
    POS = skipValue(at)
    return undefined
  }
  let owner: OwnerRef | undefined
  for (let e = firstElement(at); e >= 0; e = nextElement(POS)) {
    if (owner !== undefined || B[e] !== 123) {
      POS = skipValue(e)
      continue
    }
    let controller = false
    let kind = ''
    let uid = ''
    let name = ''
    for (let k = firstKey(e); k >= 0; k = nextKey(POS)) {
      switch (readKey(k, REF_KEYS)) {
        case 0:
          controller = readTrue(POS)
          break
        case 1:
          kind = readInterned(POS)
          break
        case 2:
          uid = readInterned(POS)
          break
        case 3:
          name = readInterned(POS)
          break
        default:
          POS = skipValue(POS)
      }
    }
    if (controller) owner = newOwnerRef(kind, uid, name) // shared by the core when it keeps the pod
  }
  return owner
}

/** `metadata` at `at`, an object; POS = after it. */
function scanMetadata(at: number): MetaFields {
  let uid = ''
  let name = ''
  let namespace = ''
  let rv = ''
  let owner: OwnerRef | undefined
  for (let k = firstKey(at); k >= 0; k = nextKey(POS)) {
    switch (readKey(k, META_KEYS)) {
      case 0:
        uid = readStr(POS)
        break
      case 1:
        name = readStr(POS)
        break
      case 2:
        namespace = readInterned(POS)
        break
      case 3:
        rv = readStr(POS)
        break
      case 4:
        owner = scanOwnerRefs(POS)
        break
      default:
        POS = skipValue(POS)
    }
  }
  return { uid, name, namespace, rv, owner }
}

/** `spec` at `at`: `hostNetwork === true`; POS = after it. */
function scanSpec(at: number): boolean {
  if (B[at] !== 123) {
    POS = skipValue(at)
    return false
  }
  let hostNetwork = false
  for (let k = firstKey(at); k >= 0; k = nextKey(POS)) {
    if (readKey(k, SPEC_KEYS) === 0) hostNetwork = readTrue(POS)
    else POS = skipValue(POS)
  }
  return hostNetwork
}

/** `status.podIPs` at `at`: the first IPv4 `ip` of its object entries (podIpOf), -1 when none; POS = after it. */
function scanPodIPs(at: number): number {
  if (B[at] !== 91) {
    POS = skipValue(at)
    return -1
  }
  let found = -1
  for (let e = firstElement(at); e >= 0; e = nextElement(POS)) {
    if (found >= 0 || B[e] !== 123) {
      POS = skipValue(e)
      continue
    }
    let ip = ''
    for (let k = firstKey(e); k >= 0; k = nextKey(POS)) {
      if (readKey(k, IP_KEYS) === 0) ip = readStr(POS)
      else POS = skipValue(POS)
    }
    found = parseIpv4(ip)
  }
  return found
}

/** `status` at `at`: POS = after it. */
function scanStatus(at: number): StatusFields {
  if (B[at] !== 123) {
    POS = skipValue(at)
    return NO_STATUS
  }
  let podIP = ''
  let podIPsIp = -1
  let images: string[] = []
  let containers: ContainerMeta[] = []
  for (let k = firstKey(at); k >= 0; k = nextKey(POS)) {
    switch (readKey(k, STATUS_KEYS)) {
      case 0:
        podIP = readStr(POS)
        break
      case 1:
        podIPsIp = scanPodIPs(POS)
        break
      case 2: {
        images = []
        containers = []
        const list = POS
        if (B[list] !== 91) {
          POS = skipValue(list)
          break
        }
        for (let e = firstElement(list); e >= 0; e = nextElement(POS)) {
          if (B[e] !== 123) {
            POS = skipValue(e)
            continue
          }
          let image = ''
          let id = ''
          let name = ''
          for (let m = firstKey(e); m >= 0; m = nextKey(POS)) {
            switch (readKey(m, CS_KEYS)) {
              case 0:
                image = readInterned(POS)
                break
              case 1:
                id = readStr(POS)
                break
              case 2:
                name = readInterned(POS)
                break
              default:
                POS = skipValue(POS)
            }
          }
          if (image) images.push(image)
          if (id) containers.push(LISTED ? listedContainerMeta(id, name, image) : newContainerMeta(id, name, image))
        }
        break
      }
      default:
        POS = skipValue(POS)
    }
  }
  return { podIP, podIPsIp, images, containers }
}

/** Scanning a LIST's items, not a watch line's object: pods are allocated otherwise (src/model/records.ts). */
let LISTED = false

/** The resourceVersion the last {@link scanPod} saw (metadata.resourceVersion of an object metadata, else ''). */
let podRv = ''

/** Scans the value at `i` (no whitespace before) as a pod; POS = after it. */
function scanPod(i: number): PodMeta | undefined {
  podRv = ''
  if (B[i] !== 123) {
    POS = skipValue(i)
    return undefined
  }
  let metadata: MetaFields | undefined
  let hostNetwork = false
  let status = NO_STATUS
  for (let k = firstKey(i); k >= 0; k = nextKey(POS)) {
    switch (readKey(k, POD_KEYS)) {
      case 0:
        if (B[POS] === 123) metadata = scanMetadata(POS)
        else {
          metadata = undefined
          POS = skipValue(POS)
        }
        break
      case 1:
        hostNetwork = scanSpec(POS)
        break
      case 2:
        status = scanStatus(POS)
        break
      default:
        POS = skipValue(POS)
    }
  }
  if (metadata === undefined) return undefined
  podRv = metadata.rv
  if (!metadata.uid) return undefined
  const podIP = status.podIP
  let ip = podIP ? parseIpv4(podIP) : -1
  if (ip < 0) ip = status.podIPsIp
  ip = ip < 0 ? 0 : ip
  const hasIp = podIP.length > 0
  const version = MODEL.versionOf(status.images, status.images.length)
  // A fresh array when shared (NO_STATUS), so no meta aliases another's; else an exact-size copy:
  // the pushed-to array has room for 17 (~150 bytes a pod, kept as long as the pod).
  const containers = status === NO_STATUS ? [] : status.containers.slice()
  const { uid, name, namespace, rv, owner } = metadata
  return LISTED
    ? listedPodMeta(uid, name, namespace, rv, ip, hasIp, hostNetwork, version, containers, owner)
    : newPodMeta(uid, name, namespace, rv, ip, hasIp, hostNetwork, version, containers, owner)
}

/** After the top-level value: only whitespace may follow. */
function expectEnd(i: number): void {
  i = ws(i)
  if (i < END) fail(i)
}

/** Skips a UTF-8 BOM at `start` (TextDecoder strips it from the start of a body). */
function afterBom(buf: Uint8Array, start: number, end: number): number {
  return end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf ? start + 3 : start
}

/** A whole JSON text (BOM allowed, like TextDecoder) as one pod: the same as `podMetaOf(JSON.parse(decode(bytes)))`. */
export function scanPodJson(bytes: Uint8Array, model: ScanModel): PodMeta | undefined {
  useModel(model)
  const start = afterBom(bytes, 0, bytes.length)
  setInput(bytes, start, bytes.length)
  const at = ws(start)
  if (at >= END) fail(at)
  const meta = scanPod(at)
  expectEnd(POS)
  return meta
}

// ---- LIST pages and watch lines -------------------------------------------------------------

const LIST_KEYS = keys('metadata', 'items')
const LIST_META_KEYS = keys('resourceVersion', 'continue')

/** A LIST response body of pods (see {@link ByteScanner.list}). */
export function scanPodList(body: Uint8Array, model: ScanModel): ScannedList<PodMeta> {
  useModel(model)
  LISTED = true
  try {
    return scanList(body)
  } finally {
    LISTED = false
    setInput(NO_BYTES, 0, 0) // do not keep the page alive
  }
}

const NO_BYTES = new Uint8Array(0)

function scanList(body: Uint8Array): ScannedList<PodMeta> {
  const start = afterBom(body, 0, body.length)
  setInput(body, start, body.length)
  let rv = ''
  let continueToken = ''
  let items: PodMeta[] | undefined
  let total = 0
  const at = ws(start)
  if (at >= END) fail(at)
  if (B[at] !== 123) POS = skipValue(at)
  else {
    for (let k = firstKey(at); k >= 0; k = nextKey(POS)) {
      switch (readKey(k, LIST_KEYS)) {
        case 0:
          rv = continueToken = ''
          if (B[POS] !== 123) {
            POS = skipValue(POS)
            break
          }
          for (let m = firstKey(POS); m >= 0; m = nextKey(POS)) {
            const key = readKey(m, LIST_META_KEYS)
            if (key === 0) rv = readStr(POS)
            else if (key === 1) continueToken = readStr(POS)
            else POS = skipValue(POS)
          }
          break
        case 1:
          total = 0
          if (B[POS] !== 91) {
            items = undefined
            POS = skipValue(POS)
            break
          }
          items = []
          for (let e = firstElement(POS); e >= 0; e = nextElement(POS)) {
            total++
            const meta = scanPod(e)
            if (meta !== undefined) items.push(meta)
          }
          break
        default:
          POS = skipValue(POS)
      }
    }
  }
  expectEnd(POS)
  return { items, total: items ? total : 0, resourceVersion: rv, continueToken }
}

const LINE_KEYS = keys('type', 'object')

/** One watch line of pods (see {@link ByteScanner.watchLine}). */
export function scanPodWatchLine(buf: Uint8Array, start: number, end: number, model: ScanModel): ScannedLine<PodMeta> {
  useModel(model)
  setInput(buf, start, end)
  let type: string | undefined
  let object: PodMeta | undefined
  let rv = ''
  const at = ws(start)
  if (at >= END) fail(at)
  if (B[at] !== 123) POS = skipValue(at)
  else {
    for (let k = firstKey(at); k >= 0; k = nextKey(POS)) {
      switch (readKey(k, LINE_KEYS)) {
        case 0:
          if (B[POS] === 34) type = readString(POS)
          else {
            type = undefined
            POS = skipValue(POS)
          }
          break
        case 1:
          object = scanPod(POS)
          rv = podRv
          break
        default:
          POS = skipValue(POS)
      }
    }
  }
  expectEnd(POS)
  return { type, object, resourceVersion: rv }
}

/** Validates a whole JSON text (BOM allowed) without building anything; throws JsonScanError like JSON.parse would. */
export function validateJson(bytes: Uint8Array): void {
  const start = afterBom(bytes, 0, bytes.length)
  setInput(bytes, start, bytes.length)
  expectEnd(skipValue(start))
}

/** The pods' byte-level converter, interning through `model`. */
export function createPodScanner(model: ScanModel): ByteScanner<PodMeta> {
  return { list: (body) => scanPodList(body, model), watchLine: (buf, start, end) => scanPodWatchLine(buf, start, end, model) }
}
