// The uid of a watch event line read without converting its object: what the held queue
// (fair-order.ts) keys a large line by. It must be the uid the conversion will find, so keys are
// read as JSON.parse reads them: of duplicated keys the last counts, wherever it stands. That
// takes one pass over the whole line (a later `object`, `metadata` or `uid` may come at its end);
// the pass skips values, noting positions only, and builds two strings at the end.
import { JsonCursor, keyTable } from './json-cursor.ts'
import { JsonScanError } from './json-skip.ts'

const LINE_KEYS = keyTable('type', 'object')
const OBJECT_KEYS = keyTable('metadata')
const METADATA_KEYS = keyTable('uid')

/** Reads event uids with a cursor of its own. */
export class EventUidReader {
  private readonly cur = new JsonCursor()

  /**
   * `JSON.parse(line).object.metadata.uid` of the line `buf[start, end)` when that is a string and
   * the line's `type` is ADDED, MODIFIED or DELETED; else undefined, as for bytes that are not
   * JSON (the line is then converted at once, which reports what is wrong). Validates the line as
   * JSON.parse would, in time linear in its length, without building its values.
   */
  read(buf: Uint8Array, start: number, end: number): string | undefined {
    const cur = this.cur
    try {
      const at = cur.open(buf, start, end)
      if (!cur.opens(at, 123)) return undefined
      let type = -1
      let uid = -1
      for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
        const key = cur.readKey(k, LINE_KEYS)
        if (key === 0) {
          type = cur.pos
          cur.pos = cur.skipValue(cur.pos)
        } else if (key === 1) uid = this.uidIn(cur.pos)
        else cur.pos = cur.skipValue(cur.pos)
      }
      cur.expectEnd(cur.pos)
      if (type < 0 || uid < 0 || buf[type] !== 34 || buf[uid] !== 34) return undefined
      const t = cur.readString(type)
      return t === 'ADDED' || t === 'MODIFIED' || t === 'DELETED' ? cur.readString(uid) : undefined
    } catch (err) {
      if (err instanceof JsonScanError) return undefined
      throw err
    } finally {
      cur.close()
    }
  }

  /** The object at `at`: where its last `metadata`'s last `uid` value starts (-1: none); pos = after the object. */
  private uidIn(at: number): number {
    const cur = this.cur
    if (!cur.opens(at, 123)) return -1
    let uid = -1
    for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
      if (cur.readKey(k, OBJECT_KEYS) !== 0) {
        cur.pos = cur.skipValue(cur.pos)
        continue
      }
      uid = -1 // a later `metadata` replaces an earlier one whole, as in JSON.parse
      if (!cur.opens(cur.pos, 123)) continue
      for (let m = cur.firstKey(cur.pos); m >= 0; m = cur.nextKey(cur.pos)) {
        if (cur.readKey(m, METADATA_KEYS) === 0) uid = cur.pos
        cur.pos = cur.skipValue(cur.pos)
      }
    }
    return uid
  }
}
