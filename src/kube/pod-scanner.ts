// The byte-level converters of pods and of metadata-only ReplicaSets and Jobs: a LIST response
// body or one watch line, as UTF-8 bytes, straight to metas without decoding the text or building
// the objects (the layouts of pod-layout.ts over a JSON cursor, json-cursor.ts). Each validates
// the whole text as JSON.parse does and throws a JsonScanError exactly when JSON.parse of the
// decoded text would throw; the callers (list.ts, watch.ts) then hand the text to JSON.parse for
// its error message, and count it in `stats` should JSON.parse accept it.
import { pageArray } from '../model/records.ts'
import type { OwnerKind, OwnerMeta, PodMeta } from '../model/types.ts'
import { JsonCursor, keyTable } from './json-cursor.ts'
import { PodLayout, type PodModel } from './pod-layout.ts'

/** One scanned LIST page. */
export interface ScannedList<T> {
  /** Converted items in order (no uid → left out); empty for `items: null`; undefined when `items` is neither an array nor null. */
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

/** Texts the JSON.parse path read instead of the scanner (counted by the callers). */
export interface ScanStats {
  /** The scanner rejected a text JSON.parse accepts (never expected; JSON.parse's result stands). */
  fallbacks: number
  /** BOOKMARK, ERROR and unknown watch lines: parsed by JSON.parse by design. */
  parsedLines: number
}

/** A byte-level converter a ResourceSpec may offer beside its JSON.parse converter. */
export interface ByteScanner<T> {
  /**
   * A whole LIST response body (a BOM is skipped). Throws JsonScanError for invalid JSON.
   * `listed`: the items are allocated as a first list's, which the core keeps (else as watch
   * events' objects, src/model/records.ts).
   */
  list(body: Uint8Array, listed: boolean): ScannedList<T>
  /** One watch line, `buf[start, end)` (no `\n`; a BOM is not stripped). Throws JsonScanError for invalid JSON. */
  watchLine(buf: Uint8Array, start: number, end: number): ScannedLine<T>
  readonly stats: ScanStats
}

/** A {@link ScannedList} born young (a literal's would be pretenured: src/model/records.ts). */
class ScannedPage<T> implements ScannedList<T> {
  constructor(
    readonly items: T[] | undefined,
    readonly total: number,
    readonly resourceVersion: string,
    readonly continueToken: string,
  ) {}
}

const LIST_KEYS = keyTable('metadata', 'items')
const LIST_META_KEYS = keyTable('resourceVersion', 'continue')
const LINE_KEYS = keyTable('type', 'object')

/** How a scanner reads one object of its kind (pod-layout.ts). */
interface ObjectLayout<T> {
  /** The value at `i` converted (`listed`: a first LIST's item); cur.pos = after it. */
  read(i: number, listed: boolean): T | undefined
  /** `metadata.resourceVersion` of the last object read when its metadata is an object, else ''. */
  readonly rv: string
}

class LayoutScanner<T> implements ByteScanner<T> {
  readonly stats: ScanStats = { fallbacks: 0, parsedLines: 0 }
  private readonly cur: JsonCursor
  private readonly objects: ObjectLayout<T>

  constructor(cur: JsonCursor, objects: ObjectLayout<T>) {
    this.cur = cur
    this.objects = objects
  }

  list(body: Uint8Array, listed: boolean): ScannedList<T> {
    const cur = this.cur
    try {
      const at = cur.openText(body)
      let rv = ''
      let continueToken = ''
      let items: T[] | undefined
      let total = 0
      if (body[at] !== 123) cur.pos = cur.skipValue(at)
      else {
        for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
          switch (cur.readKey(k, LIST_KEYS)) {
            case 0:
              rv = continueToken = ''
              if (body[cur.pos] !== 123) {
                cur.pos = cur.skipValue(cur.pos)
                break
              }
              for (let m = cur.firstKey(cur.pos); m >= 0; m = cur.nextKey(cur.pos)) {
                const key = cur.readKey(m, LIST_META_KEYS)
                if (key === 0) rv = cur.readStr(cur.pos)
                else if (key === 1) continueToken = cur.readStr(cur.pos)
                else cur.pos = cur.skipValue(cur.pos)
              }
              break
            case 1:
              total = 0
              // `null`: an empty list as Go encodes a nil slice (kube-apiserver's metadata-only
              // LIST served from etcd, docs/kube-api.md "Metadata only").
              if (body[cur.pos] === 110) {
                cur.pos = cur.skipValue(cur.pos)
                items = []
                break
              }
              if (body[cur.pos] !== 91) {
                items = undefined
                cur.pos = cur.skipValue(cur.pos)
                break
              }
              items = pageArray()
              for (let e = cur.firstElement(cur.pos); e >= 0; e = cur.nextElement(cur.pos)) {
                total++
                const meta = this.objects.read(e, listed)
                if (meta !== undefined) items.push(meta)
              }
              break
            default:
              cur.pos = cur.skipValue(cur.pos)
          }
        }
      }
      cur.expectEnd(cur.pos)
      return new ScannedPage(items, items ? total : 0, rv, continueToken)
    } finally {
      cur.close()
    }
  }

  watchLine(buf: Uint8Array, start: number, end: number): ScannedLine<T> {
    const cur = this.cur
    try {
      const at = cur.open(buf, start, end)
      let type: string | undefined
      let object: T | undefined
      let rv = ''
      if (buf[at] !== 123) cur.pos = cur.skipValue(at)
      else {
        for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
          switch (cur.readKey(k, LINE_KEYS)) {
            case 0:
              if (buf[cur.pos] === 34) type = cur.readString(cur.pos)
              else {
                type = undefined
                cur.pos = cur.skipValue(cur.pos)
              }
              break
            case 1:
              object = this.objects.read(cur.pos, false)
              rv = this.objects.rv
              break
            default:
              cur.pos = cur.skipValue(cur.pos)
          }
        }
      }
      cur.expectEnd(cur.pos)
      return { type, object, resourceVersion: rv }
    } finally {
      cur.close()
    }
  }
}

/** A pod scanner with its own cursor and string cache; `model` interns its strings and makes its versions. */
export function createPodScanner(model: PodModel): ByteScanner<PodMeta> {
  const cur = new JsonCursor()
  return new LayoutScanner(cur, new PodLayout(cur, model))
}

/**
 * A scanner of metadata-only ReplicaSets or Jobs (`kind`) with its own cursor and string cache:
 * what `ownerMetaOf(JSON.parse(text))` gives (src/model/convert.ts), through `model`.
 */
export function createOwnerScanner(model: PodModel, kind: OwnerKind): ByteScanner<OwnerMeta> {
  const cur = new JsonCursor()
  const layout = new PodLayout(cur, model)
  return new LayoutScanner<OwnerMeta>(cur, {
    read: (i) => layout.owner(i, kind),
    get rv() {
      return layout.rv
    },
  })
}
